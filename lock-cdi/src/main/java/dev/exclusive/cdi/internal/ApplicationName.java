package dev.exclusive.cdi.internal;

import dev.exclusive.LockNames;
import java.util.List;
import java.util.Optional;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.naming.NoInitialContextException;

/**
 * The name a Jakarta EE container gives the application: JNDI {@code java:app/AppName}, else
 * {@code java:module/ModuleName}. Shared stores without a configured prefix use it as their prefix, so that two
 * applications on one Redis, database or folder keep apart.
 */
final class ApplicationName {

    static final List<String> JNDI_NAMES = List.of("java:app/AppName", "java:module/ModuleName");

    private ApplicationName() {}

    /** @return the application's name; empty in Java SE (no JNDI at all) or when the container gives none */
    static Optional<String> lookup() {
        for (String jndiName : JNDI_NAMES) {
            try {
                InitialContext context = new InitialContext();
                try {
                    if (context.lookup(jndiName) instanceof String name && !name.isBlank()) {
                        return Optional.of(name.strip());
                    }
                } finally {
                    context.close();
                }
            } catch (NoInitialContextException e) {
                return Optional.empty(); // Java SE: no JNDI to ask
            } catch (NamingException | RuntimeException e) {
                // not bound here: try the next name
            }
        }
        return Optional.empty();
    }

    /**
     * @param name the application's name
     * @return {@code <name>:}, without control characters and cut to fit a store prefix (at most 55 characters)
     */
    static String prefix(String name) {
        StringBuilder prefix = new StringBuilder();
        name.codePoints()
                .filter(codePoint -> !Character.isISOControl(codePoint))
                .forEach(prefix::appendCodePoint);
        int room = LockNames.MAX_PREFIX_LENGTH - 1;
        if (prefix.length() > room) {
            int end = Character.isHighSurrogate(prefix.charAt(room - 1)) ? room - 1 : room;
            prefix.setLength(end);
        }
        return prefix.append(':').toString();
    }
}
