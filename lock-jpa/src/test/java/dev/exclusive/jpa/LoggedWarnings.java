package dev.exclusive.jpa;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * The warnings and errors one logger logs while this is open, each as its level and its message formatted as an
 * operator reads it ({@code System.Logger} and Hibernate's JBoss Logging go to {@code java.util.logging} on the tests'
 * class path).
 */
final class LoggedWarnings extends Handler implements AutoCloseable {

    private static final SimpleFormatter FORMAT = new SimpleFormatter();

    private final Logger logger;
    private final List<String> messages = new CopyOnWriteArrayList<>();

    private LoggedWarnings(String loggerName) {
        logger = Logger.getLogger(loggerName);
        logger.addHandler(this);
    }

    /** @return a recorder of what {@code loggerName} logs at WARNING or above, from now until {@link #close()} */
    static LoggedWarnings record(String loggerName) {
        return new LoggedWarnings(loggerName);
    }

    /** @return the records so far, oldest first, as {@code "LEVEL message"} */
    List<String> messages() {
        return List.copyOf(messages);
    }

    @Override
    public void publish(LogRecord record) {
        if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
            messages.add(record.getLevel() + " " + FORMAT.formatMessage(record));
        }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {
        logger.removeHandler(this);
    }
}
