package dev.exclusive.bench.jpa;

import dev.exclusive.LockHolder;
import dev.exclusive.jpa.JpaLockStore;
import dev.exclusive.spi.Acquisition;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import javax.sql.DataSource;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * One thread, no contention: acquire then release one lock, through the jpa store (Hibernate) and through the floor
 * ({@link RawJdbcLocks}: one upsert-if-free and one owner-checked delete in autocommit), on PostgreSQL and MariaDB in
 * the same run; and Spring Integration's {@code JdbcLockRegistry} on PostgreSQL. Target: the store at 0.85x the
 * floor or better. {@link PairedAcquireRelease} is the same comparison, paired round by round.
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar 'jpa.JpaAcquireRelease' -f 1 -wi 2 -w 2s -i 3 -r 3s}
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class JpaAcquireReleaseBenchmark {

    private static final LockHolder HOLDER = new LockHolder("bench", "main", "JpaAcquireReleaseBenchmark");
    private static final Duration TTL = Duration.ofSeconds(30);

    @State(Scope.Thread)
    public static class StoreState {
        @Param({"POSTGRESQL", "MARIADB"})
        public BenchDatabase database;

        EntityManagerFactory factory;
        JpaLockStore store;
        RawJdbcLocks raw;
        String name;
        String owner;

        @Setup(Level.Trial)
        public void open() throws Exception {
            factory = database.factory();
            store = JpaLockStore.builder(factory).createTable(true).build();
            raw = new RawJdbcLocks(database);
            name = "bench:" + UUID.randomUUID();
            owner = UUID.randomUUID().toString();
            // the row exists from here on, as it does for every name used more than once
            store.tryAcquire(name, owner, HOLDER, TTL);
            store.release(name, owner);
        }

        @TearDown(Level.Trial)
        public void close() throws Exception {
            raw.close();
            store.close();
            factory.close();
        }
    }

    @Benchmark
    public long jpaStore(StoreState state) {
        Acquisition acquired = state.store.tryAcquire(state.name, state.owner, HOLDER, TTL);
        if (!(acquired instanceof Acquisition.Acquired lease) || !state.store.release(state.name, state.owner)) {
            throw new IllegalStateException("an uncontended lock must be acquired and released: " + acquired);
        }
        return lease.fence();
    }

    @Benchmark
    public boolean floorRawJdbc(StoreState state) throws Exception {
        if (!state.raw.acquire(state.name, state.owner, TTL.toMillis())
                || !state.raw.release(state.name, state.owner)) {
            throw new IllegalStateException("an uncontended lock must be acquired and released");
        }
        return true;
    }

    @State(Scope.Thread)
    public static class SpringState {
        SingleConnectionDataSource dataSource;
        DefaultLockRepository repository;
        JdbcLockRegistry registry;
        String key;

        @Setup(Level.Trial)
        public void open() throws Exception {
            dataSource = new SingleConnectionDataSource(
                    BenchDatabase.POSTGRESQL.url, BenchDatabase.POSTGRESQL.user, "", true);
            createTable(dataSource);
            repository = new DefaultLockRepository(dataSource);
            repository.setTransactionManager(new DataSourceTransactionManager(dataSource));
            repository.afterPropertiesSet();
            repository.afterSingletonsInstantiated();
            registry = new JdbcLockRegistry(repository);
            key = "bench:" + UUID.randomUUID();
        }

        @TearDown(Level.Trial)
        public void close() {
            repository.close();
            dataSource.destroy();
        }

        private static void createTable(DataSource dataSource) throws Exception {
            try (Connection connection = dataSource.getConnection();
                    Statement statement = connection.createStatement()) {
                statement.execute(
                        "CREATE TABLE IF NOT EXISTS INT_LOCK (LOCK_KEY CHAR(36) NOT NULL, REGION VARCHAR(100) "
                                + "NOT NULL, CLIENT_ID CHAR(36), CREATED_DATE TIMESTAMP NOT NULL, CONSTRAINT INT_LOCK_PK "
                                + "PRIMARY KEY (LOCK_KEY, REGION))");
            }
        }
    }

    @Benchmark
    public boolean springJdbcLockRegistryPostgresql(SpringState state) {
        Lock lock = state.registry.obtain(state.key);
        if (!lock.tryLock()) {
            throw new IllegalStateException("an uncontended lock must be acquired");
        }
        lock.unlock();
        return true;
    }
}
