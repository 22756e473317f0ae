package dev.exclusive.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.exclusive.Lock;
import dev.exclusive.LockRegistry;
import dev.exclusive.Locks;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code Locks.current()} and {@code Locks.assertHeld()} in code that an {@code @Exclusive} method calls, on the
 * thread that runs it: the innermost lock, through nested and reentrant calls, for the synchronous part of a
 * method returning a stage, and nowhere else.
 */
class CurrentLockTest {

    /** Code that must only run under a lock: it records the lock it runs under. */
    @Singleton
    static class Ledger {
        final List<Lock> seen = new CopyOnWriteArrayList<>();

        public long post() {
            Lock lock = Locks.assertHeld();
            seen.add(lock);
            return lock.fence().getAsLong();
        }
    }

    @ApplicationScoped
    static class Accounts {
        @Inject
        Ledger ledger;

        @Inject
        Audit audit;

        @Inject
        Accounts self;

        @Exclusive("account:{0}")
        public long transfer(long account) {
            return ledger.post();
        }

        /** Posts, calls itself on the same lock (reentrant), then posts again. */
        @Exclusive("account:{0}")
        public void transferTwice(long account, boolean nested) {
            ledger.post();
            if (nested) {
                self.transferTwice(account, false);
                ledger.post();
            }
        }

        /** Posts under the account lock, under the audit lock inside it, and under the account lock again. */
        @Exclusive("account:{0}")
        public void audited(long account) {
            ledger.post();
            audit.record();
            ledger.post();
        }

        @Exclusive("account:{0}")
        public CompletionStage<Long> later(long account, CompletableFuture<Long> work) {
            ledger.post();
            return work;
        }
    }

    @ApplicationScoped
    static class Audit {
        @Inject
        Ledger ledger;

        @Exclusive("audit")
        public void record() {
            ledger.post();
        }
    }

    Deployment deployment;
    Accounts accounts;
    Ledger ledger;
    LockRegistry registry;

    @BeforeEach
    void start() {
        deployment = Deployment.start(Map.of(), Accounts.class, Audit.class, Ledger.class);
        accounts = deployment.select(Accounts.class);
        ledger = deployment.select(Ledger.class);
        registry = deployment.select(LockRegistry.class);
    }

    @AfterEach
    void stop() {
        deployment.close();
    }

    @Test
    void codeCalledFromAnExclusiveMethodSeesItsLockAndFence() {
        long fence = accounts.transfer(7);

        assertThat(ledger.seen).singleElement().satisfies(lock -> {
            assertThat(lock.name()).isEqualTo("account:7");
            assertThat(lock.storeName()).isEqualTo("memory");
        });
        assertThat(fence).isPositive();
        assertThat(Locks.current()).as("nothing after the method returned").isEmpty();
    }

    @Test
    void outsideAnExclusiveMethodAssertHeldFails() {
        assertThatThrownBy(ledger::post)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("No lock is held here");
    }

    @Test
    void aReentrantCallSeesTheOuterHoldAndLeavesItCurrentWhenItReturns() {
        accounts.transferTwice(3, true);

        assertThat(ledger.seen).hasSize(3);
        assertThat(ledger.seen).allSatisfy(lock -> assertThat(lock).isSameAs(ledger.seen.get(0)));
        assertThat(ledger.seen.get(2).isExpired())
                .as("still held after the nested call")
                .isFalse();
        assertThat(Locks.current()).isEmpty();
    }

    @Test
    void aNestedCallOnAnotherLockIsInnermostWhileItRuns() {
        accounts.audited(4);

        assertThat(ledger.seen).extracting(Lock::name).containsExactly("account:4", "audit", "account:4");
        assertThat(ledger.seen.get(2)).isSameAs(ledger.seen.get(0));
    }

    @Test
    void aMethodReturningAStageSeesItsLockWhileItRunsAndTheCallerDoesNotAfterwards() {
        CompletableFuture<Long> work = new CompletableFuture<>();

        CompletionStage<Long> result = accounts.later(5, work);

        assertThat(ledger.seen).extracting(Lock::name).containsExactly("account:5");
        assertThat(Locks.current()).as("the caller runs no work under the lock").isEmpty();
        assertThat(registry.lock("account:5", 1).isLocked())
                .as("held until the stage completes")
                .isTrue();
        work.complete(1L);
        assertThat(result.toCompletableFuture().join()).isEqualTo(1L);
        assertThat(registry.lock("account:5", 1).isLocked()).isFalse();
    }
}
