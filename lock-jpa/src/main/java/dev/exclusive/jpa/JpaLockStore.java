package dev.exclusive.jpa;

import dev.exclusive.AuditRecord;
import dev.exclusive.LockConfigurationException;
import dev.exclusive.LockHolder;
import dev.exclusive.LockStoreUnavailableException;
import dev.exclusive.internal.Owners;
import dev.exclusive.spi.Acquisition;
import dev.exclusive.spi.AuditLimits;
import dev.exclusive.spi.LocalSignals;
import dev.exclusive.spi.LockEntry;
import dev.exclusive.spi.LockStore;
import dev.exclusive.spi.NamedThreads;
import dev.exclusive.spi.WaitPolicy;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.transaction.TransactionManager;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Locks in a database table shared by every server connected to it, through Jakarta Persistence.
 *
 * <p><b>Table.</b> One row per lock name ever acquired (default table {@code exclusive_lock}, see
 * {@link LockRow} and the DDL below): {@code name} (primary key), {@code owner} ({@code NULL} while free),
 * {@code holder} ({@link LockHolder#encode()}), {@code acquired_at}, {@code expires_at} and {@code fence}. A
 * row is <em>live</em> while {@code owner IS NOT NULL AND expires_at > now}, where {@code now} is always the
 * database's clock.
 *
 * <p><b>Acquire</b> is one statement, which takes over a free or expired row, renews the caller's own live lease (a
 * retry of an attempt whose answer was lost: fence, acquisition time and holder are kept, only the expiry is new), or
 * inserts a name's first row, and answers the lease or, when another owner's lease is live, its remaining time:
 * <ul>
 * <li>PostgreSQL: {@code WITH free AS (SELECT ... WHERE name = ? AND <free or expired> FOR NO KEY UPDATE SKIP
 * LOCKED), own AS (SELECT ... WHERE name = ? AND <the caller's, live> FOR NO KEY UPDATE), taken AS (UPDATE ... SET
 * fence = GREATEST(fence + 1, now in µs), ... FROM (free UNION ALL own) ... RETURNING fence, ...), inserted AS
 * (INSERT ... WHERE NOT EXISTS (<the row>) ON CONFLICT (name) DO NOTHING RETURNING ...) SELECT <taken, inserted, or
 * the remaining time>}. A row live for another owner in the statement's snapshot is never locked, and answered with
 * its remaining time: the attempt writes nothing, and a waiter's attempts do not hold up the holder's release. A free
 * row that another transaction holds is being taken (or changed) by it: the attempt skips it and answers busy for an
 * unknown time at once, rather than wait for that commit and its flush, which would also hold up that acquirer's
 * release behind the attempt. The caller's own live row is waited for. An owner whose last attempt on the name ended
 * without an answer (its statement may still commit on the server) runs the same statement without {@code SKIP
 * LOCKED}, and with {@code ON CONFLICT DO UPDATE} for a first row that is free or its own, so that it does not hear
 * busy about a hold its lost attempt took: it waits for that transaction and renews the hold;</li>
 * <li>MariaDB: {@code INSERT ... ON DUPLICATE KEY UPDATE} with one {@code IF} per column, which MariaDB assigns
 * left to right (fence, acquired_at and holder read the row as it was, then owner is taken or kept, then expires_at
 * follows the owner), {@code RETURNING} the owner, the lease and the remaining time;</li>
 * <li>H2: {@code SELECT ... FROM FINAL TABLE (MERGE ... WHEN MATCHED AND <free, expired or own> THEN UPDATE ... WHEN
 * NOT MATCHED THEN INSERT ...)}; no row is busy, and the remaining time is then read by a second statement;</li>
 * <li>MySQL 8, which has no {@code RETURNING}: the earlier three steps in transactions of their own (take over with
 * {@code UPDATE} and read the lease back; else read the remaining time; else {@code INSERT IGNORE} the first
 * row).</li>
 * </ul>
 * <b>Why it is atomic:</b> the decision (free or expired?) and the change are one single-row statement, which the
 * database runs under the row's write lock: of two acquirers of one name, the second skips the row the first one
 * holds (PostgreSQL's {@code SKIP LOCKED}), or waits for the first one's commit and re-evaluates the condition on the
 * committed row (PostgreSQL's lock recheck of the latest row version, InnoDB's locking read of the duplicate row,
 * H2's row lock), and takes nothing. The primary key makes the first insert of a name succeed once. <b>Why
 * deadlock-free:</b> each statement writes at most one row in a transaction of its own. Should the database still
 * report a deadlock, a serialization failure or a lock-wait timeout, the attempt is retried twice and then answered
 * as busy; a unique-key race (H2's {@code MERGE}) is answered as busy. None of them reaches the caller.
 *
 * <p><b>Release</b>: {@code UPDATE ... SET owner = NULL, expires_at = now WHERE name = ? AND owner = ? AND live};
 * <b>force-release</b> the same without the owner, and of one listed hold ({@link #releaseHold}) the same with
 * {@code AND fence = ?}; <b>extend</b>: {@code UPDATE ... SET expires_at = now + ttl WHERE
 * name = ? AND owner = ? AND live}; <b>release with a minimum hold</b>, with {@code floor = acquired_at + minHold}:
 * {@code UPDATE ... SET owner = CASE WHEN floor <= now THEN NULL ELSE owner END, expires_at = CASE WHEN floor <= now
 * THEN now ELSE LEAST(expires_at, floor) END WHERE name = ? AND owner = ? AND live}, which frees the row past its
 * floor and otherwise ends the lease there (never later than it did), keeping owner and fence; whether it freed the
 * row is returned ({@code RETURNING} on PostgreSQL) or read back in the same transaction, whose write lock on the row
 * still holds (elsewhere). Each is one statement, so it is atomic for the same reason. A release that frees a row
 * wakes waiters in this JVM at once ({@link LocalSignals}, shared by every store on the same database URL and
 * table); one that keeps it until its floor wakes nobody.
 *
 * <p><b>Waking waiters in other JVMs.</b> On PostgreSQL a statement that frees a row also notifies it when someone in
 * another JVM waits: {@code WITH changed AS (UPDATE ... RETURNING name, waited_until) SELECT ..., (CASE WHEN
 * waited_until > now OR <the owner is not of this JVM> THEN pg_notify('<table>', name) END) FROM changed}, delivered
 * when it commits; a force-release always notifies. A waiter, once registered in this JVM, marks a lock that another
 * JVM holds (its owner id does not start with this JVM's prefix): {@code UPDATE ... SET waited_until =
 * GREATEST(waited_until, now + wait) WHERE name = ? AND live AND <held elsewhere> AND <not marked that long
 * already>}, in one statement that also answers whether the lock is still live. <b>Why no wake-up is lost:</b> the
 * mark and the release each write the row, so its lock orders them: a release after the mark reads it and notifies;
 * a mark after the release finds the row free and the waiter tries again at once. A lock held from this JVM is not
 * marked, since its release wakes the waiter here; one held by a handle restored from another JVM's token is
 * released with a notification, since its waiters did not mark it. Stores in one JVM that reach one table by
 * different URLs (so share no local signals) wake each other's waiters only at the next poll. Each store holds one
 * connection of its unit on {@code LISTEN} for the table, on one thread from its {@link Builder#threadFactory thread
 * factory}, started by the first wait; a notification wakes the longest waiter on that name in this JVM, except the
 * notifications of this store's own releases, which woke a waiter here already.
 * While it listens, a waiter does not park if the store saw any release since its last attempt began (so that a
 * release just before its registration is not missed), and polls only every 100 ms to 1 s, for expiries, which nobody
 * notifies. On the other databases, and while the listener is down, waiters elsewhere poll with a jittered backoff
 * ({@link #waitPolicy()}, bounded by their wait and by the holder's remaining time, which the database computed).
 *
 * <p><b>Clock.</b> Every expiry is decided by the database server's clock inside the statements
 * ({@code CURRENT_TIMESTAMP} on PostgreSQL and H2, {@code UTC_TIMESTAMP(6)} on MariaDB/MySQL, so the session time
 * zone does not matter). Times reach the JVM as epoch milliseconds and remaining times as milliseconds, both
 * computed by the database: a server whose clock is minutes off neither steals a live lock nor keeps a dead one.
 * The {@link Builder#clock(Clock) clock} of this JVM only paces the opportunistic cleanup.
 *
 * <p><b>Fences.</b> A new hold's fence is {@code GREATEST(fence + 1, now in µs)}, and a name's first row starts at
 * {@code now in µs}, the database clock in microseconds since the epoch, computed in the statement that takes the
 * row (as the Redis store does with its {@code TIME}). Within a row each new hold adds at least one. A row is never
 * deleted by acquire, release or expiry; {@link #cleanUp()} deletes rows whose lease ended more than
 * {@link Builder#retention retention} ago (default 7 days), and runs by itself at most every quarter of the
 * retention (between one minute and one hour), after an acquisition. A name acquired again after its row was
 * deleted starts above every fence it ever had: its last fence was at most the clock of its last acquisition (as
 * long as a name is acquired at most once per microsecond), and the new row starts from the clock at least the
 * retention later. So fences strictly increase per name for as long as the database clock does not step back by
 * more than the retention.
 *
 * <p><b>Transactions.</b> The store never joins the caller's transaction: each operation commits on its own
 * before returning, so an acquired lock is visible to every server before the caller's work runs. With a
 * {@code RESOURCE_LOCAL} unit on Hibernate (the recommended set-up, in Java SE and on a server), each statement runs in
 * autocommit on a connection from the unit's own connection source (Hibernate's {@code ConnectionProvider}: the
 * unit's data source, or its pool over the unit's JDBC URL): one round trip, where an {@code EntityTransaction} adds
 * a {@code BEGIN} and a {@code COMMIT}. Hand out connections in autocommit ({@code hibernate.connection.autocommit=
 * true} with Hibernate's pool; a data source does so by default); a connection that comes with autocommit off is
 * switched on for the statement and back, a round trip each way on MariaDB. With another provider the store uses
 * {@link EntityManager#getTransaction()}. With a JTA factory (one whose {@code getTransaction()} is refused, or
 * whose Hibernate transaction coordinator is JTA: Hibernate's would join the caller's transaction) it suspends the
 * caller's transaction through the {@link TransactionManager} (given to the builder, or looked up at
 * {@code java:comp/TransactionManager}, {@code java:appserver/TransactionManager}, {@code java:/TransactionManager}),
 * runs its own, and resumes the caller's. It begins its own with the store's timeout and then sets the thread's
 * timeout back to 0, the server's default, so the next container transaction on a pooled thread does not inherit it.
 *
 * <p><b>Durability.</b> What grants a lease (an acquisition, an extension) commits as the database commits by
 * default, once its log is on disk: a grant that a crash could undo would let a second holder in. On PostgreSQL what
 * only frees or hints commits without waiting for the flush ({@code synchronous_commit} off for that one transaction,
 * {@link Statements#NO_FLUSH_WAIT}): a release (with or without a minimum hold), a waiter's mark, and an attempt that
 * took nothing (which may still have locked the row). That saves one disk flush per acquire+release, and under
 * contention the flush that every other statement on the row waited for behind it. What it gives up: a database crash a
 * moment after such a commit (at most three times {@code wal_writer_delay}: 600 ms with its default of 200 ms) may undo
 * it. Why that is safe: the WAL is flushed in order, so the next acquisition's own flush makes every release before it
 * durable first; a release the crash undid leaves the lock held until its ttl by a holder that has let it go, never
 * held twice (should that handle acquire again meanwhile, it gets the undone hold back, with its fence and acquisition
 * time, as a retry would). A force-release keeps the flush, so that an operator's action outlives a crash as reported.
 * MariaDB, MySQL and H2 have no such setting per transaction: every statement waits for its flush as the server is
 * configured ({@code innodb_flush_log_at_trx_commit}).
 *
 * <p><b>Persistence unit.</b> The application owns it; it lists {@link LockRow} (with
 * {@code exclude-unlisted-classes}), is {@code RESOURCE_LOCAL} over a non-JTA data source (or JDBC URL), and
 * sets the driver's connect and socket timeouts so that a database that is down is reported within the store's
 * timeout (PostgreSQL {@code connectTimeout}, {@code socketTimeout}, {@code loginTimeout}; MariaDB
 * {@code connectTimeout}, {@code socketTimeout}). The store bounds each of its statements by its timeout (at least
 * one second, the JDBC granularity): on connections of the unit's own source (Hibernate), with the connection's
 * JDBC network timeout, which also ends a statement whose network falls silent when the URL sets no socket timeout,
 * and with a query timeout where the driver's is cheap or there is no network timeout (PostgreSQL's and MySQL
 * Connector/J's cost a timer task and a cancel connection per statement, MariaDB Connector/J's a {@code SET
 * STATEMENT} on the server, and are left out);
 * through Jakarta Persistence, with {@code jakarta.persistence.query.timeout}. Hibernate's bytecode enhancement is
 * not needed.
 *
 * <p><b>Failures.</b> Any other persistence or JDBC failure becomes a {@link LockStoreUnavailableException}
 * carrying the cause. An acquisition whose commit outcome is unknown leaves at most a lease that expires at its
 * ttl.
 *
 * <p><b>DDL</b> (PostgreSQL; MariaDB/MySQL and H2 in {@code DDL.md}; created on first use with
 * {@link Builder#createTable(boolean) createTable(true)}):
 * <pre>
 * CREATE TABLE exclusive_lock (
 *     name        VARCHAR(255) COLLATE "C" NOT NULL PRIMARY KEY,
 *     owner       VARCHAR(255),
 *     holder      VARCHAR(1000),
 *     acquired_at TIMESTAMP WITH TIME ZONE NOT NULL,
 *     expires_at  TIMESTAMP WITH TIME ZONE NOT NULL,
 *     fence       BIGINT NOT NULL,
 *     waited_until TIMESTAMP WITH TIME ZONE
 * ) WITH (fillfactor = 50);
 * </pre>
 * No index on {@code expires_at}: every acquire and release changes it, and without an index on it (and with room
 * left on each page) PostgreSQL updates the row in place (HOT), so the table and its index do not grow with churn
 * even without vacuum. The cleanup scans the table instead. {@code waited_until} (not indexed either) is where
 * waiters of other JVMs mark a lock; a table of an earlier version gets it on first use (see {@code DDL.md}). A table
 * of an earlier version with its {@code exclusive_lock_expires_at} index keeps working; a store with
 * {@code createTable(true)} drops the index on first use (logged at INFO), any other logs a WARNING naming the
 * {@code DROP INDEX}.
 *
 * <p>Thread-safe. Supported databases: PostgreSQL, MariaDB, MySQL 8, H2 2.x; another database, or a table whose
 * name column does not compare exactly (a case-insensitive, pad-space or nondeterministic collation, which would make
 * two names one row), fails its first operation with a {@link LockConfigurationException} naming the fix.
 */
public final class JpaLockStore implements LockStore {

    /** The default table name. */
    public static final String DEFAULT_TABLE = "exclusive_lock";

    private static final WaitPolicy LISTENING = WaitPolicy.backoff(Duration.ofMillis(100), Duration.ofSeconds(1));
    /** How long a waiter pauses when its attempt skipped a row that another acquirer was taking; see awaitRelease. */
    private static final Duration TAKING_PAUSE = Duration.ofMillis(2);

    /** A table name, optionally schema-qualified: it is put into statements as it is. */
    static final Pattern TABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

    /**
     * @return {@code name}, if it is a table name the statements can embed: letters, digits and underscores,
     *         optionally schema-qualified
     * @throws LockConfigurationException naming {@code who} and the value otherwise
     */
    static String requireTableName(String name, String who, String storeName) {
        if (name == null || !TABLE.matcher(name).matches()) {
            throw new LockConfigurationException(
                    who + ": table must be a table name of letters, digits and underscores, optionally"
                            + " schema-qualified, got '" + name + "'",
                    storeName,
                    "table",
                    null);
        }
        return name;
    }

    private final EntityManagerFactory factory;
    private final boolean ownsFactory;
    private final String storeName;
    private final String table;
    private final boolean createTable;
    private final AuditLimits auditLimits;
    /** Set up with the lock table's database on the first audit call; {@code null} until then. */
    private volatile AuditTable auditTable;

    private final WaitPolicy waitPolicy;
    private final Cleanup cleanup;
    private final Transactions transactions;
    private final ThreadFactory threads;
    /** Where the cleanup runs, off the acquisition that found it due. */
    private final ThreadFactory cleanupThreads;
    /** The cleanup running now, if any; {@link #close()} waits for it a little. */
    private volatile Thread cleaning;

    private final String localOwners;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Object initLock = new Object();
    private volatile LockTable lockTable;
    private volatile LocalSignals signals;
    private volatile ReleaseListener listener;
    /** Releases this store has seen: its own, and those the listener was notified of; for waiters' re-checks. */
    private final AtomicLong releases = new AtomicLong();
    /**
     * Per thread, its last acquisition attempt: {@link #releases} when it began, and 1 if it answered busy for an
     * unknown time (on PostgreSQL, mostly a free row that another acquirer held while it committed), else 0.
     */
    private final ThreadLocal<long[]> lastAttempt = ThreadLocal.withInitial(() -> new long[2]);

    /**
     * A store with default settings over a factory the application owns and closes.
     *
     * @param factory a factory whose persistence unit reaches the lock table
     */
    public JpaLockStore(EntityManagerFactory factory) {
        this(builder(factory));
    }

    private JpaLockStore(Builder builder) {
        this.storeName = builder.storeName;
        this.table = builder.table;
        this.createTable = builder.createTable;
        this.auditLimits = builder.auditLimits;
        this.waitPolicy = WaitPolicy.backoff(builder.minBackoff, builder.maxBackoff);
        this.threads = NamedThreads.of(builder.threads, "exclusive-jpa-listener-" + builder.storeName);
        this.cleanupThreads = NamedThreads.of(builder.threads, "exclusive-jpa-cleanup-" + builder.storeName);
        this.cleanup = new Cleanup(builder.retention, builder.clock);
        this.localOwners = builder.localOwners;
        this.ownsFactory = builder.factory == null;
        this.factory = ownsFactory
                ? Setup.openFactory(
                        builder.storeName, builder.persistenceUnit, builder.properties, builder.timeout.toMillis())
                : builder.factory;
        this.transactions =
                new Transactions(factory, storeName, builder.timeout.toMillis(), builder.transactionManager);
    }

    /**
     * A store over a persistence unit that the store opens and closes.
     *
     * @param persistenceUnit the persistence unit's name
     * @return a store with default settings
     * @throws LockConfigurationException if the unit cannot be found or opened
     */
    public static JpaLockStore create(String persistenceUnit) {
        return builder(persistenceUnit).build();
    }

    /**
     * @param factory a factory the application owns: the store never closes it
     * @return a builder of a store over it
     */
    public static Builder builder(EntityManagerFactory factory) {
        return new Builder(Objects.requireNonNull(factory, "factory"), null);
    }

    /**
     * @param persistenceUnit the name of a persistence unit the store opens at {@link Builder#build()} and closes
     *                        with {@link #close()}
     * @return a builder of a store over it
     */
    public static Builder builder(String persistenceUnit) {
        return new Builder(null, Objects.requireNonNull(persistenceUnit, "persistenceUnit"));
    }

    /** @return the table the store uses */
    public String table() {
        return table;
    }

    // ---------------------------------------------------------------- operations

    @Override
    public Acquisition tryAcquire(String name, String owner, LockHolder holder, Duration ttl) {
        long[] attempt = lastAttempt.get();
        attempt[0] = releases.get();
        Acquisition outcome = lockTable().acquire(name, owner, holder.encode(), ttl.toMillis());
        attempt[1] = outcome instanceof Acquisition.Busy busy && busy.remaining() == null ? 1 : 0;
        if (outcome.acquired()) {
            cleanup.runIfDue(this::cleanUpAside, table);
        }
        return outcome;
    }

    /**
     * The opportunistic cleanup on a thread of its own (at most one turn per retention interval, so at most one such
     * thread), so that it never runs on the lease just granted: the caller, and the handle's renewal, get the lease
     * only when tryAcquire returns, and a cleanup of many rows took seconds (7 s for 300,000 on MariaDB).
     */
    private void cleanUpAside() {
        Thread thread = cleanupThreads.newThread(() -> {
            try {
                Cleanup.logged(this::cleanUp, table);
            } finally {
                cleaning = null;
            }
        });
        if (thread == null) {
            return; // the container refuses threads now (shutting down): the next turn cleans up
        }
        cleaning = thread;
        thread.start();
    }

    @Override
    public boolean release(String name, String owner) {
        return freed(name, () -> lockTable().release(name, owner));
    }

    /**
     * Runs a release; when it freed the row, wakes a waiter of this JVM. While the listener listens, it is told first
     * to skip the notification this release may send, which would wake a second waiter here, and told again when the
     * release sent none. If a notification of another JVM's release arrived in between and was skipped in its place,
     * this release wakes the waiter that notification was for, whatever it freed itself.
     */
    private <T> T releasing(String name, Supplier<T> release, Predicate<T> freed, Predicate<T> notified) {
        LockTable ready = lockTable();
        ReleaseListener current = listener;
        boolean expected = current != null && current.listening();
        if (expected) {
            current.expect(name);
        }
        T outcome;
        try {
            outcome = release.get();
        } catch (RuntimeException e) {
            if (expected && !current.unexpect(name)) {
                released(name);
            }
            throw e;
        }
        boolean skippedAnother = expected && !notified.test(outcome) && !current.unexpect(name);
        if (freed.test(outcome) || skippedAnother) {
            released(name);
        }
        return outcome;
    }

    /** A release seen by this store (its own, or one notified): wakes a waiter of this JVM on {@code name}. */
    private void released(String name) {
        releases.incrementAndGet();
        signals.signal(name);
    }

    /** One statement on the database clock: free the row past its floor, or end its lease there. */
    @Override
    public boolean release(String name, String owner, Duration minHold) {
        long millis = minHold.toMillis();
        long floor = minHold.minusMillis(millis).isZero() ? millis : millis + 1;
        LockTable.Floored outcome = releasing(
                name,
                () -> lockTable().release(name, owner, floor),
                floored -> floored == LockTable.Floored.RELEASED || floored == LockTable.Floored.NOTIFIED,
                floored -> floored == LockTable.Floored.NOTIFIED);
        return outcome != LockTable.Floored.NOT_HELD;
    }

    @Override
    public boolean forceRelease(String name) {
        return freed(name, () -> lockTable().forceRelease(name));
    }

    @Override
    public boolean releaseHold(String name, String owner, long fence) {
        return freed(name, () -> lockTable().releaseHold(name, owner, fence));
    }

    /** Runs a release that answers what it freed, as {@link #releasing} does; whether it freed the row. */
    private boolean freed(String name, Supplier<LockTable.Freed> release) {
        return releasing(
                        name,
                        release,
                        freed -> freed != LockTable.Freed.NOT_HELD,
                        freed -> freed == LockTable.Freed.NOTIFIED)
                != LockTable.Freed.NOT_HELD;
    }

    @Override
    public boolean extend(String name, String owner, Duration ttl) {
        return lockTable().extend(name, owner, ttl.toMillis());
    }

    @Override
    public Optional<LockEntry> inspect(String name) {
        return lockTable().inspect(name);
    }

    @Override
    public List<LockEntry> list(String prefix, int limit) {
        if (limit <= 0) {
            throw new IllegalArgumentException("limit must be positive, got " + limit);
        }
        return lockTable().list(prefix, limit);
    }

    @Override
    public void audit(AuditRecord record) {
        auditTable().append(record);
    }

    @Override
    public List<AuditRecord> auditTrail(int limit) {
        return auditTable().read(limit);
    }

    /** The audit table, checked (or created) once, after the lock table told which database this is. */
    private AuditTable auditTable() {
        AuditTable current = auditTable;
        if (current == null) {
            LockTable locks = lockTable();
            synchronized (initLock) {
                current = auditTable;
                if (current == null) {
                    current = new AuditTable(locks.database(), table, transactions, storeName, auditLimits);
                    current.prepare(createTable);
                    auditTable = current;
                }
            }
        }
        return current;
    }

    /**
     * Deletes the rows of names whose last lease ended more than the retention ago (free or expired rows only;
     * a live row is never touched). Runs by itself after acquisitions at most every quarter of the retention;
     * call it to clean up on a schedule of your own. On MariaDB and MySQL, whose {@code DELETE} would lock every row it
     * reads, it reads the rows to delete without locking, 100 at a time, and deletes those by name.
     *
     * @return how many rows were deleted
     * @throws LockStoreUnavailableException if the database cannot be reached
     */
    public int cleanUp() {
        return lockTable().deleteUnused(cleanup.retention());
    }

    /**
     * The builder's backoff; while the release listener listens (PostgreSQL), a backoff from 100 ms to 1 s, since
     * polling is then only the fallback for a lost notification or an expiry.
     */
    @Override
    public WaitPolicy waitPolicy() {
        ReleaseListener current = listener;
        return current != null && current.listening() ? LISTENING : waitPolicy;
    }

    /**
     * Blocks until a release in this JVM, or (on PostgreSQL, while the listener listens) a release anywhere, wakes
     * this thread. A waiter returns at once if this store saw any release since this thread's last attempt began, so
     * that a release between the attempt and the registration is not missed. With the listener, once registered, it
     * marks a lock held from another JVM ({@link LockTable#mark}), so that its release notifies, and
     * returns at once if the lock is free by then. A release that read the row before the mark freed it, so the mark
     * finds it free; one after the mark reads the mark (the row lock orders them); so none is missed. Except when this
     * thread's last attempt skipped a free row that another transaction held (answered busy for an unknown time):
     * that is most likely an acquirer still committing, and the waiter pauses for 2 ms, or until a release, before it
     * returns, so that its tries do not spin until that commit is done.
     */
    @Override
    public void awaitRelease(String name, Duration maxWait) throws InterruptedException {
        lockTable();
        long[] attempt = lastAttempt.get();
        long seen = attempt[0];
        ReleaseListener current = listener;
        if (current == null) {
            signals.await(name, maxWait, () -> releases.get() == seen);
            return;
        }
        current.start();
        if (!current.listening()) {
            signals.await(name, maxWait, () -> releases.get() == seen);
            return;
        }
        LockTable ready = lockTable;
        if (!ready.marks()) {
            signals.await(name, maxWait, () -> releases.get() == seen);
            return;
        }
        boolean[] notLive = new boolean[1];
        signals.await(name, maxWait, () -> {
            if (releases.get() != seen) {
                return false;
            }
            if (marked(ready, name, maxWait)) {
                return true;
            }
            notLive[0] = true;
            return false;
        });
        if (notLive[0] && attempt[1] == 1) {
            // The attempt skipped a free row that another transaction held, and the row is still not live: most
            // likely an acquirer whose commit waits for its flush. Trying again at once would spin until it is
            // done; a pause, which any release seen here ends, paces the tries to it.
            signals.await(
                    name, TAKING_PAUSE.compareTo(maxWait) < 0 ? TAKING_PAUSE : maxWait, () -> releases.get() == seen);
        }
    }

    /** @return whether the lock is still busy, now marked if another JVM holds it; {@code false} if unknown */
    private static boolean marked(LockTable table, String name, Duration maxWait) {
        try {
            return table.mark(name, maxWait.toMillis() + 1);
        } catch (LockStoreUnavailableException e) {
            return false; // let the caller try again at once: its next call reports the outage
        }
    }

    /** @return the release listener on PostgreSQL once the store is set up, else {@code null}; for tests */
    ReleaseListener listener() {
        return listener;
    }

    @Override
    public void ping() {
        lockTable().ping();
    }

    /** Closes the factory if the store opened it; a factory the application gave stays open. Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            synchronized (initLock) {
                if (listener != null) {
                    listener.close();
                }
            }
            transactions.close();
            Thread running = cleaning;
            if (running != null) { // its statements now fail at once: it ends, and must not outlive the store
                try {
                    running.join(2_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (ownsFactory && factory.isOpen()) {
                factory.close();
            }
        }
    }

    @Override
    public String toString() {
        LockTable ready = lockTable;
        return "JpaLockStore[" + storeName + ", table " + table + (ready == null ? "" : ", " + ready.database()) + "]";
    }

    /** Recognizes the database and checks (or creates) the table, once; retried on the next call if it failed. */
    private LockTable lockTable() {
        LockTable current = lockTable;
        if (current != null) {
            return current;
        }
        synchronized (initLock) {
            if (lockTable == null) {
                Setup.Ready ready = new Setup(transactions, storeName, table, localOwners).run(createTable, factory);
                signals = ready.signals();
                Connections connections = transactions.connections();
                if (ready.table().database().notifies() && connections != null && !closed.get()) {
                    LocalSignals woken = signals;
                    listener = new ReleaseListener(
                            connections,
                            ready.table().channel(),
                            storeName,
                            threads,
                            this::released,
                            () -> {
                                releases.incrementAndGet();
                                woken.signalAll();
                            },
                            () -> woken.waitingNames() > 0);
                }
                lockTable = ready.table();
            }
            return lockTable;
        }
    }

    /** Settings of a {@link JpaLockStore}; every one has a default. Not thread-safe. */
    public static final class Builder {

        private final EntityManagerFactory factory;
        private final String persistenceUnit;
        private final Map<String, Object> properties = new HashMap<>();
        private String storeName = "jpa";
        private String table = DEFAULT_TABLE;
        private boolean createTable;
        private AuditLimits auditLimits = AuditLimits.DEFAULT;
        private Duration retention = Duration.ofDays(7);
        private Duration minBackoff = Duration.ofMillis(5);
        private Duration maxBackoff = Duration.ofMillis(100);
        private Duration timeout = Duration.ofSeconds(5);
        private Clock clock = Clock.systemUTC();
        private TransactionManager transactionManager;
        private ThreadFactory threads;
        private String localOwners = Owners.jvmPrefix();

        private Builder(EntityManagerFactory factory, String persistenceUnit) {
            this.factory = factory;
            this.persistenceUnit = persistenceUnit;
        }

        /**
         * @param name the configured store's name, for messages (default {@code jpa})
         * @return this builder
         */
        public Builder storeName(String name) {
            this.storeName = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * @param name the lock table, optionally schema-qualified ({@code locks.exclusive_lock}); letters, digits and
         *             underscores (default {@value #DEFAULT_TABLE})
         * @return this builder
         * @throws LockConfigurationException if it is not such a name
         */
        public Builder table(String name) {
            this.table = requireTableName(name, "Store '" + storeName + "'", storeName);
            return this;
        }

        /**
         * @param create whether to create the table (and its index) and the audit table on first use when missing
         *               (default false)
         * @return this builder
         */
        public Builder createTable(boolean create) {
            this.createTable = create;
            return this;
        }

        /**
         * @param limits how many and how old records the audit table keeps (default {@link AuditLimits#DEFAULT})
         * @return this builder
         */
        public Builder auditLimits(AuditLimits limits) {
            this.auditLimits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /**
         * @param retention how long after its last lease ended a name's row is kept before the cleanup deletes it;
         *                  fences keep increasing after that too (see the class javadoc); positive (default 7 days)
         * @return this builder
         */
        public Builder retention(Duration retention) {
            this.retention = positive("retention", retention);
            return this;
        }

        /**
         * @param min the first pause of a waiter polling for a release made in another JVM (default 5 ms)
         * @param max the longest pause (default 100 ms)
         * @return this builder
         */
        public Builder backoff(Duration min, Duration max) {
            if (min == null || max == null || min.isNegative() || min.isZero() || max.compareTo(min) < 0) {
                throw new LockConfigurationException(
                        "Store '" + storeName + "': backoff needs 0 < min-backoff <= " + "max-backoff, got " + min
                                + " and " + max,
                        storeName,
                        "min-backoff",
                        null);
            }
            this.minBackoff = min;
            this.maxBackoff = max;
            return this;
        }

        /**
         * @param timeout the longest a statement may run before the store reports the database unavailable; at least
         *                one second is used (default 5 s)
         * @return this builder
         */
        public Builder timeout(Duration timeout) {
            this.timeout = positive("timeout", timeout);
            return this;
        }

        private Duration positive(String key, Duration value) {
            if (value == null || value.isNegative() || value.isZero()) {
                throw new LockConfigurationException(
                        "Store '" + storeName + "': " + key + " must be positive, got " + value, storeName, key, null);
            }
            return value;
        }

        /**
         * @param clock this JVM's clock; it only paces the opportunistic cleanup and never decides an expiry
         * @return this builder
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * @param properties persistence unit properties that override {@code persistence.xml}, for a store that opens
         *                   its unit by name
         * @return this builder
         */
        public Builder properties(Map<String, ?> properties) {
            this.properties.putAll(properties);
            return this;
        }

        /**
         * @param manager the server's transaction manager, for a JTA persistence unit
         * @return this builder
         */
        public Builder transactionManager(TransactionManager manager) {
            this.transactionManager = manager;
            return this;
        }

        /**
         * @param threads where the store's one background thread (the release listener on PostgreSQL, named
         *                {@code exclusive-jpa-listener-<store>}, daemon) comes from: inside a Jakarta EE server, the
         *                container's {@code ManagedThreadFactory}; {@code null} (the default) for plain daemon threads
         * @return this builder
         */
        public Builder threadFactory(ThreadFactory threads) {
            this.threads = threads;
            return this;
        }

        /**
         * @param prefix what the owners this store counts as its JVM's start with, in place of this JVM's; for tests
         *               that play two JVMs in one
         * @return this builder
         */
        Builder localOwners(String prefix) {
            this.localOwners = Objects.requireNonNull(prefix, "prefix");
            return this;
        }

        /**
         * @return the store; nothing is sent to the database until its first operation
         * @throws LockConfigurationException if the persistence unit cannot be opened
         */
        public JpaLockStore build() {
            return new JpaLockStore(this);
        }
    }
}
