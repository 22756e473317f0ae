package dev.exclusive.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.exclusive.InvalidLockDurationException;
import dev.exclusive.InvalidLockNameException;
import dev.exclusive.LockLostException;
import dev.exclusive.LockStoreUnavailableException;
import dev.exclusive.cdi.internal.InvalidLockDurationExceptionMapper;
import dev.exclusive.cdi.internal.InvalidLockNameExceptionMapper;
import dev.exclusive.cdi.internal.LockLostExceptionMapper;
import dev.exclusive.cdi.internal.LockStoreUnavailableExceptionMapper;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.net.ConnectException;
import java.time.Duration;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

/**
 * The other lock exceptions that can reach Jakarta REST answer RFC 9457 problem details with nothing of the
 * server's inside: no class or method names, no store hosts, ports or URLs, no exception message. The full
 * exception is logged once, with its secrets masked.
 */
class LockExceptionMappersTest {

    private static final String[] FORBIDDEN = {
        "dev.exclusive", "Exception", "#", "cache.internal", "6379", "redis://", "s3cret", "Orders", "ship", "shared"
    };

    @Test
    void anInvalidLockNameIsABadRequest() {
        Response response = new InvalidLockNameExceptionMapper()
                .toResponse(new InvalidLockNameException(
                        "@Exclusive on com.acme.Orders#ship(Order): lock name template \"order:{order.id}\" has no"
                                + " text for {order.id}: order.id is null in this call",
                        null,
                        "shared"));

        assertThat(response.getStatus()).isEqualTo(400);
        assertThat(response.getMediaType()).hasToString("application/problem+json");
        assertThat((String) response.getEntity())
                .startsWith("{\"type\":\"https://exclusive.dev/problems/invalid-lock-name\",\"title\":\"Invalid lock"
                        + " name\",\"status\":400,\"detail\":\"")
                .doesNotContain(FORBIDDEN);
        assertThat(response.getHeaderString(HttpHeaders.RETRY_AFTER)).isNull();
    }

    @Test
    void anInvalidLockDurationIsABadRequest() {
        Response response = new InvalidLockDurationExceptionMapper()
                .toResponse(new InvalidLockDurationException(
                        "Lock 'orders:7' in store 'shared': ttl must be greater than 0, got PT0S",
                        "orders:7",
                        "shared",
                        Duration.ZERO));

        assertThat(response.getStatus()).isEqualTo(400);
        assertThat(response.getMediaType()).hasToString("application/problem+json");
        assertThat((String) response.getEntity())
                .startsWith("{\"type\":\"https://exclusive.dev/problems/invalid-lock-duration\",\"title\":\"Invalid"
                        + " lock duration\",\"status\":400,\"detail\":\"")
                .doesNotContain(FORBIDDEN);
    }

    @Test
    void anUnreachableStoreIsServiceUnavailableWithRetryAfterAndNoHostPortOrUrl() {
        Response response = new LockStoreUnavailableExceptionMapper().toResponse(unreachable());

        assertThat(response.getStatus()).isEqualTo(503);
        assertThat(response.getMediaType()).hasToString("application/problem+json");
        assertThat(response.getHeaderString(HttpHeaders.RETRY_AFTER)).isEqualTo("5");
        assertThat(response.getEntity())
                .isEqualTo("{\"type\":\"https://exclusive.dev/problems/lock-store-unavailable\",\"title\":\"Lock store"
                        + " unavailable\",\"status\":503,\"detail\":\"The lock store cannot be reached; try again in 5"
                        + " s.\"}");
    }

    @Test
    void anUnreachableStoreIsLoggedOnceAsAWarningWithTheWholeExceptionButNoSecret() {
        try (LogRecorder log = new LogRecorder()) {
            new LockStoreUnavailableExceptionMapper().toResponse(unreachable());

            assertThat(log.records).hasSize(1);
            assertThat(log.records.get(0).getLevel()).isEqualTo(Level.WARNING);
            assertThat(log.printed())
                    .contains("dev.exclusive.LockStoreUnavailableException: Redis store 'shared' could not acquire"
                            + " lock 'orders:7' on redis://***@cache.internal:6379")
                    .contains("Caused by: java.net.ConnectException: Connection refused")
                    .doesNotContain("s3cret");
        }
    }

    @Test
    void badRequestsAreLoggedOnceAtInfo() {
        try (LogRecorder log = new LogRecorder()) {
            new InvalidLockNameExceptionMapper().toResponse(new InvalidLockNameException("bad name", null, null));
            new InvalidLockDurationExceptionMapper()
                    .toResponse(new InvalidLockDurationException("bad ttl", "a", "shared", Duration.ZERO));

            assertThat(log.records).extracting(record -> record.getLevel()).containsExactly(Level.INFO, Level.INFO);
            assertThat(log.printed()).contains("bad name", "bad ttl");
        }
    }

    @Test
    void aLostLockIsServiceUnavailableNamingOnlyTheLockWithoutRetryAfter() {
        Response response = new LockLostExceptionMapper().toResponse(lost());

        assertThat(response.getStatus()).isEqualTo(503);
        assertThat(response.getMediaType()).hasToString("application/problem+json");
        assertThat(response.getHeaderString(HttpHeaders.RETRY_AFTER)).isNull();
        assertThat(response.getEntity())
                .isEqualTo("{\"type\":\"https://exclusive.dev/problems/lock-lost\",\"title\":\"Lock lost\","
                        + "\"status\":503,\"detail\":\"The lock 'reports:daily' was lost before this request's work was"
                        + " done, so its result was not kept; try again.\",\"lock\":\"reports:daily\"}");
        assertThat((String) response.getEntity()).doesNotContain(FORBIDDEN);
    }

    @Test
    void aLostLockIsLoggedOnceAsAWarningWithTheWholeException() {
        try (LogRecorder log = new LogRecorder()) {
            new LockLostExceptionMapper().toResponse(lost());

            assertThat(log.records).hasSize(1);
            assertThat(log.records.get(0).getLevel()).isEqualTo(Level.WARNING);
            assertThat(log.printed())
                    .contains("dev.exclusive.LockLostException: Lock 'reports:daily' in store 'shared' was lost while"
                            + " @Exclusive on com.acme.Orders#ship(Order) ran");
        }
    }

    private static LockLostException lost() {
        return new LockLostException(
                "Lock 'reports:daily' in store 'shared' was lost while @Exclusive on com.acme.Orders#ship(Order) ran"
                        + " (onLost = ROLLBACK): its transaction is marked rollback-only",
                "reports:daily",
                "shared",
                null);
    }

    private static LockStoreUnavailableException unreachable() {
        return new LockStoreUnavailableException(
                "Redis store 'shared' could not acquire lock 'orders:7' on redis://app:s3cret@cache.internal:6379:"
                        + " Failed to connect; check that Redis is running and reachable",
                "orders:7",
                "shared",
                new ConnectException("Connection refused"));
    }
}
