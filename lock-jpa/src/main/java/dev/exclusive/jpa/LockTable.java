package dev.exclusive.jpa;

import dev.exclusive.LockHolder;
import dev.exclusive.spi.Acquisition;
import dev.exclusive.spi.LockEntry;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceException;
import jakarta.persistence.Query;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The store's operations on its table, as {@link JpaLockStore} describes them: each runs its {@link Statements} in
 * transactions of its own, retries contention where that is safe, and reports every other failure as
 * {@link dev.exclusive.LockStoreUnavailableException}.
 */
final class LockTable {

    private static final int ATTEMPTS = 3;
    /** Above this many owners in doubt, the expired ones are dropped; above {@link #MAX_IN_DOUBT}, all of them. */
    private static final int SWEEP_IN_DOUBT = 1_024;

    private static final int MAX_IN_DOUBT = 16_384;

    private final Statements statements;
    private final Transactions transactions;
    private final String storeName;
    /**
     * Name and owner of each attempt that ended without an answer, with when a lease it may have taken ends
     * ({@code nanoTime}): that owner's next attempt on that name runs {@link Statements#acquireAfterLostAnswer}, which
     * waits for the lost attempt's transaction instead of skipping the row it may still hold. Bounded: past
     * {@link #MAX_IN_DOUBT} entries it is emptied, and those owners' next attempts skip as any other (they may then
     * hear busy, for an unknown time, about a hold their lost attempt took; their attempt after that renews it).
     */
    private final ConcurrentHashMap<String, Long> inDoubt = new ConcurrentHashMap<>();

    LockTable(Statements statements, Transactions transactions, String storeName) {
        this.statements = statements;
        this.transactions = transactions;
        this.storeName = storeName;
    }

    Database database() {
        return statements.database;
    }

    /** @return the channel releases notify on (PostgreSQL) */
    String channel() {
        return statements.channel;
    }

    /**
     * Contention is retried twice and then answered busy; it never reaches the caller. Any other failure leaves the
     * attempt in doubt (its statement may still commit on the server), which the owner's next attempt on the name
     * takes into account.
     */
    Acquisition acquire(String name, String owner, String holder, long ttlMillis) {
        String acquire = statements.acquire;
        if (statements.acquireAfterLostAnswer != null && wasInDoubt(name, owner)) {
            acquire = statements.acquireAfterLostAnswer;
        }
        for (int attempt = 1; ; attempt++) {
            try {
                return attempt(acquire, name, owner, holder, ttlMillis);
            } catch (PersistenceException e) {
                if (!Failures.isContention(e)) {
                    if (statements.acquireAfterLostAnswer != null) {
                        doubt(name, owner, ttlMillis);
                    }
                    throw unavailable(name, e);
                }
                if (attempt == ATTEMPTS) {
                    return Acquisition.Busy.unknown();
                }
            }
        }
    }

    private void doubt(String name, String owner, long ttlMillis) {
        if (inDoubt.size() >= SWEEP_IN_DOUBT) {
            long now = System.nanoTime();
            inDoubt.values().removeIf(until -> until - now < 0);
            if (inDoubt.size() >= MAX_IN_DOUBT) {
                inDoubt.clear();
            }
        }
        inDoubt.put(inDoubtKey(name, owner), System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ttlMillis));
    }

    /**
     * @return whether the owner's last attempt on the name ended without an answer, within a lease's ttl; forgets it
     */
    private boolean wasInDoubt(String name, String owner) {
        if (inDoubt.isEmpty()) {
            return false;
        }
        Long until = inDoubt.remove(inDoubtKey(name, owner));
        return until != null && until - System.nanoTime() > 0;
    }

    private static String inDoubtKey(String name, String owner) {
        return name + '\u0000' + owner;
    }

    /**
     * One statement where the database has one ({@link Statements#acquire}); else (MySQL) the take-over, then (only
     * when the row is neither live nor taken over) the first insert.
     */
    private Acquisition attempt(String acquire, String name, String owner, String holder, long ttlMillis) {
        if (acquire != null) {
            List<Object[]> rows;
            try {
                rows = transactions.rows(acquire, owner, holder, ttlMillis, name);
            } catch (PersistenceException e) {
                if (!Failures.isDuplicateKey(e)) {
                    throw e;
                }
                return new Acquisition.Busy(Duration.ZERO); // another inserter won just now (H2); its lease is fresh
            }
            if (rows.isEmpty()) {
                List<Object[]> live = transactions.rows(statements.readRemaining, name);
                return new Acquisition.Busy(
                        live.isEmpty() ? Duration.ZERO : Duration.ofMillis(Math.max(0, number(live.get(0)[0]))));
            }
            Object[] row = rows.get(0);
            if (number(row[0]) == 1) {
                return lease(row, 1);
            }
            // unknown: taken by another acquirer after the snapshot that saw the row free; not "0 ms left"
            return row[4] == null
                    ? Acquisition.Busy.unknown()
                    : new Acquisition.Busy(Duration.ofMillis(Math.max(0, number(row[4]))));
        }
        Acquisition taken = transactions.run(em -> {
            int updated = query(em, statements.takeOver)
                    .setParameter(1, owner)
                    .setParameter(2, holder)
                    .setParameter(3, ttlMillis)
                    .setParameter(4, name)
                    .executeUpdate();
            return updated == 1 ? readLease(em, name) : null;
        });
        if (taken != null) {
            return taken;
        }
        try {
            return transactions.run(em -> busyOrInsert(em, name, owner, holder, ttlMillis));
        } catch (PersistenceException e) {
            if (!Failures.isDuplicateKey(e)) {
                throw e;
            }
            return new Acquisition.Busy(Duration.ZERO); // another inserter won just now; its lease is fresh
        }
    }

    /** A live row answers busy with its remaining time; no row at all is inserted with the first fence. */
    private Acquisition busyOrInsert(EntityManager em, String name, String owner, String holder, long ttlMillis) {
        List<?> remaining =
                query(em, statements.readRemaining).setParameter(1, name).getResultList();
        if (!remaining.isEmpty()) {
            return new Acquisition.Busy(Duration.ofMillis(Math.max(0, number(remaining.get(0)))));
        }
        Query insert = query(em, statements.insert)
                .setParameter(1, name)
                .setParameter(2, owner)
                .setParameter(3, holder)
                .setParameter(4, ttlMillis);
        // 0 rows: the row exists but was freed since the take-over, or another inserter won; the caller retries
        return insert.executeUpdate() == 1 ? readLease(em, name) : new Acquisition.Busy(Duration.ZERO);
    }

    private Acquisition readLease(EntityManager em, String name) {
        return lease(
                (Object[]) query(em, statements.readLease).setParameter(1, name).getSingleResult(), 0);
    }

    /** @return the lease in {@code row}'s fence, acquired-at ms and expires-at ms, from column {@code from} on */
    private static Acquisition lease(Object[] row, int from) {
        return new Acquisition.Acquired(
                number(row[from]),
                Instant.ofEpochMilli(number(row[from + 1])),
                Instant.ofEpochMilli(number(row[from + 2])));
    }

    /** What a release or force-release did. */
    enum Freed {
        /** the lock was free, expired or (release) another owner's */
        NOT_HELD,
        /** the row is free; no notification was sent (nobody in another JVM waits, or the database has none) */
        FREED,
        /** the row is free, and its name was notified to the listeners of every JVM */
        NOTIFIED
    }

    /** @return what became of {@code owner}'s live lease */
    Freed release(String name, String owner) {
        if (statements.database.notifies()) {
            return change(name, () -> {
                List<Object[]> rows = transactions.rows(statements.release, name, owner);
                return rows.isEmpty() ? Freed.NOT_HELD : number(rows.get(0)[0]) == 1 ? Freed.NOTIFIED : Freed.FREED;
            });
        }
        return change(name, () -> transactions.update(statements.release, name, owner)) == 1
                ? Freed.FREED
                : Freed.NOT_HELD;
    }

    /**
     * A waiter's mark on a lock held from another JVM, so that its release notifies (see {@link Statements#mark}).
     *
     * @return whether the lock is live (marked, or held from this JVM); {@code false} when it is free or expired, or
     *         the table has no mark, and the waiter should try again at once
     */
    boolean mark(String name, long maxWaitMillis) {
        return statements.marks
                && change(
                                name,
                                () -> number(transactions.rows(statements.mark, name, maxWaitMillis)
                                        .get(0)[0]))
                        > 0;
    }

    /** @return whether the table takes waiters' marks, so that releases notify only when one waits */
    boolean marks() {
        return statements.marks;
    }

    /** What a release with a minimum hold did. */
    enum Floored {
        /** the lock was free, expired or another owner's */
        NOT_HELD,
        /** the floor had passed: the row is free; no notification was sent */
        RELEASED,
        /** the floor had passed: the row is free, and its name was notified to the listeners of every JVM */
        NOTIFIED,
        /** the floor is ahead: the lease now ends there, or already ended before */
        KEPT
    }

    /**
     * One statement decides and changes; where it cannot return the row (all but PostgreSQL), the row it just
     * wrote, still locked by this transaction, is read back to tell a freed lock from a kept one.
     */
    Floored release(String name, String owner, long minHoldMillis) {
        if (statements.database.returning()) {
            return change(name, () -> {
                List<Object[]> rows = transactions.rows(statements.releaseWithFloor, name, owner, minHoldMillis);
                if (rows.isEmpty()) {
                    return Floored.NOT_HELD;
                }
                Object[] row = rows.get(0);
                return number(row[0]) != 1 ? Floored.KEPT : number(row[1]) == 1 ? Floored.NOTIFIED : Floored.RELEASED;
            });
        }
        return change(
                name,
                () -> transactions.run(em -> {
                    Query release = query(em, statements.releaseWithFloor)
                            .setParameter(1, name)
                            .setParameter(2, owner)
                            .setParameter(3, minHoldMillis);
                    if (release.executeUpdate() == 0) {
                        return Floored.NOT_HELD;
                    }
                    Object freed = query(em, statements.readFreed)
                            .setParameter(1, name)
                            .getSingleResult();
                    return number(freed) == 1 ? Floored.RELEASED : Floored.KEPT;
                }));
    }

    /** @return what became of the live lease, whoever held it */
    Freed forceRelease(String name) {
        return forceRelease(name, statements.forceRelease, name);
    }

    /** Frees the hold of {@code owner} granted {@code fence}, if it is live; a later hold stays. */
    Freed releaseHold(String name, String owner, long fence) {
        return forceRelease(name, statements.releaseHold, name, owner, fence);
    }

    private Freed forceRelease(String name, String statement, Object... parameters) {
        if (statements.database.notifies()) {
            return change(
                                    name,
                                    () -> number(transactions.rows(statement, parameters)
                                            .get(0)[0]))
                            == 1
                    ? Freed.NOTIFIED
                    : Freed.NOT_HELD;
        }
        return change(name, () -> transactions.update(statement, parameters)) == 1 ? Freed.FREED : Freed.NOT_HELD;
    }

    /** @return whether {@code owner}'s live lease now ends {@code ttlMillis} from now */
    boolean extend(String name, String owner, long ttlMillis) {
        return change(name, () -> transactions.update(statements.extend, ttlMillis, name, owner)) == 1;
    }

    Optional<LockEntry> inspect(String name) {
        List<?> rows = read(
                name, em -> query(em, statements.inspect).setParameter(1, name).getResultList());
        return rows.isEmpty() ? Optional.empty() : Optional.of(entry((Object[]) rows.get(0)));
    }

    List<LockEntry> list(String prefix, int limit) {
        List<?> rows = read(
                null,
                em -> query(em, statements.list + limit)
                        .setParameter(1, Statements.prefixPattern(prefix))
                        .getResultList());
        List<LockEntry> entries = new ArrayList<>(rows.size());
        for (Object row : rows) {
            entries.add(entry((Object[]) row));
        }
        return entries;
    }

    /**
     * One statement where the database has one that locks only what it deletes; else (InnoDB, whose scan would lock
     * every row it reads) batches of names read without locking, each deleted by name in a transaction of its own.
     *
     * @return how many free or expired rows whose lease ended more than {@code retention} ago were deleted
     */
    int deleteUnused(Duration retention) {
        long before = -retention.toMillis();
        try {
            if (statements.cleanUp != null) {
                return transactions.run(em ->
                        query(em, statements.cleanUp).setParameter(1, before).executeUpdate());
            }
            int deleted = 0;
            while (true) {
                List<Object[]> candidates = transactions.rows(statements.cleanUpCandidates, before);
                if (candidates.isEmpty()) {
                    return deleted;
                }
                Object[] arguments = new Object[Statements.CLEANUP_BATCH + 1];
                arguments[0] = before;
                for (int i = 1; i < arguments.length; i++) {
                    arguments[i] = candidates.get(Math.min(i, candidates.size()) - 1)[0];
                }
                int batch = transactions.update(statements.cleanUpByName, arguments);
                deleted += batch;
                // a short batch was the last; none deleted means the rows read are in use again, and so would be the
                // same rows read again
                if (candidates.size() < Statements.CLEANUP_BATCH || batch == 0) {
                    return deleted;
                }
            }
        } catch (PersistenceException e) {
            if (Failures.isContention(e)) {
                return 0; // rows in use right now; the next run takes them
            }
            throw unavailable(null, e);
        }
    }

    void ping() {
        read(null, em -> query(em, statements.probe).getSingleResult());
    }

    /** A change that may meet contention: retried twice, then reported unavailable. */
    private <T> T change(String name, java.util.function.Supplier<T> work) {
        for (int attempt = 1; ; attempt++) {
            try {
                return work.get();
            } catch (PersistenceException e) {
                if (!Failures.isContention(e) || attempt == ATTEMPTS) {
                    throw unavailable(name, e);
                }
            }
        }
    }

    private <T> T read(String name, Transactions.Work<T> work) {
        try {
            return transactions.run(work);
        } catch (PersistenceException e) {
            throw unavailable(name, e);
        }
    }

    private Query query(EntityManager em, String statement) {
        return transactions.query(em, statement);
    }

    private RuntimeException unavailable(String name, PersistenceException e) {
        return Failures.unavailable(storeName, statements.database + " table " + statements.table, name, e);
    }

    private static LockEntry entry(Object[] row) {
        return new LockEntry(
                (String) row[0],
                (String) row[1],
                LockHolder.decode((String) row[2]),
                Instant.ofEpochMilli(number(row[3])),
                Instant.ofEpochMilli(number(row[4])),
                Duration.ofMillis(Math.max(1, number(row[5]))),
                number(row[6]));
    }

    private static long number(Object value) {
        return ((Number) value).longValue();
    }
}
