package dev.exclusive.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.exclusive.LockRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ReentrancyAndStagesTest {

    @ApplicationScoped
    static class Accounts {
        @Inject
        Ledger ledger;

        @Inject
        LockRegistry registry;

        @Exclusive("account:{0}")
        public boolean transfer(long account) {
            ledger.post(account);
            return registry.lock("account:" + account, 1).isLocked();
        }

        @Exclusive("account:{0}")
        public CompletableFuture<String> later(long account, CompletableFuture<String> work) {
            return work;
        }

        @Exclusive("account:{0}")
        public CompletionStage<String> laterAsStage(long account, CompletableFuture<String> work) {
            return work;
        }
    }

    @Singleton // no client proxy: the test reads its fields
    static class Ledger {
        int posts;

        @Exclusive(value = "account:{0}", maxWait = 2)
        public void post(long account) {
            posts++;
        }
    }

    Deployment deployment;
    Accounts accounts;
    LockRegistry registry;

    @BeforeEach
    void start() {
        deployment = Deployment.start(Map.of(), Accounts.class, Ledger.class);
        accounts = deployment.select(Accounts.class);
        registry = deployment.select(LockRegistry.class);
    }

    @AfterEach
    void stop() {
        deployment.close();
    }

    @Test
    void aNestedCallOnALockTheThreadHoldsRunsAndLeavesTheOuterHoldInPlace() {
        assertThat(accounts.transfer(7))
                .as("still held after the nested call returned")
                .isTrue();
        assertThat(deployment.select(Ledger.class).posts).isEqualTo(1);
        assertThat(registry.lock("account:7", 1).isLocked()).isFalse();
    }

    @Test
    void anotherThreadIsNotReentrant() throws Exception {
        CompletableFuture<String> work = new CompletableFuture<>();
        accounts.later(3, work);
        CompletableFuture<Throwable> fromOtherThread = CompletableFuture.supplyAsync(() -> {
            try {
                accounts.transfer(3);
                return null;
            } catch (RuntimeException e) {
                return e;
            }
        });
        assertThat(fromOtherThread.get()).isInstanceOf(dev.exclusive.LockBusyException.class);
        work.complete("done");
    }

    @Test
    void aCompletionStageHoldsTheLockUntilItCompletes() {
        CompletableFuture<String> work = new CompletableFuture<>();

        CompletableFuture<String> result = accounts.later(1, work);
        assertThat(registry.lock("account:1", 1).isLocked()).isTrue();

        work.complete("done");
        assertThat(result.join()).isEqualTo("done");
        assertThat(registry.lock("account:1", 1).isLocked()).isFalse();
    }

    @Test
    void aStageThatFailsReleasesTooAndKeepsItsFailure() {
        CompletableFuture<String> work = new CompletableFuture<>();

        CompletionStage<String> result = accounts.laterAsStage(2, work);
        assertThat(registry.lock("account:2", 1).isLocked()).isTrue();

        work.completeExceptionally(new IllegalStateException("boom"));
        assertThatThrownBy(() -> result.toCompletableFuture().join())
                .isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(IllegalStateException.class);
        assertThat(registry.lock("account:2", 1).isLocked()).isFalse();
    }
}
