package dev.exclusive.jpa;

import dev.exclusive.LockConfigurationException;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceException;
import java.util.List;

/**
 * The statements of {@link Fences} for one table on one database, and the table's set-up. Parameters are JPA
 * ordinal parameters; the table name is checked by {@link Fences.Builder#table} before it gets here.
 */
final class FenceTable {

    final Database database;
    final String table;
    private final Transactions transactions;

    /**
     * In the caller's transaction: raises the resource's fence to {@code ?2} unless it is higher, and leaves the
     * row write-locked until that transaction ends. PostgreSQL, MariaDB and MySQL insert a missing row in the same
     * statement; on H2 it answers 0 rows when the row is missing (see {@link #firstRow}).
     */
    final String claim;
    /** In the caller's transaction, after {@link #claim}: the resource's fence, read from the row it locked. */
    final String read;
    /**
     * H2 only, in a transaction of its own: inserts the resource's row with fence 0 if it is missing. H2 has no
     * insert that waits for a concurrent inserter of the same key and then does nothing: its MERGE fails with a
     * duplicate key, which would doom the caller's transaction, so the row is made outside it.
     */
    final String firstRow;

    private final String probe;

    FenceTable(Database database, String table, Transactions transactions) {
        this.database = database;
        this.table = table;
        this.transactions = transactions;
        this.claim = switch (database) {
            case POSTGRESQL ->
                "INSERT INTO " + table + " AS f (resource, fence) VALUES (?1, ?2)"
                        + " ON CONFLICT (resource) DO UPDATE SET fence = GREATEST(f.fence, EXCLUDED.fence)";
            case MARIADB, MYSQL ->
                "INSERT INTO " + table + " (resource, fence) VALUES (?1, ?2)"
                        + " ON DUPLICATE KEY UPDATE fence = GREATEST(fence, ?2)";
            case H2 -> "UPDATE " + table + " SET fence = GREATEST(fence, ?2) WHERE resource = ?1";
        };
        this.read = "SELECT fence FROM " + table + " WHERE resource = ?1 FOR UPDATE";
        this.firstRow = database == Database.H2
                ? "MERGE INTO " + table + " AS f USING (VALUES (CAST(?1 AS VARCHAR(255)))) AS s(resource)"
                        + " ON f.resource = s.resource WHEN NOT MATCHED THEN INSERT (resource, fence)"
                        + " VALUES (s.resource, 0)"
                : null;
        this.probe = "SELECT COUNT(*) FROM " + table + " WHERE resource = ''";
    }

    /** @return the DDL of the fence table on {@code database}, as DDL.md gives it */
    static List<String> createTable(Database database, String table) {
        return switch (database) {
            case POSTGRESQL ->
                List.of("CREATE TABLE IF NOT EXISTS " + table + " (\n"
                        + "    resource VARCHAR(255) COLLATE \"C\" NOT NULL PRIMARY KEY,\n"
                        + "    fence    BIGINT NOT NULL\n"
                        + ")");
            case MARIADB -> List.of(mysqlTable(table, "utf8mb4_nopad_bin"));
            case MYSQL -> List.of(mysqlTable(table, "utf8mb4_0900_bin"));
            case H2 ->
                List.of("CREATE TABLE IF NOT EXISTS " + table + " (\n"
                        + "    resource VARCHAR(255) NOT NULL PRIMARY KEY,\n"
                        + "    fence    BIGINT NOT NULL\n"
                        + ")");
        };
    }

    private static String mysqlTable(String table, String binaryCollation) {
        return "CREATE TABLE IF NOT EXISTS " + table + " (\n"
                + "    resource VARCHAR(255) CHARACTER SET utf8mb4 COLLATE " + binaryCollation
                + " NOT NULL PRIMARY KEY,\n"
                + "    fence    BIGINT NOT NULL\n"
                + ") ENGINE=InnoDB";
    }

    /**
     * Checks that the table answers, in a statement of its own (a missing table is then not logged as an SQL error
     * by Hibernate: it is expected on a first start); creates it first when it is missing and
     * {@code create} is set.
     *
     * @throws LockConfigurationException if the table cannot be read
     */
    void prepare(boolean create) {
        transactions.prepareTable(
                probe,
                database.listed(table),
                create ? createTable(database, table) : null,
                this::missingTable,
                this::missingTable);
    }

    private LockConfigurationException missingTable(PersistenceException e) {
        return new LockConfigurationException(
                "Fences: cannot read table '" + table + "' on " + database + " (" + e.getMessage()
                        + "); create it with the DDL in lock-jpa/DDL.md, or build with"
                        + " Fences.builder(...).createTable(true)",
                null,
                "table",
                e);
    }

    /**
     * The claim in the caller's transaction: {@link #claim}, then {@link #read}. On H2 a missing row is first
     * inserted in a transaction of its own (a concurrent insert of the same row is fine: it exists either way).
     *
     * @return the resource's fence after the claim, read from the row the claim locked
     */
    long claim(EntityManager callers, String resource, long fence) {
        int changed = callers.createNativeQuery(claim)
                .setParameter(1, resource)
                .setParameter(2, fence)
                .executeUpdate();
        if (changed == 0 && firstRow != null) {
            try {
                transactions.run(em -> transactions
                        .query(em, firstRow)
                        .setParameter(1, resource)
                        .executeUpdate());
            } catch (PersistenceException e) {
                if (!Failures.isDuplicateKey(e)) {
                    throw e;
                }
            }
            callers.createNativeQuery(claim)
                    .setParameter(1, resource)
                    .setParameter(2, fence)
                    .executeUpdate();
        }
        List<?> rows = callers.createNativeQuery(read).setParameter(1, resource).getResultList();
        if (rows.isEmpty()) {
            throw new PersistenceException("Fences: the claim of resource '" + resource + "' left no row in table '"
                    + table + "'; is the table's resource column the primary key?");
        }
        return ((Number) rows.get(0)).longValue();
    }
}
