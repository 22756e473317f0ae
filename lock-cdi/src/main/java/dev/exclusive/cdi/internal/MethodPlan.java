package dev.exclusive.cdi.internal;

import dev.exclusive.Lock;
import dev.exclusive.LockRegistry;
import dev.exclusive.OnLost;
import dev.exclusive.cdi.OnBusy;
import java.lang.reflect.Method;
import java.time.Duration;

/**
 * Everything the interceptor needs for one {@code @Exclusive} method, resolved once at deployment from the
 * annotations and their MicroProfile Config overrides. Immutable.
 *
 * @param beanClass   the bean class whose calls this plan serves (a subclass of the method's declaring class, or it)
 * @param method      the intercepted method
 * @param display     {@code com.acme.Imports#run(String)}, for messages; the bean class, and where the method is
 *                    declared if elsewhere
 * @param purpose     {@code Imports#run} (the bean class's simple name), recorded with each hold
 * @param name        the compiled lock name template
 * @param storeName   the store's configured name
 * @param ttl         the lease of each hold
 * @param maxWait     how long to wait for a busy lock; zero for one attempt
 * @param minHold     how long each hold lasts at least; zero for none
 * @param onBusy      what a busy lock does
 * @param autoExtend  whether the lease is renewed while the method runs
 * @param onLost      what a lease that ends while the method runs does to it
 * @param returns     the method's return shape: asynchronous or not, and its skip value
 * @param registry    the registry view over {@code storeName}; {@code null} until the stores are running
 */
record MethodPlan(
        Class<?> beanClass,
        Method method,
        String display,
        String purpose,
        NameTemplate name,
        String storeName,
        Duration ttl,
        Duration maxWait,
        Duration minHold,
        OnBusy onBusy,
        boolean autoExtend,
        OnLost onLost,
        ReturnShape returns,
        LockRegistry registry) {

    MethodPlan bind(LockRegistry stores) {
        return new MethodPlan(
                beanClass,
                method,
                display,
                purpose,
                name,
                storeName,
                ttl,
                maxWait,
                minHold,
                onBusy,
                autoExtend,
                onLost,
                returns,
                stores.store(storeName));
    }

    /** @return a new handle for {@code lockName} with this plan's options; it acquires nothing yet */
    Lock lock(String lockName) {
        // grouped by the template, not the expanded name: one metrics series per method, however many locks
        Lock lock = registry.lock(lockName, ttl).purpose(purpose).group(name.template());
        if (autoExtend) {
            lock.autoExtend(); // an option of this handle: the renewed lease is the one acquired and released
        }
        if (!minHold.isZero()) {
            lock.minHold(minHold); // validated against the ttl at deployment
        }
        if (onLost != OnLost.LOG) {
            lock.onLost(onLost);
        }
        return lock;
    }

    @Override
    public String toString() {
        return "@Exclusive(value = \"" + name.template() + "\", store = " + storeName + ", ttl = " + ttl
                + ", maxWait = " + maxWait + ", minHold = " + minHold + ", onBusy = " + onBusy + ", autoExtend = "
                + autoExtend + ") on "
                + display;
    }
}
