package dev.exclusive.jpa;

/**
 * The store's statements for one table on one database, built once. Parameters are JPA ordinal parameters
 * ({@code ?1}); the table name is checked by {@link JpaLockStore.Builder#table} before it gets here.
 */
final class Statements {

    final Database database;
    final String table;

    /** Takes over an existing free or expired row, or renews the owner's own: owner, holder, ttl ms, name. */
    final String takeOver;
    /** {@link #takeOver}, returning the lease (PostgreSQL). */
    final String takeOverReturning;
    /** Inserts the first row of a name, its fence the database clock in microseconds: name, owner, holder, ttl ms. */
    final String insert;
    /** The lease just granted: fence, acquired-at and expires-at ms of name. */
    final String readLease;
    /** The remaining ms of a live lease on name. */
    final String readRemaining;

    final String release;
    /**
     * Frees the owner's live lease once its acquisition plus the minimum hold (the floor) has passed, or else ends
     * it at the floor unless it ends sooner: name, owner, minimum hold ms. On PostgreSQL it returns 1 if it freed
     * the row, 0 if it kept it.
     */
    final String releaseWithFloor;
    /** Whether the row of name is free (1) or held (0): read after {@link #releaseWithFloor} without RETURNING. */
    final String readFreed;

    final String forceRelease;
    /** ttl ms, name, owner. */
    final String extend;

    final String inspect;
    /** pattern (escape character {@code !}); the limit is appended. */
    final String list;
    /** retention ms (negative). */
    final String cleanUp;
    /** A cheap query that fails when the table is missing. */
    final String probe;

    Statements(Database database, String table) {
        this.database = database;
        this.table = table;
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
        this.takeOverReturning = database.returning()
                ? takeOver + " RETURNING fence, " + database.epochMillis("acquired_at") + ", "
                        + database.epochMillis("expires_at")
                : null;
        this.insert = database.insertFirstRow(
                        table,
                        "(?1, ?2, ?3, " + now + ", " + database.plusMillis("?4") + ", " + database.nowMicros() + ")")
                + (database.returning()
                        ? " RETURNING fence, " + database.epochMillis("acquired_at") + ", "
                                + database.epochMillis("expires_at")
                        : "");
        this.readLease = "SELECT fence, " + database.epochMillis("acquired_at") + ", "
                + database.epochMillis("expires_at") + " FROM " + table + " WHERE name = ?1";
        this.readRemaining =
                "SELECT " + database.remainingMillis("expires_at") + " FROM " + table + " WHERE name = ?1 AND " + live;
        this.release = "UPDATE " + table + " SET owner = NULL, expires_at = " + now
                + " WHERE name = ?1 AND owner = ?2 AND " + live;
        // One statement decides and changes, as release does; both CASEs see the row as it was (MariaDB and MySQL
        // assign left to right, but expires_at's CASE reads acquired_at and expires_at, never owner).
        String floor = database.plusMillis("acquired_at", "?3");
        String passed = floor + " <= " + now;
        this.releaseWithFloor = "UPDATE " + table + " SET owner = CASE WHEN " + passed + " THEN NULL ELSE owner END,"
                + " expires_at = CASE WHEN " + passed + " THEN " + now + " ELSE LEAST(expires_at, " + floor + ") END"
                + " WHERE name = ?1 AND owner = ?2 AND " + live
                + (database.returning() ? " RETURNING CASE WHEN owner IS NULL THEN 1 ELSE 0 END" : "");
        this.readFreed = "SELECT CASE WHEN owner IS NULL THEN 1 ELSE 0 END FROM " + table + " WHERE name = ?1";
        this.forceRelease =
                "UPDATE " + table + " SET owner = NULL, expires_at = " + now + " WHERE name = ?1 AND " + live;
        this.extend = "UPDATE " + table + " SET expires_at = " + database.plusMillis("?1")
                + " WHERE name = ?2 AND owner = ?3 AND " + live;
        this.inspect = "SELECT " + entry + " FROM " + table + " WHERE name = ?1 AND " + live;
        this.list = "SELECT " + entry + " FROM " + table + " WHERE name LIKE ?1 ESCAPE '!' AND " + live
                + " ORDER BY name LIMIT ";
        this.cleanUp = "DELETE FROM " + table + " WHERE expires_at < " + database.plusMillis("?1")
                + " AND (owner IS NULL OR expires_at <= " + now + ")";
        this.probe = "SELECT COUNT(*) FROM " + table + " WHERE name = ''";
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
