package dev.exclusive.cdi;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Records what lock-cdi logs (its {@code System.Logger} "dev.exclusive.cdi" goes to java.util.logging in tests), at
 * every level, while open.
 */
final class LogRecorder extends Handler implements AutoCloseable {

    final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Logger logger = Logger.getLogger("dev.exclusive.cdi");
    private final Level previous;

    LogRecorder() {
        previous = logger.getLevel();
        logger.setLevel(Level.ALL);
        logger.addHandler(this);
    }

    /** @return each record as it would be printed: level, message and the thrown exception's stack trace */
    String printed() {
        StringBuilder all = new StringBuilder();
        for (LogRecord record : records) {
            all.append(record.getLevel())
                    .append(' ')
                    .append(record.getMessage())
                    .append('\n');
            if (record.getThrown() != null) {
                StringWriter trace = new StringWriter();
                record.getThrown().printStackTrace(new PrintWriter(trace));
                all.append(trace);
            }
        }
        return all.toString();
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
        logger.setLevel(previous);
    }
}
