package dev.exclusive.jpa;

import java.time.Duration;
import org.hibernate.resource.jdbc.spi.StatementInspector;

/**
 * Hibernate's hook before each statement is prepared, used to make every statement wait, as over a slow network,
 * once a test turns it on. Counts the statements it delayed.
 */
final class SlowStatements implements StatementInspector {

    private volatile Duration delay = Duration.ZERO;
    private volatile int delayed;

    /** @param delay how long each following statement waits before it is sent */
    void delay(Duration delay) {
        this.delay = delay;
    }

    /** @return how many statements waited so far */
    int delayed() {
        return delayed;
    }

    @Override
    public String inspect(String sql) {
        if (!delay.isZero()) {
            delayed++;
            try {
                Thread.sleep(delay.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while simulating a slow network", e);
            }
        }
        return sql;
    }
}
