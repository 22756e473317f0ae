package dev.exclusive.admin.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.Principal;
import org.junit.jupiter.api.Test;

class ConsoleAccessTest {

    private static final Principal ADMIN = () -> "admin";

    @Test
    void aUserInTheConsolesRoleIsAllowed() {
        assertThat(ConsoleAccess.decide(ADMIN, "exclusive-admin"::equals, "exclusive-admin"))
                .isEqualTo(ConsoleAccess.ALLOWED);
    }

    @Test
    void aSignedInUserWithoutTheRoleIsRefused() {
        assertThat(ConsoleAccess.decide(() -> "operator", role -> false, "exclusive-admin"))
                .isEqualTo(ConsoleAccess.REFUSED);
    }

    @Test
    void theConfiguredRoleIsTheOneChecked() {
        assertThat(ConsoleAccess.decide(ADMIN, "exclusive-admin"::equals, "lock-ops"))
                .isEqualTo(ConsoleAccess.REFUSED);
        assertThat(ConsoleAccess.decide(ADMIN, "lock-ops"::equals, "lock-ops")).isEqualTo(ConsoleAccess.ALLOWED);
    }

    @Test
    void nobodySignedInMustLogIn() {
        assertThat(ConsoleAccess.decide(null, role -> true, "exclusive-admin")).isEqualTo(ConsoleAccess.LOGIN_REQUIRED);
    }
}
