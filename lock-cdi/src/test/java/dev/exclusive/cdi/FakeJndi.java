package dev.exclusive.cdi;

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
 * JNDI as a Jakarta EE server offers it, for tests: names bound in {@link #BOUND} and nothing else. Active while
 * {@link #install()} is in effect ({@code java.naming.factory.initial} names this class); close it to restore plain
 * Java SE, where {@code new InitialContext().lookup(..)} has no initial context at all.
 */
public final class FakeJndi implements InitialContextFactory {

    static final Map<String, Object> BOUND = new ConcurrentHashMap<>();

    /** The names looked up since {@link #install}, in order. */
    static final List<String> LOOKUPS = new CopyOnWriteArrayList<>();

    /** Restores the previous {@code java.naming.factory.initial} and unbinds everything. */
    interface Installed extends AutoCloseable {
        @Override
        void close();
    }

    static Installed install(Map<String, Object> names) {
        String previous = System.getProperty(Context.INITIAL_CONTEXT_FACTORY);
        BOUND.putAll(names);
        LOOKUPS.clear();
        System.setProperty(Context.INITIAL_CONTEXT_FACTORY, FakeJndi.class.getName());
        return () -> {
            if (previous == null) {
                System.clearProperty(Context.INITIAL_CONTEXT_FACTORY);
            } else {
                System.setProperty(Context.INITIAL_CONTEXT_FACTORY, previous);
            }
            BOUND.clear();
            LOOKUPS.clear();
        };
    }

    @Override
    public Context getInitialContext(Hashtable<?, ?> environment) {
        return (Context) Proxy.newProxyInstance(
                FakeJndi.class.getClassLoader(), new Class<?>[] {Context.class}, (proxy, method, arguments) -> {
                    switch (method.getName()) {
                        case "lookup":
                            LOOKUPS.add(String.valueOf(arguments[0]));
                            Object bound = BOUND.get(String.valueOf(arguments[0]));
                            if (bound == null) {
                                throw new NameNotFoundException(arguments[0] + " is not bound");
                            }
                            return bound;
                        case "close":
                            return null;
                        case "toString":
                            return "FakeJndi" + BOUND.keySet();
                        default:
                            throw new OperationNotSupportedException(method.getName());
                    }
                });
    }
}
