package dev.exclusive.jpa;

/**
 * The store's statements for one table on one database, built once. Parameters are JPA ordinal parameters
 * ({@code ?1}); the table name is checked by {@link JpaLockStore.Builder#table} before it gets here, and the prefix
 * of this JVM's owners is URL-safe Base64, so both are put into the statements as they are.
 */
final class Statements {

    /**
     * PostgreSQL: the statement's transaction commits without waiting for its WAL to reach the disk. Only for what
     * frees or hints, never for what grants: a release, a waiter's mark, an attempt that took nothing (which may have
     * locked the row). Why a release lost by a crash is safe: its commit record comes before every later commit in
     * the WAL, so the next acquisition's flush makes it durable first; lost with the crash, the lock stays held until
     * its ttl, and nobody else holds it meanwhile. See {@link JpaLockStore}, "Durability".
     */
    static final String NO_FLUSH_WAIT = "set_config('synchronous_commit', 'off', true)";

    /** What {@link #localOwners} may hold, since it is put into statements as a literal. */
    private static final java.util.regex.Pattern OWNER_PREFIX = java.util.regex.Pattern.compile("[A-Za-z0-9_-]+");

    final Database database;
    final String table;
    /** What the owners of locks taken in this JVM start with. */
    final String localOwners;
    /**
     * Whether the table has {@code waited_until} (PostgreSQL), where waiters of other JVMs mark a lock, so that a
     * release notifies only when one of them waits; without it (a table of an earlier version that could not be
     * changed, or another database) every release notifies, as before.
     */
    final boolean marks;

    /**
     * The whole acquisition in one statement, where the database has one (all but MySQL): takes over a free or expired
     * row, renews the owner's own, or inserts a name's first row; parameters as {@link #takeOver}. It answers one row
     * {@code (took, fence, acquired-at ms, expires-at ms, remaining ms)}: {@code took} 1 is the lease, 0 a live row of
     * another owner with its remaining time, or {@code NULL} for it when unknown (PostgreSQL: the row was free in the
     * statement's snapshot but another transaction held it, most likely an acquirer taking it, or the cleanup deleting
     * it; or the caller's own row changed by another transaction meanwhile). No row (H2 when busy; PostgreSQL when
     * another inserter of the name won just now): ask {@link #readRemaining}. On PostgreSQL a sixth column is the
     * {@link #NO_FLUSH_WAIT} of an attempt that took nothing. {@code null} on MySQL.
     */
    final String acquire;
    /**
     * PostgreSQL: {@link #acquire} for an owner whose last attempt on the name ended without an answer (its
     * statement may still be committing on the server): it waits for a transaction that holds the row instead of
     * skipping it, and takes the row if it is free or the owner's own once that transaction ends, so that the owner
     * does not hear busy about a hold that its lost attempt took. {@code null} elsewhere, where {@link #acquire}
     * always waits.
     */
    final String acquireAfterLostAnswer;
    /** The PostgreSQL channel that releases notify with the freed name, and that waiters listen on. */
    final String channel;
    /** Takes over an existing free or expired row, or renews the owner's own: owner, holder, ttl ms, name. */
    final String takeOver;
    /** Inserts the first row of a name, its fence the database clock in microseconds: name, owner, holder, ttl ms. */
    final String insert;
    /** The lease just granted: fence, acquired-at and expires-at ms of name. */
    final String readLease;
    /** The remaining ms of a live lease on name. */
    final String readRemaining;

    /**
     * Frees the owner's live lease: name, owner. On PostgreSQL a query answering one row {@code (notified, ...)} per
     * row it freed (none or one), which notifies the freed name on {@link #channel} in the same statement when a
     * waiter of another JVM marked it ({@link #mark}) or the owner is not one of this JVM's (a handle restored from
     * another JVM's token, whose waiters did not mark), and commits without waiting for the flush
     * ({@link #NO_FLUSH_WAIT}); elsewhere an update.
     */
    final String release;
    /**
     * Frees the owner's live lease once its acquisition plus the minimum hold (the floor) has passed, or else ends
     * it at the floor unless it ends sooner: name, owner, minimum hold ms. On PostgreSQL it returns 1 if it freed
     * the row, 0 if it kept it, and commits without waiting for the flush ({@link #NO_FLUSH_WAIT}).
     */
    final String releaseWithFloor;
    /** Whether the row of name is free (1) or held (0): read after {@link #releaseWithFloor} without RETURNING. */
    final String readFreed;

    /**
     * A waiter's mark on a lock held from another JVM (only where {@link #marks}): name, the longest wait in ms. It
     * sets {@code waited_until} to at least now plus the wait unless it is that late already, and answers 1 while the
     * lock is live (marked, marked late enough already, or held from this JVM, whose release wakes the waiter
     * itself), 0 when it is free or expired; it commits without waiting for the flush ({@link #NO_FLUSH_WAIT}).
     * {@code null} elsewhere.
     */
    final String mark;
    /** A query that fails when the table has no {@code waited_until} (PostgreSQL; {@code null} elsewhere). */
    final String markProbe;
    /** Adds {@code waited_until} to a table of an earlier version (PostgreSQL; {@code null} elsewhere). */
    final String addMarkColumn;

    /** Frees a live lease whoever holds it: name; notifies whatever the marks, since any JVM may be waiting. */
    final String forceRelease;
    /** Frees one listed hold, a live lease: name, owner, fence; notifies as {@link #forceRelease} does. */
    final String releaseHold;
    /** ttl ms, name, owner. */
    final String extend;

    final String inspect;
    /** pattern (escape character {@code !}); the limit is appended. */
    final String list;
    /** retention ms (negative): deletes what the cleanup deletes, where one statement does ({@code null} elsewhere). */
    final String cleanUp;
    /**
     * Where the cleanup deletes by name ({@link Database#cleansByName()}): retention ms (negative); up to
     * {@link #CLEANUP_BATCH} names of rows to delete, read without locking ({@code null} elsewhere).
     */
    final String cleanUpCandidates;
    /**
     * Where the cleanup deletes by name: retention ms (negative), then {@link #CLEANUP_BATCH} names (repeat one to
     * fill the list); deletes those of them that are still unused past the retention, locking only their rows
     * ({@code null} elsewhere).
     */
    final String cleanUpByName;

    /** How many rows one statement of a cleanup by name reads or deletes. */
    static final int CLEANUP_BATCH = 100;
    /** A cheap query that fails when the table is missing. */
    final String probe;

    /**
     * @param localOwners what the owners of this JVM start with ({@link dev.exclusive.internal.Owners#jvmPrefix()})
     * @param marks       whether the table has {@code waited_until}; ignored but on PostgreSQL
     */
    Statements(Database database, String table, String localOwners, boolean marks) {
        if (!OWNER_PREFIX.matcher(localOwners).matches()) {
            throw new IllegalArgumentException("owner prefix must be URL-safe Base64, got '" + localOwners + "'");
        }
        this.database = database;
        this.table = table;
        this.localOwners = localOwners;
        this.marks = marks && database.notifies();
        String now = database.now();
        String entry = "name, owner, holder, " + database.epochMillis("acquired_at") + ", "
                + database.epochMillis("expires_at") + ", " + database.remainingMillis("expires_at") + ", fence";
        String live = "owner IS NOT NULL AND expires_at > " + now;
        // The caller's own live lease (a retried attempt whose answer was lost) is taken over too, keeping its
        // fence, acquisition time and holder. MariaDB and MySQL assign left to right, each assignment seeing the
        // ones before it, so owner and expires_at, which "mine" reads, are assigned last.
        String mine = "(owner = ?1 AND expires_at > " + now + ")";
        // Above every fence of the row, and at least the database clock in microseconds, where a first row starts:
        // so a name whose row the cleanup deleted still gets greater fences than it ever had.
        String nextFence = "GREATEST(fence + 1, " + database.nowMicros() + ")";
        String takeOver =
                "UPDATE " + table + " SET fence = CASE WHEN " + mine + " THEN fence ELSE " + nextFence + " END,"
                        + " acquired_at = CASE WHEN " + mine + " THEN acquired_at ELSE " + now + " END,"
                        + " holder = CASE WHEN " + mine + " THEN holder ELSE ?2 END,"
                        + " owner = ?1, expires_at = " + database.plusMillis("?3")
                        + " WHERE name = ?4 AND (owner IS NULL OR owner = ?1 OR expires_at <= " + now + ")";
        this.takeOver = takeOver;
        this.channel = channel(table);
        this.acquire = acquire(database, table, mine, nextFence);
        this.acquireAfterLostAnswer =
                database == Database.POSTGRESQL ? postgresAcquire(database, table, mine, false) : null;
        this.insert = database.insertFirstRow(
                table, "(?1, ?2, ?3, " + now + ", " + database.plusMillis("?4") + ", " + database.nowMicros() + ")");
        this.readLease = "SELECT fence, " + database.epochMillis("acquired_at") + ", "
                + database.epochMillis("expires_at") + " FROM " + table + " WHERE name = ?1";
        this.readRemaining =
                "SELECT " + database.remainingMillis("expires_at") + " FROM " + table + " WHERE name = ?1 AND " + live;
        String release = "UPDATE " + table + " SET owner = NULL, expires_at = " + now
                + " WHERE name = ?1 AND owner = ?2 AND " + live;
        // Read on the row as the release left it: a mark that committed first is there (the release waited for its
        // row lock), and a mark after it finds the row free and marks nothing.
        String waited =
                this.marks ? "(waited_until > " + now + " OR NOT starts_with(?2, '" + localOwners + "'))" : "TRUE";
        // All in the update's RETURNING, which reads the row as the update left it and runs once per row freed
        this.release = database.notifies()
                ? release + " RETURNING CASE WHEN " + waited + " THEN 1 ELSE 0 END, (CASE WHEN " + waited
                        + " THEN pg_notify('" + channel + "', name) END) IS NULL, " + NO_FLUSH_WAIT
                : release;
        // One statement decides and changes, as release does; both CASEs see the row as it was (MariaDB and MySQL
        // assign left to right, but expires_at's CASE reads acquired_at and expires_at, never owner).
        String floor = database.plusMillis("acquired_at", "?3");
        String passed = floor + " <= " + now;
        String releaseWithFloor = "UPDATE " + table + " SET owner = CASE WHEN " + passed + " THEN NULL ELSE owner END,"
                + " expires_at = CASE WHEN " + passed + " THEN " + now + " ELSE LEAST(expires_at, " + floor + ") END"
                + " WHERE name = ?1 AND owner = ?2 AND " + live;
        // PostgreSQL: the freed flag (owner as the update left it), and a notification only when the row was freed
        // (CASE evaluates lazily)
        this.releaseWithFloor = database.notifies()
                ? releaseWithFloor + " RETURNING CASE WHEN owner IS NULL THEN 1 ELSE 0 END, CASE WHEN owner IS NULL"
                        + " AND " + waited + " THEN 1 ELSE 0 END, (CASE WHEN owner IS NULL AND " + waited
                        + " THEN pg_notify('" + channel + "', name) END) IS NULL, " + NO_FLUSH_WAIT
                : releaseWithFloor;
        this.readFreed = "SELECT CASE WHEN owner IS NULL THEN 1 ELSE 0 END FROM " + table + " WHERE name = ?1";
        String forceRelease = "UPDATE " + table + " SET owner = NULL, expires_at = " + now + " WHERE name = ?1 AND ";
        this.forceRelease = notifying(forceRelease + live);
        this.releaseHold = notifying(forceRelease + "owner = ?2 AND fence = ?3 AND " + live);
        if (this.marks) {
            // A mark late enough already is not written again: the waiter is covered by it, since a release that
            // follows it reads it. Held from this JVM, the release wakes the waiter here without a notification.
            String until = database.plusMillis("?2");
            String local = "starts_with(owner, '" + localOwners + "')";
            this.mark = "WITH marked AS (UPDATE " + table + " SET waited_until = GREATEST(waited_until, " + until
                    + ") WHERE name = ?1 AND " + live + " AND NOT " + local + " AND (waited_until IS NULL OR"
                    + " waited_until < " + until + ") RETURNING 1) SELECT (SELECT COUNT(*) FROM marked) + (SELECT"
                    + " COUNT(*) FROM " + table + " WHERE name = ?1 AND " + live + " AND (" + local
                    + " OR waited_until >= " + until + ")), " + NO_FLUSH_WAIT;
        } else {
            this.mark = null;
        }
        // the catalog, not the column: a missing column would fail the query and have the provider log an error
        this.markProbe = database.notifies()
                ? "SELECT COUNT(*) FROM pg_attribute WHERE attrelid = CAST('" + table
                        + "' AS regclass) AND attname = 'waited_until' AND NOT attisdropped"
                : null;
        this.addMarkColumn = database.notifies()
                ? "ALTER TABLE " + table + " ADD COLUMN IF NOT EXISTS waited_until TIMESTAMP WITH TIME ZONE"
                : null;
        this.extend = "UPDATE " + table + " SET expires_at = " + database.plusMillis("?1")
                + " WHERE name = ?2 AND owner = ?3 AND " + live;
        this.inspect = "SELECT " + entry + " FROM " + table + " WHERE name = ?1 AND " + live;
        this.list = "SELECT " + entry + " FROM " + table + " WHERE name LIKE ?1 ESCAPE '!' AND " + live
                + " ORDER BY name LIMIT ";
        String unused =
                "expires_at < " + database.plusMillis("?1") + " AND (owner IS NULL OR expires_at <= " + now + ")";
        if (database.cleansByName()) {
            this.cleanUp = null;
            this.cleanUpCandidates = "SELECT name FROM " + table + " WHERE " + unused + " LIMIT " + CLEANUP_BATCH;
            StringBuilder names = new StringBuilder();
            for (int i = 2; i <= CLEANUP_BATCH + 1; i++) {
                names.append(i == 2 ? "?" : ", ?").append(i);
            }
            // by the primary key even where the names are most of a small table, on which the optimizer would rather
            // scan it, locking every row; index hints need the multiple-table form
            this.cleanUpByName = "DELETE l FROM " + table + " AS l FORCE INDEX (PRIMARY) WHERE name IN (" + names
                    + ") AND " + unused;
        } else {
            this.cleanUp = "DELETE FROM " + table + " WHERE " + unused;
            this.cleanUpCandidates = null;
            this.cleanUpByName = null;
        }
        this.probe = "SELECT COUNT(*) FROM " + table + " WHERE name = ''";
    }

    /**
     * @return on PostgreSQL, {@code update} as a query that notifies each name it changed on {@link #channel} and
     *         answers how many there were, in one statement (delivered when it commits); elsewhere {@code update}
     */
    private String notifying(String update) {
        return database.notifies()
                ? "WITH changed AS (" + update + " RETURNING name) SELECT COUNT(pg_notify('" + channel
                        + "', name)) FROM changed"
                : update;
    }

    /**
     * @return the channel of {@code table}: its name in lower case, shortened with a hash of it beyond PostgreSQL's
     *         63 bytes
     */
    static String channel(String table) {
        String channel = table.toLowerCase(java.util.Locale.ROOT);
        return channel.length() <= 63
                ? channel
                : channel.substring(0, 54) + "_" + String.format("%08x", channel.hashCode());
    }

    /** @return the one-statement acquisition of {@link #acquire} on {@code database}, or {@code null} */
    private static String acquire(Database database, String table, String mine, String nextFence) {
        String now = database.now();
        String lease = "fence, " + database.epochMillis("acquired_at") + ", " + database.epochMillis("expires_at");
        String columns = "(name, owner, holder, acquired_at, expires_at, fence)";
        switch (database) {
            case POSTGRESQL -> {
                return postgresAcquire(database, table, mine, true);
            }
            case MARIADB -> {
                // MariaDB assigns left to right, each assignment seeing the ones before: fence, acquired_at and holder
                // read the row as it was; owner is then taken (or kept), and expires_at follows the owner it now has.
                // A free row takes the new hold's fence, time and holder; a live one keeps them, whether it is the
                // caller's own (a retry, renewed below) or another's (left as it is): an own live row is never free,
                // so one test decides. The statement is parsed on every call unless the driver prepares it on the
                // server (useServerPrepStmts=true, see README), so each test it spares counts.
                String free = "(owner IS NULL OR expires_at <= " + now + ")";
                return "INSERT INTO " + table + " " + columns + " VALUES (?4, ?1, ?2, " + now + ", "
                        + database.plusMillis("?3") + ", " + database.nowMicros() + ") ON DUPLICATE KEY UPDATE"
                        + " fence = IF(" + free + ", GREATEST(fence + 1, VALUES(fence)), fence),"
                        + " acquired_at = IF(" + free + ", VALUES(acquired_at), acquired_at),"
                        + " holder = IF(" + free + ", VALUES(holder), holder),"
                        + " owner = IF(owner IS NULL OR owner = ?1 OR expires_at <= " + now + ", ?1, owner),"
                        + " expires_at = IF(owner = ?1, VALUES(expires_at), expires_at)"
                        + " RETURNING CASE WHEN owner = ?1 THEN 1 ELSE 0 END, " + lease + ", "
                        + database.remainingMillis("expires_at");
            }
            case H2 -> {
                // A MERGE whose update only matches a free, expired or own row; its FINAL TABLE is the new lease
                String mineThere = mine.replace("owner", "l.owner").replace("expires_at", "l.expires_at");
                return "SELECT 1, " + lease + ", 0 FROM FINAL TABLE (MERGE INTO " + table + " AS l USING (VALUES"
                        + " (CAST(?4 AS VARCHAR(255)), CAST(?1 AS VARCHAR(255)), CAST(?2 AS VARCHAR(1000)),"
                        + " CAST(?3 AS BIGINT))) AS s(name, owner, holder, ttl) ON l.name = s.name"
                        + " WHEN MATCHED AND (l.owner IS NULL OR l.owner = s.owner OR l.expires_at <= " + now + ")"
                        + " THEN UPDATE SET fence = CASE WHEN " + mineThere + " THEN l.fence ELSE "
                        + nextFence.replace("fence + 1", "l.fence + 1") + " END,"
                        + " acquired_at = CASE WHEN " + mineThere + " THEN l.acquired_at ELSE " + now + " END,"
                        + " holder = CASE WHEN " + mineThere + " THEN l.holder ELSE s.holder END,"
                        + " owner = s.owner, expires_at = " + database.plusMillis("s.ttl")
                        + " WHEN NOT MATCHED THEN INSERT " + columns + " VALUES (s.name, s.owner, s.holder, " + now
                        + ", " + database.plusMillis("s.ttl") + ", " + database.nowMicros() + "))";
            }
            default -> {
                return null; // MySQL has no RETURNING: take-over, read-back and insert, as described in JpaLockStore
            }
        }
    }

    /**
     * The PostgreSQL acquisition. With {@code skipHeldRows} (every attempt but one after a lost answer), a free or
     * expired row is locked only if no other transaction holds it (SKIP LOCKED): one that does is taking or changing
     * it, and waiting for its commit (its flush) to learn that it was taken would also hold up that acquirer's release
     * behind this attempt; the attempt answers busy for an unknown time (NULL) at once instead. The caller's own live
     * row is waited for, so that its owner never hears busy about its own hold; and a name's first row, inserted by
     * another meanwhile, is left to it (no row answered). Without it, a free, expired or own row is waited for, and a
     * first row inserted meanwhile is taken over if free or the caller's own: the owner's earlier attempt, whose
     * answer was lost, may be the transaction that holds it.
     *
     * <p>Either way a row live for another owner in the statement's snapshot is never locked: its remaining time is
     * read from the snapshot, and the attempt writes nothing. The lock's recheck reads the row's latest version (READ
     * COMMITTED); the update then gives it the new lease, or renews the owner's own, keeping its fence, time and
     * holder.
     */
    private static String postgresAcquire(Database database, String table, String mine, boolean skipHeldRows) {
        String now = database.now();
        String lease = "fence, " + database.epochMillis("acquired_at") + ", " + database.epochMillis("expires_at");
        String columns = "(name, owner, holder, acquired_at, expires_at, fence)";
        String mineThere = mine.replace("owner", "l.owner").replace("expires_at", "l.expires_at");
        String fence =
                "CASE WHEN " + mineThere + " THEN l.fence ELSE GREATEST(l.fence + 1, " + database.nowMicros() + ") END";
        String acquiredAt = "CASE WHEN " + mineThere + " THEN l.acquired_at ELSE " + now + " END";
        String holder = "CASE WHEN " + mineThere + " THEN l.holder ELSE ?2 END";
        String free = "owner IS NULL OR expires_at <= " + now;
        String locked = skipHeldRows
                ? "free AS (SELECT name FROM " + table + " WHERE name = ?4 AND (" + free + ") FOR NO KEY UPDATE SKIP"
                        + " LOCKED), own AS (SELECT name FROM " + table + " WHERE name = ?4 AND owner = ?1 AND"
                        + " expires_at > " + now + " FOR NO KEY UPDATE)"
                : "free AS (SELECT name FROM " + table + " WHERE name = ?4 AND (" + free + " OR owner = ?1) FOR NO KEY"
                        + " UPDATE)";
        String rows = skipHeldRows ? "(SELECT name FROM free UNION ALL SELECT name FROM own)" : "free";
        String firstRowTaken = skipHeldRows
                ? "DO NOTHING"
                : "DO UPDATE SET fence = " + fence.replace(database.nowMicros(), "EXCLUDED.fence") + ", acquired_at = "
                        + acquiredAt + ", holder = " + holder + ", owner = ?1, expires_at = EXCLUDED.expires_at WHERE "
                        + "l.owner IS NULL OR l.owner = ?1 OR l.expires_at <= " + now;
        return "WITH " + locked + ","
                + " taken AS (UPDATE " + table + " AS l SET fence = " + fence + ", acquired_at = " + acquiredAt
                + ", holder = " + holder + ", owner = ?1, expires_at = " + database.plusMillis("?3")
                + " FROM " + rows + " c WHERE l.name = c.name RETURNING " + lease + "),"
                + " inserted AS (INSERT INTO " + table + " AS l " + columns + " SELECT ?4, ?1, ?2, " + now + ", "
                + database.plusMillis("?3") + ", " + database.nowMicros() + " WHERE NOT EXISTS (SELECT 1 FROM " + table
                + " WHERE name = ?4) ON CONFLICT (name) " + firstRowTaken + " RETURNING " + lease + ")"
                + " SELECT 1, taken.*, 0, '' FROM taken UNION ALL SELECT 1, inserted.*, 0, '' FROM inserted"
                + " UNION ALL SELECT 0, 0, 0, 0, CASE WHEN owner IS NOT NULL AND expires_at > " + now
                + " AND owner <> ?1 THEN " + database.remainingMillis("expires_at") + " END, " + NO_FLUSH_WAIT
                + " FROM " + table + " WHERE name = ?4 AND NOT EXISTS (SELECT 1 FROM taken)";
    }

    /** @return {@code prefix} as a LIKE pattern that matches it literally, with {@code !} as the escape */
    static String prefixPattern(String prefix) {
        StringBuilder pattern = new StringBuilder(prefix.length() + 8);
        for (int i = 0; i < prefix.length(); i++) {
            char c = prefix.charAt(i);
            if (c == '!' || c == '%' || c == '_') {
                pattern.append('!');
            }
            pattern.append(c);
        }
        return pattern.append('%').toString();
    }
}
