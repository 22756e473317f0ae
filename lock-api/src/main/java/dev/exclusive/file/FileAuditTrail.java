package dev.exclusive.file;

import dev.exclusive.AuditRecord;
import dev.exclusive.spi.AuditLimits;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The audit trail of a {@link FileLockStore}: one file, {@code audit.log} in the lock folder, one
 * {@linkplain AuditRecord#encode() encoded record} per line, oldest first. Every append and read takes the file's
 * OS lock (exclusive to append, shared to read) the way lock files are taken ({@link LockFiles#withFile}), so the
 * processes sharing the folder take turns and every append is kept. An append reads the file, and when a record
 * has aged out or the count is over the limit, rewrites it without them; otherwise it adds its line at the end. A
 * line that does not decode (a write cut short by a crash) is skipped, and dropped at the next rewrite.
 */
final class FileAuditTrail {

    /** Not a {@code *.lock} file, so cleanup never touches it. */
    static final String FILE_NAME = "audit.log";

    private static final long MAX_BYTES = 64L * 1024 * 1024;

    private final Path file;
    private final LockFiles files;
    private final Clock clock;
    private final AuditLimits limits;

    FileAuditTrail(Path directory, LockFiles files, Clock clock, AuditLimits limits) {
        this.file = directory.resolve(FILE_NAME);
        this.files = files;
        this.clock = clock;
        this.limits = limits;
    }

    void append(AuditRecord record) throws IOException {
        files.withFile(file, false, raf -> {
            Instant now = clock.instant();
            String line = record.at(now).encode();
            List<String> kept = new ArrayList<>();
            boolean dropped = false;
            for (String each : lines(raf)) {
                boolean current = AuditRecord.decode(each)
                        .filter(old -> !old.at().isBefore(now.minus(limits.maxAge())))
                        .isPresent();
                dropped |= !current;
                if (current) {
                    kept.add(each);
                }
            }
            kept.add(line);
            if (kept.size() > limits.maxRecords()) {
                kept = kept.subList(kept.size() - limits.maxRecords(), kept.size());
                dropped = true;
            }
            if (dropped) {
                byte[] content = (String.join("\n", kept) + "\n").getBytes(StandardCharsets.UTF_8);
                raf.seek(0);
                raf.write(content);
                raf.setLength(content.length);
            } else {
                long length = raf.length();
                boolean endsLine = length == 0 || endsWithNewline(raf, length);
                raf.seek(length);
                raf.write(((endsLine ? "" : "\n") + line + "\n").getBytes(StandardCharsets.UTF_8));
            }
            files.synced(raf);
            return null;
        });
    }

    List<AuditRecord> read(int limit) throws IOException {
        return files.withFile(file, true, raf -> {
            Instant oldest = clock.instant().minus(limits.maxAge());
            List<String> lines = lines(raf);
            List<AuditRecord> newestFirst = new ArrayList<>();
            for (int i = lines.size() - 1; i >= 0 && newestFirst.size() < limit; i--) {
                AuditRecord.decode(lines.get(i))
                        .filter(record -> !record.at().isBefore(oldest))
                        .ifPresent(newestFirst::add);
            }
            return newestFirst;
        });
    }

    private List<String> lines(RandomAccessFile raf) throws IOException {
        long length = raf.length();
        if (length > MAX_BYTES) {
            throw new IOException("audit trail '" + file + "' is " + length + " bytes, more than any limit allows;"
                    + " delete it while no process uses the folder");
        }
        byte[] content = new byte[(int) length];
        raf.seek(0);
        raf.readFully(content);
        List<String> lines = new ArrayList<>();
        for (String line : new String(content, StandardCharsets.UTF_8).split("\n")) {
            if (!line.isEmpty()) {
                lines.add(line);
            }
        }
        return lines;
    }

    private static boolean endsWithNewline(RandomAccessFile raf, long length) throws IOException {
        raf.seek(length - 1);
        return raf.read() == '\n';
    }
}
