package dev.exclusive.jpa;

import dev.exclusive.LockStoreUnavailableException;
import jakarta.persistence.LockTimeoutException;
import jakarta.persistence.PersistenceException;
import jakarta.persistence.PessimisticLockException;
import java.sql.SQLException;

/**
 * What a persistence failure means to the store: contention (retry, never an outage), a unique-key race (busy), or
 * an unreachable database ({@link LockStoreUnavailableException}, the only kind a caller ever sees).
 */
final class Failures {

    private Failures() {}

    /** Deadlocks, serialization failures and lock-wait timeouts: worth another attempt, never an outage. */
    static boolean isContention(PersistenceException e) {
        if (e instanceof LockTimeoutException || e instanceof PessimisticLockException) {
            return true;
        }
        SQLException sql = sqlCause(e);
        if (sql == null) {
            return false;
        }
        String state = String.valueOf(sql.getSQLState());
        return state.startsWith("40") // 40001 serialization failure / deadlock, 40P01 PostgreSQL deadlock
                || state.equals("55P03") // PostgreSQL lock_not_available
                || sql.getErrorCode() == 1213
                || sql.getErrorCode() == 1205 // MariaDB/MySQL deadlock, lock wait
                || sql.getErrorCode() == 50200
                || sql.getErrorCode() == 90131; // H2 lock timeout, concurrent update
    }

    /** Another inserter won the first insert of a name. */
    static boolean isDuplicateKey(PersistenceException e) {
        SQLException sql = sqlCause(e);
        return sql != null && String.valueOf(sql.getSQLState()).startsWith("23");
    }

    /** @return the first {@link SQLException} among the causes of {@code e}, or {@code null} */
    static SQLException sqlCause(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql) {
                return sql;
            }
        }
        return null;
    }

    /**
     * @param storeName the store's name
     * @param where     what failed, such as {@code PostgreSQL table exclusive_lock}
     * @param name      the lock concerned, or {@code null}
     * @param e         the failure
     * @return {@code e} as the store reports it: naming the store, the table and the lock, with the database's own
     *         message and SQLState
     */
    static LockStoreUnavailableException unavailable(String storeName, String where, String name, RuntimeException e) {
        if (e instanceof LockStoreUnavailableException unavailable) {
            return unavailable;
        }
        SQLException sql = sqlCause(e);
        String reason = sql != null ? sql.getMessage() + " (SQLState " + sql.getSQLState() + ")" : String.valueOf(e);
        return new LockStoreUnavailableException(
                "Store '" + storeName + "': " + where + " failed" + (name == null ? "" : " for lock '" + name + "'")
                        + ": " + reason,
                name,
                storeName,
                e);
    }
}
