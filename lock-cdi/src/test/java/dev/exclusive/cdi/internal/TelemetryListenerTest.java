package dev.exclusive.cdi.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An application without the OpenTelemetry API gets no metrics, and no linkage error. */
class TelemetryListenerTest {

    /**
     * Loads Exclusive's classes itself, from the same jars and folders as the test, and hides OpenTelemetry's: an
     * application whose server has no MicroProfile Telemetry (or does not show its API).
     */
    static final class WithoutOpenTelemetry extends URLClassLoader {
        WithoutOpenTelemetry(URL[] urls, ClassLoader parent) {
            super(urls, parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.startsWith("io.opentelemetry.")) {
                throw new ClassNotFoundException(name + " is hidden from this application");
            }
            if (name.startsWith("dev.exclusive.")) {
                synchronized (getClassLoadingLock(name)) {
                    Class<?> loaded = findLoadedClass(name);
                    if (loaded == null) {
                        loaded = findClass(name);
                    }
                    if (resolve) {
                        resolveClass(loaded);
                    }
                    return loaded;
                }
            }
            return super.loadClass(name, resolve);
        }
    }

    private static WithoutOpenTelemetry applicationWithoutOpenTelemetry() throws Exception {
        List<URL> urls = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            urls.add(Path.of(entry).toUri().toURL());
        }
        return new WithoutOpenTelemetry(urls.toArray(URL[]::new), TelemetryListenerTest.class.getClassLoader());
    }

    @Test
    void withoutTheApiThereIsNoListenerAndNothingFailsToLink() throws Exception {
        try (WithoutOpenTelemetry loader = applicationWithoutOpenTelemetry()) {
            // the loader really hides it: lock-otel's listener cannot even be initialized there
            assertThatThrownBy(() -> Class.forName("dev.exclusive.otel.LockTelemetry", true, loader))
                    .isInstanceOf(NoClassDefFoundError.class);

            Class<?> gate = Class.forName(TelemetryListener.class.getName(), true, loader);
            assertThat(gate.getClassLoader()).isSameAs(loader);
            Method ifApiPresent = gate.getDeclaredMethod("ifApiPresent", ClassLoader.class);
            ifApiPresent.setAccessible(true);
            assertThat(ifApiPresent.invoke(null, loader)).isNull();

            // the extension that calls it loads and links there too
            Class<?> extension = Class.forName(ExclusiveExtension.class.getName(), true, loader);
            assertThat(extension.getDeclaredConstructor().newInstance()).isNotNull();
        }
    }

    @Test
    void withTheApiThereIsAListenerThatRecordsNothingUntilAttached() {
        TelemetryListener listener = TelemetryListener.ifApiPresent(getClass().getClassLoader());
        assertThat(listener).isNotNull();
        assertThat(listener.toString()).contains("no OpenTelemetry bean");
    }
}
