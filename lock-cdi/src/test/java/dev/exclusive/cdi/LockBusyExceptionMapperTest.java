package dev.exclusive.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.LockBusyException;
import dev.exclusive.cdi.internal.LockBusyExceptionMapper;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

/**
 * A busy lock over HTTP: 409 with RFC 9457 problem details naming the lock and nothing of the server's inside, and
 * Retry-After from the holder's remaining lease. Calls the mapper directly; Jersey's RuntimeDelegate (jersey-common,
 * test scope) builds the Response.
 */
class LockBusyExceptionMapperTest {

    private final LockBusyExceptionMapper mapper = new LockBusyExceptionMapper();

    private static LockBusyException busy(String lock, Duration retryAfter) {
        return new LockBusyException(
                "Lock '" + lock + "' in store 'shared' is held by someone else: @Exclusive on"
                        + " dev.exclusive.demo.jobs.UserImport#importUsers(Duration) gave up after one attempt",
                lock,
                "shared",
                retryAfter);
    }

    @Test
    void answersConflictWithProblemDetailsNamingOnlyTheLock() {
        Response response = mapper.toResponse(busy("imports:users", Duration.ofMillis(2100)));

        assertThat(response.getStatus()).isEqualTo(409);
        assertThat(response.getMediaType()).hasToString("application/problem+json");
        assertThat(response.getEntity())
                .isEqualTo("{\"type\":\"https://exclusive.dev/problems/lock-busy\",\"title\":\"Lock busy\","
                        + "\"status\":409,\"detail\":\"The lock 'imports:users' is held by another caller; try again"
                        + " in 3 s.\",\"lock\":\"imports:users\"}");
        assertThat((String) response.getEntity())
                .doesNotContain("dev.exclusive", "UserImport", "importUsers", "#", "shared", "Exception");
    }

    @Test
    void retryAfterIsTheRemainingLeaseInWholeSecondsRoundedUpAndAtLeastOne() {
        assertThat(mapper.toResponse(busy("a", Duration.ofMillis(2100))).getHeaderString(HttpHeaders.RETRY_AFTER))
                .isEqualTo("3");
        assertThat(mapper.toResponse(busy("a", Duration.ofSeconds(4))).getHeaderString(HttpHeaders.RETRY_AFTER))
                .isEqualTo("4");
        assertThat(mapper.toResponse(busy("a", Duration.ofMillis(5))).getHeaderString(HttpHeaders.RETRY_AFTER))
                .isEqualTo("1");
    }

    @Test
    void withoutAKnownRemainingLeaseThereIsNoRetryAfter() {
        Response response = mapper.toResponse(busy("a", null));

        assertThat(response.getStatus()).isEqualTo(409);
        assertThat(response.getHeaderString(HttpHeaders.RETRY_AFTER)).isNull();
        assertThat((String) response.getEntity())
                .contains("\"detail\":\"The lock 'a' is held by another caller; try" + " again later.\"");
    }

    @Test
    void theLockNameIsEscapedAsJson() {
        Response response = mapper.toResponse(busy("q\"uote\\back<tag>&", null));

        assertThat((String) response.getEntity())
                .contains("\"lock\":\"q\\\"uote\\\\back\\u003Ctag\\u003E\\u0026\"")
                .doesNotContain("<tag>");
    }

    @Test
    void theWholeExceptionIsLoggedOnceAtDebug() {
        try (LogRecorder log = new LogRecorder()) {
            mapper.toResponse(busy("imports:users", null));

            assertThat(log.records).hasSize(1);
            assertThat(log.records.get(0).getLevel()).isEqualTo(Level.FINE);
            assertThat(log.printed()).contains("UserImport#importUsers(Duration)");
        }
    }
}
