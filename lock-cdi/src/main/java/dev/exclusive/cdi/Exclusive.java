package dev.exclusive.cdi;

import dev.exclusive.OnLost;
import jakarta.enterprise.util.Nonbinding;
import jakarta.interceptor.InterceptorBinding;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.temporal.ChronoUnit;

/**
 * Runs the annotated method (or every business method of the annotated class) while holding a lock, so that one
 * caller at a time runs it across threads, processes and servers that share the store.
 *
 * <pre>{@code
 * @Exclusive(value = "purchase:product:{productId}", ttl = 10, maxWait = 3)
 * public Order purchase(long productId, long userId, int quantity) { ... }
 * }</pre>
 *
 * <p>Every attribute can be overridden in MicroProfile Config, the MicroProfile Fault Tolerance way, first match
 * wins: {@code <bean class>/<method>/Exclusive/<attribute>}, {@code <declaring class>/<method>/Exclusive/<attribute>},
 * {@code <bean class>/Exclusive/<attribute>}, {@code <declaring class>/Exclusive/<attribute>},
 * {@code Exclusive/<attribute>}, then the annotation on the method, then the one on the class. The declaring class
 * is the class that declares the method (what MicroProfile Fault Tolerance keys on); it differs from the bean
 * class for an inherited method. Everything is resolved and validated once, at deployment: a bad template,
 * duration or store fails deployment with one message listing every bad method.
 *
 * <p>Inheritance follows CDI's rules for interceptor bindings. A class-level {@code @Exclusive} is
 * {@code @Inherited} by subclasses that declare none; a method-level one is inherited with the method, and lost by
 * an override that does not repeat it. Each bean class gets its own plan for the methods it inherits: two beans
 * {@code JobA extends Job} and {@code JobB extends Job} run {@code Job.run()} under their own class-level
 * annotation and, by default, under their own lock names, {@code <JobA>.run} and {@code <JobB>.run}.
 *
 * <p>The lock is taken before the method (and any {@code @Transactional} transaction it starts) and released
 * after it returns or throws. When the method runs inside a JTA transaction that outlives the call, the release
 * waits for the transaction to complete. A method returning {@code CompletionStage} holds the lock until the
 * stage completes. A call made while the same thread already holds the same lock (in the same store) runs
 * without taking it again and without releasing the outer hold.
 *
 * <p>While the method runs, {@link dev.exclusive.Locks#current()} and {@link dev.exclusive.Locks#assertHeld()} on its
 * thread return its lock (the innermost one, for nested calls), for code that must only run under it or that
 * passes the lock's fence on to a write.
 */
@InterceptorBinding
@Inherited
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface Exclusive {

    /**
     * The lock name: a template over the method's parameters. {@code {productId}} is the parameter of that name
     * (compile with {@code -parameters}), {@code {0}} the first parameter, {@code {order.id}} the property
     * {@code id} of parameter {@code order} (a getter {@code getId()}/{@code isId()} or a record component
     * {@code id()}, resolved from the parameter's declared type). Empty: {@code <bean class>.<method>}, such as
     * {@code com.acme.JobA.run}, also for a method that {@code JobA} inherits.
     *
     * <p>A value renders as its {@code toString()}. Two calls share a lock only if every placeholder renders the same
     * text: with two or more placeholders, each value is percent-escaped (UTF-8) for {@code %} and for the first
     * character of each separator between two placeholders, so in {@code "{from}:{to}"} the values {@code x:y} and
     * {@code z} give {@code x%3Ay:z}, never the {@code x:y:z} of {@code x} and {@code y:z}. Ids, numbers and words
     * without those characters render unchanged, and a template with a single placeholder renders its value as it
     * is. Placeholders that touch ({@code "{a}{b}"}) fail deployment. A {@code null} value (a parameter, or any
     * part of {@code order.id}) makes the call throw {@code InvalidLockNameException} naming the placeholder, the
     * null part and the method, before the lock is tried and the method runs; through Jakarta REST that answers
     * {@code 400 Bad Request}.
     *
     * @return the name template
     */
    @Nonbinding
    String value() default "";

    /** @return how long a hold lasts unless released (or renewed with {@link #autoExtend()}), in {@link #unit()} */
    @Nonbinding
    long ttl() default 30;

    /**
     * How long to wait for a held lock, in {@link #unit()}: {@code 0} tries once ({@code Lock.get()} semantics), more
     * retries until the lock is free or the time runs out ({@code Lock.block(wait)} semantics). Named
     * {@code maxWait} because an annotation cannot declare {@code wait()}, a final method of {@code Object}.
     *
     * @return the longest wait for the lock
     */
    @Nonbinding
    long maxWait() default 0;

    /**
     * How long each hold lasts at least, in {@link #unit()}, measured from its acquisition on the store's clock: a
     * method that returns sooner leaves the lock held until then (its lease is shortened to end at that floor
     * instead of being freed), so another server whose timer fires up to that much later finds it busy.
     * {@code 0} (the default): the lock is freed when the method returns. From {@code 0} to {@link #ttl()}, checked
     * at deployment. For {@code @Schedule @Exclusive(onBusy = SKIP)} jobs that must run once per tick across
     * servers however short the job is: set it a little above the servers' timer skew.
     *
     * @return the minimum hold
     */
    @Nonbinding
    long minHold() default 0;

    /** @return the unit of {@link #ttl()}, {@link #maxWait()} and {@link #minHold()} */
    @Nonbinding
    ChronoUnit unit() default ChronoUnit.SECONDS;

    /** @return a configured store's name ({@code exclusive.store.<name>.type}); empty for the default store */
    @Nonbinding
    String store() default "";

    /** @return what happens when the lock stays busy */
    @Nonbinding
    OnBusy onBusy() default OnBusy.THROW;

    /** @return renew the lease in the background while the method runs, for work of unknown length */
    @Nonbinding
    boolean autoExtend() default false;

    /**
     * What happens when the lease ends while the method still runs: a renewal of {@link #autoExtend()} finds it
     * gone (an operator force-released it, the store was unreachable for a whole ttl), or the method outlasted the
     * ttl. Every policy logs the loss and fires {@link LockLost} when a renewal finds it; they differ in what they do
     * to the method's work:
     * <ul>
     * <li>{@link OnLost#LOG} (the default): nothing; the result stands.</li>
     * <li>{@link OnLost#INTERRUPT}: the thread running the method is interrupted as soon as a renewal finds the
     * loss, so work that checks its interrupt flag or blocks interruptibly stops early. Needs {@link #autoExtend()}
     * (only a renewal finds the loss while the method runs); not for a method returning {@code CompletionStage}
     * (the threads that complete the stage are not known). Both fail deployment.</li>
     * <li>{@link OnLost#ROLLBACK}: the method's result must not stand without the lock. Inside a JTA transaction
     * (container-managed, the caller's, or one that {@code @Transactional} begins), the transaction is marked
     * rollback-only as soon as a renewal finds the loss (when the container exposes its
     * {@code TransactionManager}), the hold is checked against the store when the method returns (one round trip)
     * and again just before the commit; a hold that is gone rolls the transaction back, and the caller gets a
     * {@link dev.exclusive.LockLostException} naming the lock (from an EJB, as the cause of the container's
     * exception). Outside a transaction, the hold is checked once when the method returns, and a method returning
     * {@code CompletionStage} when its stage completes: a hold that is gone turns the result into a
     * {@code LockLostException}. A lease can still end between the last check and the commit: a
     * {@linkplain dev.exclusive.Lock#fence() fence} written with the data closes that window.</li>
     * </ul>
     *
     * @return the policy for a lease that ends while the method runs
     */
    @Nonbinding
    OnLost onLost() default OnLost.LOG;
}
