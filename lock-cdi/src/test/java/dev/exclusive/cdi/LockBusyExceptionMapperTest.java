package dev.exclusive.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.LockBusyException;
import dev.exclusive.cdi.internal.LockBusyExceptionMapper;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Calls the mapper directly; Jersey's RuntimeDelegate (jersey-common, test scope) builds the Response. */
class LockBusyExceptionMapperTest {

    private final LockBusyExceptionMapper mapper = new LockBusyExceptionMapper();

    @Test
    void answersConflictWithRetryAfterInWholeSecondsRoundedUp() {
        Response response =
                mapper.toResponse(new LockBusyException("Lock 'a' is busy", "a", "memory", Duration.ofMillis(2100)));

        assertThat(response.getStatus()).isEqualTo(409);
        assertThat(response.getHeaderString(HttpHeaders.RETRY_AFTER)).isEqualTo("3");
        assertThat(response.getEntity()).isEqualTo("Lock 'a' is busy");
    }

    @Test
    void retryAfterIsAtLeastOneSecond() {
        Response response = mapper.toResponse(new LockBusyException("busy", "a", "memory", Duration.ofMillis(5)));

        assertThat(response.getHeaderString(HttpHeaders.RETRY_AFTER)).isEqualTo("1");
    }

    @Test
    void withoutAKnownRemainingLeaseThereIsNoRetryAfter() {
        Response response = mapper.toResponse(new LockBusyException("busy", "a", "memory", null));

        assertThat(response.getStatus()).isEqualTo(409);
        assertThat(response.getHeaderString(HttpHeaders.RETRY_AFTER)).isNull();
    }
}
