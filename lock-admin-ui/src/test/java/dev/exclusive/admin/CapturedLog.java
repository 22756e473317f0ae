package dev.exclusive.admin;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/** What a class logs through {@code System.Logger}, which the JDK backs with java.util.logging. */
final class CapturedLog extends Handler implements AutoCloseable {

    private final Logger logger;
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final SimpleFormatter formatter = new SimpleFormatter();

    private CapturedLog(Logger logger) {
        this.logger = logger;
        setLevel(Level.ALL);
        logger.addHandler(this);
    }

    static CapturedLog of(Class<?> source) {
        return new CapturedLog(Logger.getLogger(source.getName()));
    }

    /** @return the messages logged at {@code level}, with their parameters filled in */
    List<String> messages(Level level) {
        return records.stream()
                .filter(record -> record.getLevel().equals(level))
                .map(formatter::formatMessage)
                .toList();
    }

    @Override
    public void publish(LogRecord record) {
        records.add(record);
    }

    @Override
    public void flush() {}

    @Override
    public void close() {
        logger.removeHandler(this);
    }
}
