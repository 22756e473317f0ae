package dev.exclusive.cdi.internal;

import dev.exclusive.Lock;
import dev.exclusive.LockBusyException;
import dev.exclusive.LockLostException;
import dev.exclusive.LockStoreUnavailableException;
import dev.exclusive.OnLost;
import dev.exclusive.cdi.OnBusy;
import dev.exclusive.internal.DefaultLock;
import dev.exclusive.spi.Secrets;
import jakarta.interceptor.InvocationContext;
import java.lang.System.Logger.Level;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs {@code @Exclusive} calls by their {@link MethodPlan}s: take the lock (once per thread and lock), run the
 * method, release at exit, at the end of the JTA transaction, or when the returned stage completes.
 */
final class LockedInvocations {

    private static final System.Logger LOG = System.getLogger("dev.exclusive.cdi");

    /** Bean class → method → plan: an inherited method has one plan per bean class that inherits it. */
    private final Map<Class<?>, Map<Method, MethodPlan>> plans;

    /**
     * Target class → the plans of its bean class: the class itself or the nearest planned superclass (past a Weld
     * subclass, an EJB container's class). Filled on first call; one lookup per call after that.
     */
    private final Map<Class<?>, Map<Method, MethodPlan>> byTargetClass = new ConcurrentHashMap<>();

    private final Transactions transactions;

    LockedInvocations(Map<Class<?>, Map<Method, MethodPlan>> plans, Transactions transactions) {
        this.plans = plans;
        this.transactions = transactions;
    }

    Object invoke(InvocationContext context) throws Exception {
        MethodPlan plan = plan(context);
        String name = plan.name().render(context.getParameters());
        String key = plan.storeName() + '\0' + name;
        LockedCall outer = LockedCall.holding(key);
        if (outer != null) {
            return run(new LockedCall(key, outer.lock, plan, context.getTarget(), LockedCall.Kind.NESTED), context);
        }
        Lock inTransaction = transactions.heldInTransaction(key);
        if (inTransaction != null) {
            return run(
                    new LockedCall(key, inTransaction, plan, context.getTarget(), LockedCall.Kind.IN_TRANSACTION),
                    context);
        }
        Lock lock = plan.lock(name);
        boolean acquired = plan.maxWait().isZero() ? lock.get() : lock.block(plan.maxWait());
        if (!acquired) {
            return busy(plan, lock);
        }
        LockedCall call = new LockedCall(key, lock, plan, context.getTarget(), LockedCall.Kind.ACQUIRED);
        Object result;
        try {
            result = run(call, context);
        } catch (Throwable failure) {
            if (call.lostAtCompletion && !(failure instanceof LockLostException)) {
                // a transaction that began inside this call (@Transactional) found the hold gone as it committed
                LockLostException lost =
                        lockLost(call, "its transaction was rolled back instead of committed", failure);
                try {
                    release(key, lock);
                } catch (RuntimeException releaseFailure) {
                    lost.addSuppressed(releaseFailure);
                }
                throw lost;
            }
            try {
                release(key, lock);
            } catch (RuntimeException releaseFailure) {
                failure.addSuppressed(releaseFailure);
            }
            throw failure;
        }
        if (plan.returns().stage() && result != null) {
            return releaseWhenComplete(call, (CompletionStage<?>) result);
        }
        if (plan.onLost() == OnLost.ROLLBACK && !call.guarded && lost(lock)) {
            LockLostException lost = lockLost(call, "the method completed, but not under the lock for all of its time");
            try {
                release(key, lock);
            } catch (RuntimeException releaseFailure) {
                lost.addSuppressed(releaseFailure);
            }
            throw lost;
        }
        release(key, lock);
        return result;
    }

    /**
     * Releases when the stage completes; under {@code OnLost.ROLLBACK} the hold is checked first, and a hold that is
     * gone fails the stage (whose type the plan made sure can be replaced) with {@link LockLostException}.
     */
    private static Object releaseWhenComplete(LockedCall call, CompletionStage<?> stage) {
        boolean check = call.plan.onLost() == OnLost.ROLLBACK;
        CompletionStage<?> released = stage.whenComplete((value, failure) -> {
            try {
                if (check && failure == null && lost(call.lock)) {
                    throw lockLost(call, "the stage completed, but not under the lock for all of its time");
                }
            } finally {
                releaseNow(call.lock);
            }
        });
        return call.plan.returns().wrapsStage() ? released : stage;
    }

    /**
     * Whether the hold is gone: known without a store call when a renewal found it lost or the lease ran out by the
     * handle's own clock (which never outlasts the store's), else one round trip. A store that cannot be reached
     * leaves the handle's estimate to decide: an outage alone does not undo work whose lease has not run out.
     */
    static boolean lost(Lock lock) {
        if (lock.isExpired()) {
            return true;
        }
        try {
            return !lock.isHeld();
        } catch (LockStoreUnavailableException e) {
            LOG.log(
                    Level.WARNING,
                    "Lock '" + lock.name() + "' in store '" + lock.storeName() + "': could not check the hold"
                            + " (onLost ROLLBACK); its lease has "
                            + lock.remaining().map(Duration::toString).orElse("PT0S")
                            + " left by this server's clock, so the result stands",
                    Secrets.rulesOnly().mask(e));
            return false;
        }
    }

    /** @param outcome what became of the work, for the message */
    static LockLostException lockLost(LockedCall call, String outcome) {
        return lockLost(call, outcome, null);
    }

    /**
     * @param outcome what became of the work, for the message
     * @param cause   the failure the loss explains (a transaction manager's rollback), or {@code null}
     */
    static LockLostException lockLost(LockedCall call, String outcome, Throwable cause) {
        Lock lock = call.lock;
        return new LockLostException(
                "Lock '" + lock.name() + "' in store '" + lock.storeName() + "' was lost while @Exclusive on "
                        + call.plan.display() + " ran (onLost = ROLLBACK): " + outcome + ". The lease (ttl "
                        + lock.ttl()
                        + ") ended while the work still needed it: the work outlasted the ttl, an operator"
                        + " force-released the lock, or renewals (autoExtend) could not reach the store",
                lock.name(),
                lock.storeName(),
                cause);
    }

    /**
     * The inner half of {@code OnLost.ROLLBACK}, called by {@link ExclusiveTransactionInterceptor} inside whatever
     * transaction the method runs in: has the transaction check the hold before it commits (and, where the
     * container tells the transaction, be marked rollback-only as soon as a renewal finds the hold lost), then
     * checks the hold when the method returns, marking the transaction rollback-only and throwing
     * {@link LockLostException} if it is gone. Any other call passes straight through.
     */
    Object invokeInTransaction(InvocationContext context) throws Exception {
        LockedCall call = LockedCall.innermost();
        if (call == null
                || call.kind == LockedCall.Kind.NESTED
                || call.plan.onLost() != OnLost.ROLLBACK
                || call.target != context.getTarget()
                || !transactions.active()) {
            return context.proceed();
        }
        transactions.guard(call);
        call.guarded = true;
        Object result = context.proceed();
        if (lost(call.lock)) {
            transactions.setRollbackOnly();
            throw lockLost(call, "its transaction is marked rollback-only");
        }
        return result;
    }

    /** Runs the method as the work of {@code call}'s hold on this thread. */
    private static Object run(LockedCall call, InvocationContext context) throws Exception {
        call.enter();
        try {
            return context.proceed();
        } finally {
            call.exit();
        }
    }

    /**
     * The bean class comes from the target rather than from {@code @Intercepted Bean<?>}, which Weld cannot always
     * tell (then logging each interceptor instance it creates) and EJB containers need not supply.
     */
    private MethodPlan plan(InvocationContext context) {
        Object target = context.getTarget();
        Map<Method, MethodPlan> methods =
                target == null ? null : byTargetClass.computeIfAbsent(target.getClass(), this::nearestPlanned);
        MethodPlan plan = methods == null ? null : methods.get(context.getMethod());
        if (plan == null) {
            Class<?> shown =
                    target != null ? target.getClass() : context.getMethod().getDeclaringClass();
            throw new IllegalStateException("@Exclusive on " + Planner.display(shown, context.getMethod())
                    + " has no plan: its bean was not discovered as a managed bean or EJB when the application"
                    + " started");
        }
        return plan;
    }

    /** @return the plans of {@code type} or of its nearest planned superclass; {@code null} if none is planned */
    private Map<Method, MethodPlan> nearestPlanned(Class<?> type) {
        for (Class<?> at = type; at != null && at != Object.class; at = at.getSuperclass()) {
            Map<Method, MethodPlan> methods = plans.get(at);
            if (methods != null) {
                return methods;
            }
        }
        return null;
    }

    private void release(String key, Lock lock) {
        if (!transactions.deferRelease(key, lock)) {
            releaseNow(lock);
        }
    }

    /** Releases after the work succeeded: a release that cannot reach the store must not turn success into failure. */
    static void releaseNow(Lock lock) {
        try {
            lock.release();
        } catch (RuntimeException e) {
            LOG.log(
                    Level.WARNING,
                    "Lock '" + lock.name() + "' in store '" + lock.storeName() + "': the method"
                            + " completed but the release failed; the lock frees itself when its lease ends in at most "
                            + lock.ttl(),
                    Secrets.rulesOnly().mask(e));
            if (lock instanceof DefaultLock handle) {
                handle.abandon(); // one handle per call: nobody sends this release again
            }
        }
    }

    /**
     * The holder's remaining lease comes from the handle's own failed attempt ({@link Lock#busyFor()}): a busy
     * answer costs no listing of the store.
     */
    private static Object busy(MethodPlan plan, Lock lock) {
        if (plan.onBusy() == OnBusy.SKIP) {
            return plan.returns().skipped();
        }
        String tried = plan.maxWait().isZero() ? "one attempt" : "a wait of " + plan.maxWait();
        throw new LockBusyException(
                "Lock '" + lock.name() + "' in store '" + plan.storeName() + "' is held by"
                        + " someone else: @Exclusive on " + plan.display() + " gave up after " + tried,
                lock.name(),
                plan.storeName(),
                lock.busyFor().orElse(null));
    }
}
