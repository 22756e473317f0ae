package dev.exclusive.cdi.internal;

import dev.exclusive.Lock;
import dev.exclusive.LockListener;
import dev.exclusive.LockStoreUnavailableException;
import jakarta.enterprise.inject.spi.BeanManager;
import java.time.Duration;

/**
 * The registry's listener for OpenTelemetry metrics, added while the container starts and attached to the
 * server's {@code OpenTelemetry} bean once the application has started (when application-scoped beans such as
 * MicroProfile Telemetry's can be used). Until then, and for good when there is no such bean, it does nothing.
 *
 * <p>This class names no OpenTelemetry type, so that it loads where the API is absent; {@link OpenTelemetryBeans}
 * does, and is loaded only after {@link #ifApiPresent} found the API.
 */
final class TelemetryListener implements LockListener {

    static final String API_CLASS = "io.opentelemetry.api.OpenTelemetry";
    static final String LISTENER_CLASS = "dev.exclusive.otel.LockTelemetry";

    private volatile LockListener target;

    private TelemetryListener() {}

    /**
     * @param loader the application's class loader
     * @return a listener waiting for {@link #attach}; {@code null} if the OpenTelemetry API is not visible to the
     *         application, or lock-otel is missing (no metrics then, and no linkage error)
     */
    static TelemetryListener ifApiPresent(ClassLoader loader) {
        try {
            Class.forName(API_CLASS, false, loader);
            ClassLoader ours = TelemetryListener.class.getClassLoader();
            Class.forName(API_CLASS, false, ours);
            Class.forName(LISTENER_CLASS, false, ours);
            return new TelemetryListener();
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
    }

    /**
     * Starts recording through the container's {@code OpenTelemetry} bean, if there is one.
     *
     * @return whether a bean was found
     */
    boolean attach(BeanManager beanManager) {
        LockListener found = OpenTelemetryBeans.listener(beanManager);
        target = found;
        return found != null;
    }

    @Override
    public void acquired(Lock lock, Duration waited) {
        LockListener to = target;
        if (to != null) {
            to.acquired(lock, waited);
        }
    }

    @Override
    public void busy(Lock lock, Duration waited) {
        LockListener to = target;
        if (to != null) {
            to.busy(lock, waited);
        }
    }

    @Override
    public void timedOut(Lock lock, Duration waited) {
        LockListener to = target;
        if (to != null) {
            to.timedOut(lock, waited);
        }
    }

    @Override
    public void interrupted(Lock lock, Duration waited) {
        LockListener to = target;
        if (to != null) {
            to.interrupted(lock, waited);
        }
    }

    @Override
    public void failed(Lock lock, Operation operation, Duration elapsed, LockStoreUnavailableException error) {
        LockListener to = target;
        if (to != null) {
            to.failed(lock, operation, elapsed, error);
        }
    }

    @Override
    public void released(Lock lock, Duration held) {
        LockListener to = target;
        if (to != null) {
            to.released(lock, held);
        }
    }

    @Override
    public void expired(Lock lock, Duration held) {
        LockListener to = target;
        if (to != null) {
            to.expired(lock, held);
        }
    }

    @Override
    public void lost(Lock lock) {
        LockListener to = target;
        if (to != null) {
            to.lost(lock);
        }
    }

    @Override
    public void renewalFailed(Lock lock, RuntimeException error) {
        LockListener to = target;
        if (to != null) {
            to.renewalFailed(lock, error);
        }
    }

    @Override
    public void forceReleased(String storeName, String name, String group, boolean released) {
        LockListener to = target;
        if (to != null) {
            to.forceReleased(storeName, name, group, released);
        }
    }

    /** Detaches the metrics from the container's OpenTelemetry, which outlives this application. */
    void close() {
        LockListener to = target;
        target = null;
        if (to instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                throw new IllegalStateException("Exclusive's lock metrics could not be detached: " + e, e);
            }
        }
    }

    @Override
    public String toString() {
        LockListener to = target;
        return "TelemetryListener[" + (to == null ? "no OpenTelemetry bean" : to) + "]";
    }
}
