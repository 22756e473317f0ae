package dev.exclusive.redis;

import java.text.MessageFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The warnings {@link ReleaseSubscriber} (or another class of the store) logs while this is open, formatted as an
 * operator reads them ({@code System.Logger} goes to {@code java.util.logging} on the tests' class path).
 */
final class SubscriberWarnings extends Handler implements AutoCloseable {

    private final Logger logger;
    private final List<String> messages = new CopyOnWriteArrayList<>();

    private SubscriberWarnings(Class<?> source) {
        logger = Logger.getLogger(source.getName());
        logger.addHandler(this);
    }

    /** @return a recorder of the subscriber's warnings from now until {@link #close()} */
    static SubscriberWarnings record() {
        return record(ReleaseSubscriber.class);
    }

    /** @return a recorder of the warnings that {@code source} logs from now until {@link #close()} */
    static SubscriberWarnings record(Class<?> source) {
        return new SubscriberWarnings(source);
    }

    /** @return the warnings so far, oldest first */
    List<String> messages() {
        return List.copyOf(messages);
    }

    @Override
    public void publish(LogRecord record) {
        if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
            messages.add(MessageFormat.format(record.getMessage(), record.getParameters()));
        }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {
        logger.removeHandler(this);
    }
}
