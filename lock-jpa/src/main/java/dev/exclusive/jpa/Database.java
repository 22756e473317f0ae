package dev.exclusive.jpa;

import java.util.List;
import java.util.Locale;

/**
 * The SQL the store sends to each database it supports. Every time expression reads the database's clock, so
 * the JVM's clock decides nothing; times travel to the JVM as epoch milliseconds and durations as milliseconds,
 * both computed by the database, so no time zone is ever interpreted on this side.
 */
enum Database {

    /** PostgreSQL: {@code timestamptz} columns, {@code CURRENT_TIMESTAMP} (start of the store's short transaction). */
    POSTGRESQL("PostgreSQL") {
        @Override
        String now() {
            return "CURRENT_TIMESTAMP";
        }

        @Override
        String plusMillis(String time, String parameter) {
            return "(" + time + " + CAST(" + parameter + " AS DOUBLE PRECISION) * INTERVAL '1 millisecond')";
        }

        @Override
        String epochMillis(String column) {
            return "CAST(FLOOR(EXTRACT(EPOCH FROM " + column + ") * 1000) AS BIGINT)";
        }

        @Override
        String remainingMillis(String column) {
            return "CAST(FLOOR(EXTRACT(EPOCH FROM (" + column + " - CURRENT_TIMESTAMP)) * 1000) AS BIGINT)";
        }

        @Override
        String nowMicros() {
            return "CAST(FLOOR(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000000) AS BIGINT)";
        }

        @Override
        boolean returning() {
            return true;
        }

        @Override
        boolean notifies() {
            return true;
        }

        /** {@code DO NOTHING} takes no lock on an existing row and raises no error. */
        @Override
        String insertFirstRow(String table, String values) {
            return "INSERT INTO " + table + " (name, owner, holder, acquired_at, expires_at, fence) VALUES " + values
                    + " ON CONFLICT (name) DO NOTHING";
        }

        @Override
        List<String> createTable(String table) {
            return List.of("CREATE TABLE IF NOT EXISTS " + table + " (\n"
                    + "    name        VARCHAR(255) COLLATE \"C\" NOT NULL PRIMARY KEY,\n"
                    + "    owner       VARCHAR(255),\n"
                    + "    holder      VARCHAR(1000),\n"
                    + "    acquired_at TIMESTAMP WITH TIME ZONE NOT NULL,\n"
                    + "    expires_at  TIMESTAMP WITH TIME ZONE NOT NULL,\n"
                    + "    fence       BIGINT NOT NULL,\n"
                    + "    waited_until TIMESTAMP WITH TIME ZONE\n"
                    + ") WITH (fillfactor = 50)");
        }

        /**
         * The index on {@code expires_at} that tables of earlier versions have: every acquire and release changes
         * that column, so with it no update is HOT (each one adds index entries and leaves dead ones behind).
         */
        @Override
        String obsoleteIndex(String table) {
            return "SELECT COUNT(*) FROM pg_indexes WHERE schemaname = " + schemaLiteral(table, "current_schema()")
                    + " AND tablename = " + tableLiteral(table) + " AND indexname = '" + indexName(table) + "'";
        }

        @Override
        String dropObsoleteIndex(String table) {
            int dot = table.indexOf('.');
            return "DROP INDEX IF EXISTS " + (dot < 0 ? "" : table.substring(0, dot + 1)) + indexName(table);
        }

        /** A deterministic collation compares equal only what is byte for byte equal, whatever it sorts by. */
        @Override
        String nameComparison(String table) {
            return "SELECT c.collname, CASE WHEN c.collisdeterministic THEN 1 ELSE 0 END FROM pg_attribute a"
                    + " JOIN pg_collation c ON c.oid = a.attcollation WHERE a.attrelid = CAST('" + table
                    + "' AS regclass) AND a.attname = 'name'";
        }

        @Override
        String exactNameColumn(String table) {
            return "ALTER TABLE " + table + " ALTER COLUMN name TYPE VARCHAR(255) COLLATE \"C\"";
        }

        /** {@code to_regclass} resolves the name as a statement would, and answers NULL rather than failing. */
        @Override
        String listed(String table) {
            return "SELECT CASE WHEN to_regclass('" + table + "') IS NULL THEN 0 ELSE 1 END";
        }
    },

    /**
     * MariaDB: {@code DATETIME(6)} columns holding UTC from {@code UTC_TIMESTAMP(6)}, so the session's
     * {@code time_zone} changes nothing and there is no 2038 limit; the name column compares bytes without
     * padding, so {@code "a"}, {@code "A"} and {@code "a "} are three locks.
     */
    MARIADB("MariaDB") {
        @Override
        String now() {
            return "UTC_TIMESTAMP(6)";
        }

        @Override
        String plusMillis(String time, String parameter) {
            return "DATE_ADD(" + time + ", INTERVAL (" + parameter + " * 1000) MICROSECOND)";
        }

        @Override
        String epochMillis(String column) {
            return "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', " + column + ") DIV 1000)";
        }

        @Override
        String remainingMillis(String column) {
            return "(TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), " + column + ") DIV 1000)";
        }

        @Override
        String nowMicros() {
            return "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))";
        }

        @Override
        String insertIfAbsent() {
            return "INSERT IGNORE INTO ";
        }

        @Override
        List<String> createTable(String table) {
            return mysqlTable(table, "utf8mb4_nopad_bin");
        }

        /** Exact: binary and no-pad, on utf8mb4, which holds every character (MariaDB's or MySQL's collation). */
        @Override
        String nameComparison(String table) {
            return "SELECT COLLATION_NAME, CASE WHEN COLLATION_NAME IN ('utf8mb4_nopad_bin', 'utf8mb4_0900_bin')"
                    + " THEN 1 ELSE 0 END FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = "
                    + schemaLiteral(table, "DATABASE()") + " AND TABLE_NAME = " + tableLiteral(table)
                    + " AND COLUMN_NAME = 'name'";
        }

        @Override
        String exactNameColumn(String table) {
            return mysqlNameColumn(table, "utf8mb4_nopad_bin");
        }

        @Override
        String listed(String table) {
            return "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = "
                    + schemaLiteral(table, "DATABASE()") + " AND TABLE_NAME = " + tableLiteral(table);
        }

        /**
         * The index on {@code expires_at} that tables of earlier versions have: every acquire and release changes
         * that column, so with it each one also rewrites a secondary index entry (InnoDB deletes the old entry and
         * inserts the new one, with their redo).
         */
        @Override
        String obsoleteIndex(String table) {
            return "SELECT COUNT(DISTINCT INDEX_NAME) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = "
                    + schemaLiteral(table, "DATABASE()") + " AND TABLE_NAME = " + tableLiteral(table)
                    + " AND INDEX_NAME = '" + indexName(table) + "'";
        }

        /** Dropping a secondary index is done in place by InnoDB, without copying the table or blocking writes. */
        @Override
        String dropObsoleteIndex(String table) {
            return "ALTER TABLE " + table + " DROP INDEX " + indexName(table);
        }

        /**
         * Without an index on {@code expires_at} a {@code DELETE} would scan the whole table and, in InnoDB's default
         * {@code REPEATABLE READ}, keep a lock on every row it read until it commits, holding up every acquire and
         * release meanwhile: the cleanup reads the candidates without locking and deletes them by name.
         */
        @Override
        boolean cleansByName() {
            return true;
        }
    },

    /** MySQL 8: the MariaDB statements, with MySQL's binary no-pad collation. */
    MYSQL("MySQL") {
        @Override
        String now() {
            return MARIADB.now();
        }

        @Override
        String plusMillis(String time, String parameter) {
            return MARIADB.plusMillis(time, parameter);
        }

        @Override
        String epochMillis(String column) {
            return MARIADB.epochMillis(column);
        }

        @Override
        String remainingMillis(String column) {
            return MARIADB.remainingMillis(column);
        }

        @Override
        String nowMicros() {
            return MARIADB.nowMicros();
        }

        @Override
        String insertIfAbsent() {
            return MARIADB.insertIfAbsent();
        }

        @Override
        List<String> createTable(String table) {
            return mysqlTable(table, "utf8mb4_0900_bin");
        }

        @Override
        String nameComparison(String table) {
            return MARIADB.nameComparison(table);
        }

        @Override
        String exactNameColumn(String table) {
            return mysqlNameColumn(table, "utf8mb4_0900_bin");
        }

        @Override
        String listed(String table) {
            return MARIADB.listed(table);
        }

        @Override
        String obsoleteIndex(String table) {
            return MARIADB.obsoleteIndex(table);
        }

        @Override
        String dropObsoleteIndex(String table) {
            return MARIADB.dropObsoleteIndex(table);
        }

        @Override
        boolean cleansByName() {
            return MARIADB.cleansByName();
        }
    },

    /**
     * H2 2.x: {@code TIMESTAMP(6) WITH TIME ZONE} columns, always written at offset +00:00, because H2's
     * {@code DATEDIFF} subtracts local fields and a session may have another time zone.
     */
    H2("H2") {
        private static final String NOW = "(CURRENT_TIMESTAMP AT TIME ZONE 'UTC')";

        @Override
        String now() {
            return NOW;
        }

        @Override
        String plusMillis(String time, String parameter) {
            return "DATEADD(MILLISECOND, " + parameter + ", " + time + ")";
        }

        @Override
        String epochMillis(String column) {
            return "DATEDIFF(MILLISECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', " + column + ")";
        }

        @Override
        String remainingMillis(String column) {
            return "DATEDIFF(MILLISECOND, " + NOW + ", " + column + ")";
        }

        @Override
        String nowMicros() {
            return "DATEDIFF(MICROSECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', " + NOW + ")";
        }

        /** A MERGE that inserts only when absent, so only a true race with another inserter raises an error. */
        @Override
        String insertFirstRow(String table, String values) {
            return "MERGE INTO " + table + " AS l USING (VALUES (1)) AS s(x) ON l.name = ?1 WHEN NOT MATCHED THEN"
                    + " INSERT (name, owner, holder, acquired_at, expires_at, fence) VALUES " + values;
        }

        @Override
        List<String> createTable(String table) {
            return List.of(
                    "CREATE TABLE IF NOT EXISTS " + table + " (\n"
                            + "    name        VARCHAR(255) NOT NULL PRIMARY KEY,\n"
                            + "    owner       VARCHAR(255),\n"
                            + "    holder      VARCHAR(1000),\n"
                            + "    acquired_at TIMESTAMP(6) WITH TIME ZONE NOT NULL,\n"
                            + "    expires_at  TIMESTAMP(6) WITH TIME ZONE NOT NULL,\n"
                            + "    fence       BIGINT NOT NULL\n"
                            + ")",
                    "CREATE INDEX IF NOT EXISTS " + indexName(table) + " ON " + table + " (expires_at)");
        }

        @Override
        String nameComparison(String table) {
            return "SELECT DATA_TYPE || ', collation ' || COALESCE(COLLATION_NAME, 'OFF'), CASE WHEN DATA_TYPE = 'CHARACTER"
                    + " VARYING' AND COALESCE(COLLATION_NAME, 'OFF') = 'OFF' THEN 1 ELSE 0 END"
                    + " FROM INFORMATION_SCHEMA.COLUMNS WHERE UPPER(TABLE_SCHEMA) = UPPER("
                    + schemaLiteral(table, "SCHEMA()") + ") AND UPPER(TABLE_NAME) = UPPER(" + tableLiteral(table)
                    + ") AND UPPER(COLUMN_NAME) = 'NAME'";
        }

        /** Without {@code IGNORECASE} in the URL and {@code SET COLLATION}, a VARCHAR compares exactly. */
        @Override
        String exactNameColumn(String table) {
            return "ALTER TABLE " + table + " ALTER COLUMN name SET DATA TYPE VARCHAR(255)";
        }

        /**
         * An unqualified table in any schema: statements may find it through {@code SCHEMA_SEARCH_PATH}, and one of
         * an unrelated schema only costs the probe that then decides, as before the catalog was asked.
         */
        @Override
        String listed(String table) {
            String schema = table.indexOf('.') < 0
                    ? ""
                    : "UPPER(TABLE_SCHEMA) = UPPER(" + schemaLiteral(table, "SCHEMA()") + ") AND ";
            return "SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE " + schema + "UPPER(TABLE_NAME) = UPPER("
                    + tableLiteral(table) + ")";
        }
    };

    private final String displayName;

    Database(String displayName) {
        this.displayName = displayName;
    }

    /** @return the database's current time, constant within one statement */
    abstract String now();

    /** @return the database's current time plus {@code parameter} milliseconds (may be negative) */
    String plusMillis(String parameter) {
        return plusMillis(now(), parameter);
    }

    /** @return the timestamp {@code time} (an expression of this database's type) plus {@code parameter} ms */
    abstract String plusMillis(String time, String parameter);

    /** @return {@code column} as epoch milliseconds (a BIGINT) */
    abstract String epochMillis(String column);

    /** @return {@code column} minus the database's current time, in milliseconds (a BIGINT) */
    abstract String remainingMillis(String column);

    /** @return the database's current time as epoch microseconds (a BIGINT): the floor of every new fence */
    abstract String nowMicros();

    /** @return the start of an INSERT that answers 0 rows instead of failing on a duplicate key, where there is one */
    String insertIfAbsent() {
        return "INSERT INTO ";
    }

    /** @return whether UPDATE and INSERT can return the row they wrote ({@code RETURNING}) */
    boolean returning() {
        return false;
    }

    /** @return whether a release can notify waiters in other JVMs in the same statement ({@code pg_notify}) */
    boolean notifies() {
        return false;
    }

    /**
     * @param values the parenthesized values, with the name as {@code ?1}
     * @return a statement that inserts the first row of a name; 0 rows or a duplicate-key error when it exists
     */
    String insertFirstRow(String table, String values) {
        return insertIfAbsent() + table + " (name, owner, holder, acquired_at, expires_at, fence) VALUES " + values;
    }

    /** @return the DDL that creates the table and its index when missing */
    abstract List<String> createTable(String table);

    /**
     * @return a query counting the indexes of {@code table} that an earlier version created and this one drops (1 if
     *         there is one), or {@code null} where there is none
     */
    String obsoleteIndex(String table) {
        return null;
    }

    /** @return the statement that drops the index {@link #obsoleteIndex} found */
    String dropObsoleteIndex(String table) {
        throw new UnsupportedOperationException(this + " has no obsolete index");
    }

    /**
     * @return whether the cleanup first reads which rows to delete, without locking them, and then deletes those by
     *         name; otherwise one {@code DELETE} finds and deletes them
     */
    boolean cleansByName() {
        return false;
    }

    /**
     * @param table the lock table, checked by {@link JpaLockStore.Builder#table} (so it can be a literal)
     * @return a query answering how the table's name column compares (its collation or type) and whether that is
     *         exact, code point for code point (1) or may make different names one row (0); no row if unknown
     */
    abstract String nameComparison(String table);

    /** @return the statement that makes the name column of {@code table} compare exactly */
    abstract String exactNameColumn(String table);

    /**
     * @param table a table of the store, checked by {@link JpaLockStore.Builder#table} (so it can be a literal)
     * @return a catalog query that answers 1 when {@code table} exists and 0 when it does not, and never fails for a
     *         missing table (a failing statement on a JTA unit is logged by Hibernate as an SQL error)
     */
    abstract String listed(String table);

    @Override
    public String toString() {
        return displayName;
    }

    /**
     * @param productName    {@code DatabaseMetaData.getDatabaseProductName()} or a {@code version()} answer
     * @param productVersion the product version, which tells MariaDB from MySQL behind either driver
     * @return the database, or {@code null} if the store does not support it
     */
    static Database recognize(String productName, String productVersion) {
        String product = (productName + " " + productVersion).toLowerCase(Locale.ROOT);
        if (product.contains("postgres")) {
            return POSTGRESQL;
        }
        if (product.contains("mariadb")) {
            return MARIADB;
        }
        if (product.contains("mysql")) {
            return MYSQL;
        }
        if (product.startsWith("h2")) {
            return H2;
        }
        return null;
    }

    private static List<String> mysqlTable(String table, String binaryCollation) {
        return List.of("CREATE TABLE IF NOT EXISTS " + table + " (\n"
                + "    name        VARCHAR(255) CHARACTER SET utf8mb4 COLLATE " + binaryCollation
                + " NOT NULL PRIMARY KEY,\n"
                + "    owner       VARCHAR(255) CHARACTER SET utf8mb4 COLLATE " + binaryCollation + ",\n"
                + "    holder      VARCHAR(1000) CHARACTER SET utf8mb4,\n"
                + "    acquired_at DATETIME(6) NOT NULL,\n"
                + "    expires_at  DATETIME(6) NOT NULL,\n"
                + "    fence       BIGINT NOT NULL\n"
                + ") ENGINE=InnoDB");
    }

    private static String mysqlNameColumn(String table, String binaryCollation) {
        return "ALTER TABLE " + table + " MODIFY name VARCHAR(255) CHARACTER SET utf8mb4 COLLATE " + binaryCollation
                + " NOT NULL";
    }

    private static String indexName(String table) {
        return table.substring(table.lastIndexOf('.') + 1) + "_expires_at";
    }

    /** @return the table's schema as a SQL string literal, or {@code current} for an unqualified table */
    private static String schemaLiteral(String table, String current) {
        int dot = table.indexOf('.');
        return dot < 0 ? current : "'" + table.substring(0, dot) + "'";
    }

    /** @return the table's own name (without its schema) as a SQL string literal */
    private static String tableLiteral(String table) {
        return "'" + table.substring(table.lastIndexOf('.') + 1) + "'";
    }
}
