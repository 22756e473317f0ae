package dev.exclusive.jpa;

import dev.exclusive.Lock;
import dev.exclusive.LockConfigurationException;
import dev.exclusive.LockLostException;
import dev.exclusive.Locks;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.PersistenceException;
import jakarta.transaction.TransactionManager;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * Fenced writes: the database itself refuses the writes of a holder whose lease has ended once a newer holder of
 * the same lock has written, however late the old holder's transaction commits.
 *
 * <p>A lease can end while its holder still works (a pause longer than the ttl, a store outage, an operator's
 * force-release), and no check made by the holder can rule out that it ends between the check and the commit. A
 * fence can: every acquisition of a lock name gets a greater {@linkplain Lock#fence() fence}, and a write that
 * carries its fence can be refused by the database when a greater one has already written. {@link #claim} does that
 * inside the caller's own transaction, for a <em>resource</em> (a name for the data one lock protects, such as
 * {@code product:42}):
 *
 * <pre>{@code
 * @Exclusive(value = "purchase:product:{productId}", ttl = 10, maxWait = 3)
 * @Transactional
 * public Order purchase(long productId, long userId, int quantity) {
 *     fences.claim(em, "product:" + productId);   // a stale holder stops here; its transaction rolls back
 *     ...                                         // then read and write the product as usual
 * }
 * }</pre>
 *
 * <p><b>What a claim does</b>, in the caller's transaction, on the fence table (default {@value #DEFAULT_TABLE}, one
 * row per resource: {@code resource} primary key, {@code fence}):
 * <ol>
 * <li>Raise the resource's fence to the given one unless it is already higher, inserting the row if there is
 * none: one statement ({@code INSERT ... ON CONFLICT (resource) DO UPDATE SET fence = GREATEST(...)} on
 * PostgreSQL, {@code INSERT ... ON DUPLICATE KEY UPDATE} on MariaDB/MySQL, an {@code UPDATE} on H2, where a
 * missing row is first inserted with fence 0 in a transaction of its own). It write-locks the row until the
 * caller's transaction ends.</li>
 * <li>Read the row's fence ({@code SELECT ... FOR UPDATE}). Equal to the given one: the claim holds (the same hold
 * may claim as often as it likes). Greater: a newer holder has claimed the resource; the caller's transaction is
 * marked rollback-only and {@link StaleFenceException} is thrown.</li>
 * </ol>
 *
 * <p><b>What that guarantees.</b> Claims of one resource take effect in fence order: the row lock makes a second
 * claimer wait until the first one's transaction ends, and the greater of two fences always wins. So once a
 * transaction holding a claim with fence {@code f} has committed, no transaction that claims the resource with a
 * smaller fence commits, and a claim made before a newer holder's claim commits before that holder reads anything
 * it reads after its own claim. Claim <em>first</em> in the transaction, before reading the data the work depends
 * on; claim one resource per transaction, or several always in the same order, as with any row lock. A transaction
 * that rolls back leaves the fence where it was.
 *
 * <p><b>What it does not do.</b> It does not ask the lock store whether the lease is still live: a holder whose
 * lease ran out but that no newer holder has overtaken may still claim and commit (nobody else has written in
 * between; combine with {@code @Exclusive(onLost = ROLLBACK)} to refuse that too). Fences are compared as numbers,
 * and the table keeps them across restarts: claim a resource under one lock name in one store (fences of different
 * names or stores are not ordered against each other), and a store whose fences keep growing across restarts: the
 * file, Redis and jpa stores, whose fences are never below their clock in microseconds, not the memory store, whose
 * fences start again at 1 with the JVM. A caller who catches {@link StaleFenceException} cannot commit: the
 * transaction is rollback-only.
 *
 * <p>The entity manager is the caller's, joined to its transaction: a container-managed one inside a JTA
 * transaction, or an application-managed one with an active {@code EntityTransaction}, of the factory given to
 * {@link #builder}. The statements are native SQL: the persistence unit needs no entity for the table. The table
 * is created on first use with {@link Builder#createTable(boolean) createTable(true)}, or by hand with the DDL in
 * {@code DDL.md} (PostgreSQL below). Supported databases: PostgreSQL, MariaDB, MySQL 8, H2 2.x.
 *
 * <pre>
 * CREATE TABLE exclusive_fence (
 *     resource VARCHAR(255) COLLATE "C" NOT NULL PRIMARY KEY,
 *     fence    BIGINT NOT NULL
 * );
 * </pre>
 *
 * <p>Thread-safe; one instance per factory and table serves every caller.
 */
public final class Fences {

    /** The default fence table. */
    public static final String DEFAULT_TABLE = "exclusive_fence";

    /** The longest resource name, in characters: the length of the table's primary key column. */
    public static final int MAX_RESOURCE_LENGTH = 255;

    private static final Duration SETUP_TIMEOUT = Duration.ofSeconds(5);

    private final String table;
    private final boolean createTable;
    private final Transactions transactions;
    private final Object initLock = new Object();
    private volatile FenceTable fenceTable;

    private Fences(Builder builder) {
        this.table = builder.table;
        this.createTable = builder.createTable;
        this.transactions = new Transactions(
                builder.factory,
                null,
                "Fences on table '" + table + "'",
                "Fences",
                SETUP_TIMEOUT.toMillis(),
                builder.transactionManager);
    }

    /**
     * @param factory the factory of the entity managers that will claim: the fence table is read (and created) through
     *                it, and its transaction type tells how to mark a caller's transaction rollback-only
     * @return a builder of fences over it
     */
    public static Builder builder(EntityManagerFactory factory) {
        return new Builder(Objects.requireNonNull(factory, "factory"));
    }

    /** @return the fence table */
    public String table() {
        return table;
    }

    /**
     * Claims {@code resource} for the current hold: the fence of the innermost lock whose work this thread runs
     * ({@link Locks#current()}: inside {@code Lock.get(work)}, {@code Lock.block(wait, work)} or an
     * {@code @Exclusive} method), whether or not a newer holder has taken the lock since: the database decides. A
     * hold whose lease has run out by the handle's own estimate has no fence any more: its claim is refused with
     * {@link LockLostException}, the transaction marked rollback-only.
     *
     * @param em       the caller's entity manager, joined to the transaction whose writes the claim guards
     * @param resource the data the lock protects, 1 to {@value #MAX_RESOURCE_LENGTH} characters
     * @return the fence claimed
     * @throws StaleFenceException      if a greater fence has claimed the resource; the transaction is then
     *                                  rollback-only
     * @throws LockLostException        if the lease of the lock this thread runs under has run out by the handle's
     *                                  estimate; the transaction is then rollback-only
     * @throws IllegalStateException    if this thread runs no work under a lock, or {@code em} is not joined to a
     *                                  transaction
     * @throws IllegalArgumentException if {@code resource} is blank or too long
     * @throws LockConfigurationException if the table is missing (and not created) or the database not supported
     * @throws PersistenceException     if the database fails (as it would for any of the transaction's writes)
     */
    public long claim(EntityManager em, String resource) {
        Lock lock = Locks.current()
                .orElseThrow(() -> new IllegalStateException("No lock is held here: Fences.claim(em, \"" + resource
                        + "\") takes the fence of the lock whose work this thread runs (Lock.get(work),"
                        + " Lock.block(wait, work) or an @Exclusive method); pass a fence to claim(em, resource,"
                        + " fence) elsewhere"));
        OptionalLong fence = lock.fence();
        if (fence.isEmpty()) {
            if (lock.isExpired()) {
                // The hold's lease ran out by the handle's own estimate (a pause past the ttl): its fence is no
                // longer given out, so the claim cannot be put to the database; refuse it as lost, like a stale one.
                if (em != null && em.isJoinedToTransaction()) {
                    transactions.setRollbackOnly(em);
                }
                throw new LockLostException(
                        "Lock '" + lock.name() + "' in store '" + lock.storeName() + "' ran out before Fences.claim"
                                + " of '" + resource + "': this holder's writes must not commit; the transaction is"
                                + " marked rollback-only",
                        lock.name(),
                        lock.storeName(),
                        null);
            }
            throw new IllegalStateException(
                    "Lock '" + lock.name() + "' in store '" + lock.storeName() + "' has no fence: it is not held");
        }
        return claim(em, resource, fence.getAsLong(), lock);
    }

    /**
     * Claims {@code resource} for the hold whose fence is {@code fence} (from {@link Lock#fence()}, maybe passed on
     * from another thread or process).
     *
     * @param em       the caller's entity manager, joined to the transaction whose writes the claim guards
     * @param resource the data the lock protects, 1 to {@value #MAX_RESOURCE_LENGTH} characters
     * @param fence    the hold's fence, positive
     * @return {@code fence}
     * @throws StaleFenceException      if a greater fence has claimed the resource; the transaction is then
     *                                  rollback-only
     * @throws IllegalStateException    if {@code em} is not joined to a transaction
     * @throws IllegalArgumentException if {@code resource} is blank or too long, or {@code fence} is not positive
     * @throws LockConfigurationException if the table is missing (and not created) or the database not supported
     * @throws PersistenceException     if the database fails (as it would for any of the transaction's writes)
     */
    public long claim(EntityManager em, String resource, long fence) {
        return claim(em, resource, fence, null);
    }

    private long claim(EntityManager em, String resource, long fence, Lock lock) {
        Objects.requireNonNull(em, "em");
        checkResource(resource);
        if (fence <= 0) {
            throw new IllegalArgumentException("Fences: a fence is positive, got " + fence + " for '" + resource + "'");
        }
        if (!em.isJoinedToTransaction()) {
            throw new IllegalStateException("Fences.claim of '" + resource + "' needs the entity manager joined to"
                    + " the transaction whose writes it guards; begin one first (@Transactional, an EJB method,"
                    + " em.getTransaction().begin())");
        }
        long current = fenceTable().claim(em, resource, fence);
        if (current == fence) {
            return fence;
        }
        if (current < fence) {
            throw new PersistenceException("Fences: resource '" + resource + "' has fence " + current
                    + " in table '" + table + "' right after a claim with " + fence + "; the table does not behave"
                    + " as DDL.md describes");
        }
        transactions.setRollbackOnly(em);
        String lockName = lock == null ? null : lock.name();
        String storeName = lock == null ? null : lock.storeName();
        throw new StaleFenceException(
                "Resource '" + resource + "' has fence " + current + ", above this holder's " + fence
                        + (lock == null ? "" : " (lock '" + lockName + "' in store '" + storeName + "')")
                        + ": a newer holder of the lock has claimed it, so this holder's lease has ended and its"
                        + " writes must not commit; the transaction is marked rollback-only",
                lockName,
                storeName,
                resource,
                fence,
                current);
    }

    private static void checkResource(String resource) {
        if (resource == null || resource.isBlank()) {
            throw new IllegalArgumentException("Fences: a resource is a non-blank name, got '" + resource + "'");
        }
        if (resource.codePointCount(0, resource.length()) > MAX_RESOURCE_LENGTH) {
            throw new IllegalArgumentException("Fences: a resource has at most " + MAX_RESOURCE_LENGTH
                    + " characters, got " + resource.codePointCount(0, resource.length()) + ": '"
                    + resource.substring(0, 40) + "...'");
        }
    }

    /** Recognizes the database and checks (or creates) the table, once; retried on the next call if it failed. */
    private FenceTable fenceTable() {
        FenceTable current = fenceTable;
        if (current != null) {
            return current;
        }
        synchronized (initLock) {
            if (fenceTable == null) {
                String[] product = Setup.describe(transactions);
                Database database = Database.recognize(product[0], product[1]);
                if (database == null) {
                    throw new LockConfigurationException(
                            "Fences: database '" + product[0] + " " + product[1] + "' is not supported; supported: "
                                    + Setup.SUPPORTED,
                            null,
                            "table",
                            null);
                }
                FenceTable ready = new FenceTable(database, table, transactions);
                ready.prepare(createTable);
                fenceTable = ready;
            }
            return fenceTable;
        }
    }

    @Override
    public String toString() {
        FenceTable ready = fenceTable;
        return "Fences[table " + table + (ready == null ? "" : ", " + ready.database) + "]";
    }

    /** Settings of {@link Fences}; every one has a default. Not thread-safe. */
    public static final class Builder {

        private final EntityManagerFactory factory;
        private String table = DEFAULT_TABLE;
        private boolean createTable;
        private TransactionManager transactionManager;

        private Builder(EntityManagerFactory factory) {
            this.factory = factory;
        }

        /**
         * @param name the fence table, optionally schema-qualified ({@code app.exclusive_fence}); letters, digits
         *             and underscores (default {@value Fences#DEFAULT_TABLE})
         * @return this builder
         * @throws LockConfigurationException if it is not such a name
         */
        public Builder table(String name) {
            this.table = JpaLockStore.requireTableName(name, "Fences", null);
            return this;
        }

        /**
         * @param create whether the first claim creates the table when it is missing, in a transaction of its own
         *               (default false)
         * @return this builder
         */
        public Builder createTable(boolean create) {
            this.createTable = create;
            return this;
        }

        /**
         * @param manager the server's transaction manager, for a JTA persistence unit where none is found in JNDI
         *                ({@code java:comp/TransactionManager}, {@code java:appserver/TransactionManager},
         *                {@code java:/TransactionManager}): it marks a stale claimer's transaction rollback-only, and
         *                suspends it while the table is set up
         * @return this builder
         */
        public Builder transactionManager(TransactionManager manager) {
            this.transactionManager = manager;
            return this;
        }

        /** @return the fences; nothing is sent to the database until the first claim */
        public Fences build() {
            return new Fences(this);
        }
    }
}
