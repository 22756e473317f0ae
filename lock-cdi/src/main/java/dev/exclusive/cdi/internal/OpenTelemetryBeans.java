package dev.exclusive.cdi.internal;

import dev.exclusive.LockListener;
import dev.exclusive.otel.LockTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import java.util.Set;

/** The container's {@code OpenTelemetry} bean (MicroProfile Telemetry's). Loaded only where the API is visible. */
final class OpenTelemetryBeans {

    private OpenTelemetryBeans() {}

    /** @return a metrics listener over the container's {@code OpenTelemetry} bean; {@code null} if there is none */
    static LockListener listener(BeanManager beanManager) {
        Set<Bean<?>> beans = beanManager.getBeans(OpenTelemetry.class);
        if (beans.isEmpty()) {
            return null;
        }
        Bean<?> bean = beanManager.resolve(beans);
        OpenTelemetry openTelemetry = (OpenTelemetry)
                beanManager.getReference(bean, OpenTelemetry.class, beanManager.createCreationalContext(bean));
        return LockTelemetry.of(openTelemetry);
    }
}
