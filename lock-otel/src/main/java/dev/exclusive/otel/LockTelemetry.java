package dev.exclusive.otel;

import dev.exclusive.Lock;
import dev.exclusive.LockListener;
import dev.exclusive.LockNames;
import dev.exclusive.LockStoreUnavailableException;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.DoubleHistogramBuilder;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.ObservableLongUpDownCounter;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Metrics and span events for every lock of a registry, through the OpenTelemetry API: add it as a listener.
 *
 * <pre>{@code
 * LockRegistry registry = LockRegistry.builder()
 *         .store("shared", RedisLockStore.create(uri))
 *         .listener(LockTelemetry.of(openTelemetry))
 *         .build();
 * }</pre>
 *
 * <p>Instruments, from the meter {@value #SCOPE}, each with the attributes {@value #STORE} (the store's configured
 * name) and {@value #LOCK} (the lock's {@linkplain Lock#group() group}: the name template of an {@code @Exclusive}
 * method, the group a handle was given, or else {@link LockNames#group(String)} of its name — never the expanded
 * per-request name):
 *
 * <table>
 * <caption>Instruments</caption>
 * <tr><th>name</th><th>kind, unit</th><th>what</th></tr>
 * <tr><td>{@value #ACQUIRE_DURATION}</td><td>histogram, s</td><td>from the call ({@code get}, {@code block}) to its
 * outcome; attribute {@value #OUTCOME}: {@code acquired}, {@code busy} (one attempt found it held),
 * {@code timeout} (a wait ran out), {@code interrupted} (the waiting thread was interrupted) or {@code error} (the
 * store could not be reached)</td></tr>
 * <tr><td>{@value #HELD_DURATION}</td><td>histogram, s</td><td>from the acquisition to a release that freed the
 * lock</td></tr>
 * <tr><td>{@value #HELD}</td><td>up-down counter, {lock}</td><td>holds acquired through this registry that have not
 * ended: by a release, a release that found the lease run out, the handle's next acquisition after it ran out, or
 * the end of {@code get(work)} or an {@code @Exclusive} method whose release failed (summed over servers: the locks
 * held now)</td></tr>
 * <tr><td>{@value #LOST}</td><td>counter</td><td>leases an auto-extending handle found gone</td></tr>
 * <tr><td>{@value #FORCE_RELEASED}</td><td>counter</td><td>force-releases that freed a live lock</td></tr>
 * <tr><td>{@value #RENEWAL_FAILURES}</td><td>counter</td><td>background renewals that could not reach the
 * store</td></tr>
 * <tr><td>{@value #STORE_ERRORS}</td><td>counter</td><td>acquisitions, releases and extensions that could not
 * reach the store; attribute {@value #OPERATION}: {@code acquire}, {@code release}, {@code extend}</td></tr>
 * </table>
 *
 * <p>Cardinality stays bounded: besides the group rule, at most {@value #MAX_SERIES} store and group pairs get
 * series of their own; the ones after that are counted under the group {@value #OTHER}. Every outcome of every pair
 * then fits in the SDK's default limit of 2,000 attribute sets per instrument.
 *
 * <p>Span events, on the {@linkplain Span#current() current span} when there is one: {@code exclusive.lock.acquired},
 * {@code exclusive.lock.busy} (also for a timed-out wait and a store error, with {@value #OUTCOME}) and
 * {@code exclusive.lock.released}, with the store, the group, the full lock name and the wait or hold in seconds,
 * so that a trace shows where a request waited for a lock.
 *
 * <p>Thread-safe. Each event costs a map lookup and at most one instrument call; the locks held are counted in
 * memory and read by the SDK when it collects. The measured overhead is in the project's README. {@link #close()}
 * detaches that reading from the SDK, for an application that stops while the {@code OpenTelemetry} lives on.
 */
public final class LockTelemetry implements LockListener, AutoCloseable {

    /** The instrumentation scope: the meter's name. */
    public static final String SCOPE = "dev.exclusive";
    /** Attribute: the store's configured name. */
    public static final String STORE = "exclusive.store";
    /** Attribute: the lock's group (name template). */
    public static final String LOCK = "exclusive.lock";
    /** Attribute of {@value #ACQUIRE_DURATION}: how the acquisition ended. */
    public static final String OUTCOME = "outcome";
    /** Attribute of {@value #STORE_ERRORS}: what the handle asked the store. */
    public static final String OPERATION = "operation";
    /** Histogram: from the call to the acquisition's outcome, in seconds. */
    public static final String ACQUIRE_DURATION = "exclusive.lock.acquire.duration";
    /** Histogram: from the acquisition to the release, in seconds. */
    public static final String HELD_DURATION = "exclusive.lock.held.duration";
    /** Up-down counter: holds acquired and not yet released. */
    public static final String HELD = "exclusive.lock.held";
    /** Counter: leases found lost by renewal. */
    public static final String LOST = "exclusive.lock.lost";
    /** Counter: force-releases that freed a lock. */
    public static final String FORCE_RELEASED = "exclusive.lock.force_released";
    /** Counter: background renewals that could not reach the store. */
    public static final String RENEWAL_FAILURES = "exclusive.lock.renewal.failures";
    /** Counter: store operations that could not reach the store. */
    public static final String STORE_ERRORS = "exclusive.lock.store.errors";
    /**
     * The most store and group pairs that get series of their own: five outcomes each, and those of the stores'
     * {@value #OTHER} groups, stay within the OpenTelemetry SDK's default of 2,000 attribute sets per instrument,
     * past which the SDK merges new series into one {@code otel.metric.overflow} series.
     */
    public static final int MAX_SERIES = 300;
    /** The group every pair past {@value #MAX_SERIES} is counted under. */
    public static final String OTHER = "_other";

    private static final AttributeKey<String> STORE_KEY = AttributeKey.stringKey(STORE);
    private static final AttributeKey<String> LOCK_KEY = AttributeKey.stringKey(LOCK);
    private static final AttributeKey<String> OUTCOME_KEY = AttributeKey.stringKey(OUTCOME);
    private static final AttributeKey<String> OPERATION_KEY = AttributeKey.stringKey(OPERATION);
    private static final AttributeKey<String> NAME_KEY = AttributeKey.stringKey("exclusive.lock.name");
    private static final AttributeKey<Double> SECONDS_KEY = AttributeKey.doubleKey("exclusive.seconds");

    /** From 100 µs (an uncontended in-memory hold) to 10 minutes (a long job or a long wait). */
    private static final List<Double> SECONDS_BUCKETS = List.of(
            0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
            60.0, 120.0, 300.0, 600.0);

    private final DoubleHistogram acquireDuration;
    private final DoubleHistogram heldDuration;
    private final ObservableLongUpDownCounter held;
    private final LongCounter lost;
    private final LongCounter forceReleased;
    private final LongCounter renewalFailures;
    private final LongCounter storeErrors;

    private final Map<String, Map<String, Series>> series = new ConcurrentHashMap<>();
    private final AtomicInteger seriesCount = new AtomicInteger();

    /** The attribute sets of one store and group, built once. */
    private static final class Series {
        final Attributes base;
        final Attributes acquired;
        final Attributes busy;
        final Attributes timeout;
        final Attributes error;
        final Attributes interrupted;
        final Map<Operation, Attributes> errors = new EnumMap<>(Operation.class);
        /** Holds acquired and not yet released; read by the {@value #HELD} callback. */
        final LongAdder held = new LongAdder();

        Series(String store, String group) {
            base = Attributes.of(STORE_KEY, store, LOCK_KEY, group);
            acquired = outcome("acquired");
            busy = outcome("busy");
            timeout = outcome("timeout");
            error = outcome("error");
            interrupted = outcome("interrupted");
            for (Operation operation : Operation.values()) {
                errors.put(
                        operation,
                        base.toBuilder()
                                .put(OPERATION_KEY, operation.name().toLowerCase(java.util.Locale.ROOT))
                                .build());
            }
        }

        private Attributes outcome(String outcome) {
            return base.toBuilder().put(OUTCOME_KEY, outcome).build();
        }
    }

    private LockTelemetry(Meter meter) {
        acquireDuration = seconds(meter.histogramBuilder(ACQUIRE_DURATION)
                .setUnit("s")
                .setDescription("From a lock call to its outcome, waits included"));
        heldDuration = seconds(meter.histogramBuilder(HELD_DURATION)
                .setUnit("s")
                .setDescription("From a lock's acquisition to its release"));
        // observed, not recorded: an increment of a LongAdder is cheaper than an instrument call on every event
        held = meter.upDownCounterBuilder(HELD)
                .setUnit("{lock}")
                .setDescription("Locks acquired and not yet released")
                .buildWithCallback(measurement -> series.values()
                        .forEach(
                                byGroup -> byGroup.values().forEach(of -> measurement.record(of.held.sum(), of.base))));
        lost = meter.counterBuilder(LOST)
                .setUnit("{lease}")
                .setDescription("Leases an auto-extending handle found gone while its work ran")
                .build();
        forceReleased = meter.counterBuilder(FORCE_RELEASED)
                .setUnit("{lock}")
                .setDescription("Force-releases that freed a live lock")
                .build();
        renewalFailures = meter.counterBuilder(RENEWAL_FAILURES)
                .setUnit("{renewal}")
                .setDescription("Background lease renewals that could not reach the store")
                .build();
        storeErrors = meter.counterBuilder(STORE_ERRORS)
                .setUnit("{error}")
                .setDescription("Acquisitions, releases and extensions that could not reach the store")
                .build();
    }

    /**
     * @param openTelemetry the application's or the server's; its meter {@value #SCOPE} gets the instruments
     * @return a listener that records every lock event of the registries it is added to
     */
    public static LockTelemetry of(OpenTelemetry openTelemetry) {
        Objects.requireNonNull(openTelemetry, "openTelemetry");
        String version = LockTelemetry.class.getPackage().getImplementationVersion();
        Meter meter = version == null
                ? openTelemetry.getMeter(SCOPE)
                : openTelemetry
                        .meterBuilder(SCOPE)
                        .setInstrumentationVersion(version)
                        .build();
        return new LockTelemetry(meter);
    }

    /**
     * Builds a histogram of seconds with {@link #SECONDS_BUCKETS}, or with the SDK's default buckets where the
     * server's OpenTelemetry API is older than 1.32 and has no bucket advice (Payara 6 provides such an API to the
     * application): the metric is less fine there, but the application starts.
     */
    private static DoubleHistogram seconds(DoubleHistogramBuilder builder) {
        DoubleHistogramBuilder advised;
        try {
            advised = builder.setExplicitBucketBoundariesAdvice(SECONDS_BUCKETS);
        } catch (NoSuchMethodError olderApi) {
            advised = builder;
        }
        return advised.build();
    }

    private Series series(String store, String group) {
        Map<String, Series> byGroup = series.get(store);
        if (byGroup == null) {
            byGroup = series.computeIfAbsent(store, s -> new ConcurrentHashMap<>());
        }
        Series found = byGroup.get(group);
        if (found != null) {
            return found;
        }
        if (seriesCount.get() >= MAX_SERIES) {
            group = OTHER;
            found = byGroup.get(OTHER);
            if (found != null) {
                return found;
            }
        }
        return byGroup.computeIfAbsent(group, g -> {
            seriesCount.incrementAndGet();
            return new Series(store, g);
        });
    }

    private Series series(Lock lock) {
        return series(lock.storeName(), lock.group());
    }

    private static double seconds(Duration duration) {
        return duration.toNanos() / 1e9;
    }

    @Override
    public void acquired(Lock lock, Duration waited) {
        Series of = series(lock);
        of.held.increment();
        recordWithEvent(acquireDuration, "exclusive.lock.acquired", lock, of.acquired, waited);
    }

    @Override
    public void busy(Lock lock, Duration waited) {
        Series of = series(lock);
        recordWithEvent(acquireDuration, "exclusive.lock.busy", lock, of.busy, waited);
    }

    @Override
    public void timedOut(Lock lock, Duration waited) {
        Series of = series(lock);
        recordWithEvent(acquireDuration, "exclusive.lock.busy", lock, of.timeout, waited);
    }

    @Override
    public void interrupted(Lock lock, Duration waited) {
        Series of = series(lock);
        recordWithEvent(acquireDuration, "exclusive.lock.busy", lock, of.interrupted, waited);
    }

    @Override
    public void failed(Lock lock, Operation operation, Duration elapsed, LockStoreUnavailableException error) {
        Series of = series(lock);
        storeErrors.add(1, of.errors.get(operation));
        if (operation == Operation.ACQUIRE) {
            recordWithEvent(acquireDuration, "exclusive.lock.busy", lock, of.error, elapsed);
        }
    }

    @Override
    public void released(Lock lock, Duration heldFor) {
        Series of = series(lock);
        of.held.decrement();
        recordWithEvent(heldDuration, "exclusive.lock.released", lock, of.base, heldFor);
    }

    @Override
    public void expired(Lock lock, Duration heldFor) {
        series(lock).held.decrement();
    }

    @Override
    public void lost(Lock lock) {
        lost.add(1, series(lock).base);
    }

    @Override
    public void renewalFailed(Lock lock, RuntimeException error) {
        renewalFailures.add(1, series(lock).base);
    }

    @Override
    public void forceReleased(String storeName, String name, String group, boolean released) {
        if (released) {
            forceReleased.add(1, series(storeName, group).base);
        }
    }

    /**
     * Records a duration, and adds it as an event to the current span if a trace is being recorded (nothing is
     * built otherwise). The current context is looked up once, for both: the SDK links exemplars through it.
     */
    private static void recordWithEvent(
            DoubleHistogram histogram, String event, Lock lock, Attributes attributes, Duration duration) {
        Context context = Context.current();
        double seconds = seconds(duration);
        histogram.record(seconds, attributes, context);
        Span span = Span.fromContext(context);
        if (span.isRecording()) {
            span.addEvent(
                    event,
                    attributes.toBuilder()
                            .put(NAME_KEY, lock.name())
                            .put(SECONDS_KEY, seconds)
                            .build());
        }
    }

    /** Stops reporting {@value #HELD} to the SDK; the other instruments stay, as the OpenTelemetry API keeps them. */
    @Override
    public void close() {
        held.close();
    }

    @Override
    public String toString() {
        return "LockTelemetry[" + seriesCount.get() + " series]";
    }
}
