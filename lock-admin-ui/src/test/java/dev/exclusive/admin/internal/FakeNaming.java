package dev.exclusive.admin.internal;

import java.lang.reflect.Proxy;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.naming.Context;
import javax.naming.NameNotFoundException;
import javax.naming.OperationNotSupportedException;
import javax.naming.spi.InitialContextFactory;

/**
 * A container's naming, as far as the console uses it: {@code new InitialContext().lookup(name)} while the system
 * property {@value Context#INITIAL_CONTEXT_FACTORY} names this class.
 */
public class FakeNaming implements InitialContextFactory {

    private static final Map<String, Object> BINDINGS = new ConcurrentHashMap<>();
    private static final List<String> LOOKUPS = new CopyOnWriteArrayList<>();

    /** Makes {@code new InitialContext()} answer from {@code bindings} until {@link #uninstall()}. */
    static void install(Map<String, Object> bindings) {
        BINDINGS.clear();
        BINDINGS.putAll(bindings);
        LOOKUPS.clear();
        System.setProperty(Context.INITIAL_CONTEXT_FACTORY, FakeNaming.class.getName());
    }

    static void uninstall() {
        System.clearProperty(Context.INITIAL_CONTEXT_FACTORY);
        BINDINGS.clear();
        LOOKUPS.clear();
    }

    /** @return the names looked up since {@link #install}, in order */
    static List<String> lookups() {
        return List.copyOf(LOOKUPS);
    }

    @Override
    public Context getInitialContext(Hashtable<?, ?> environment) {
        return (Context) Proxy.newProxyInstance(
                FakeNaming.class.getClassLoader(), new Class<?>[] {Context.class}, (proxy, method, arguments) -> {
                    switch (method.getName()) {
                        case "lookup" -> {
                            String name = String.valueOf(arguments[0]);
                            LOOKUPS.add(name);
                            Object bound = BINDINGS.get(name);
                            if (bound == null) {
                                throw new NameNotFoundException(name);
                            }
                            return bound;
                        }
                        case "close" -> {
                            return null;
                        }
                        case "hashCode" -> {
                            return System.identityHashCode(proxy);
                        }
                        case "equals" -> {
                            return proxy == arguments[0];
                        }
                        case "toString" -> {
                            return "FakeNaming" + BINDINGS.keySet();
                        }
                        default -> throw new OperationNotSupportedException(method.getName());
                    }
                });
    }
}
