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
 * line that does not decode (a write cut short by a crash) is skipped, and dropped at the next rewrite. Only the last
 * 64 MB of the file are read, whatever the limits allow: older records beyond them are dropped at the next append.
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
            Lines read = lines(raf);
            boolean dropped = read.cut();
            for (String each : read.lines()) {
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
                byte[] content =
                        (String.join("\n", newestWithin(kept, MAX_BYTES)) + "\n").getBytes(StandardCharsets.UTF_8);
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
            List<String> lines = lines(raf).lines();
            List<AuditRecord> newestFirst = new ArrayList<>();
            for (int i = lines.size() - 1; i >= 0 && newestFirst.size() < limit; i--) {
                AuditRecord.decode(lines.get(i))
                        .filter(record -> !record.at().isBefore(oldest))
                        .ifPresent(newestFirst::add);
            }
            return newestFirst;
        });
    }

    /** @return the newest of {@code lines} whose text, one line each, fits in {@code bytes} */
    private static List<String> newestWithin(List<String> lines, long bytes) {
        long total = 0;
        int first = lines.size();
        while (first > 0) {
            long next = lines.get(first - 1).getBytes(StandardCharsets.UTF_8).length + 1L;
            if (total + next > bytes) {
                break;
            }
            total += next;
            first--;
        }
        return lines.subList(first, lines.size());
    }

    /** The lines read, oldest first; {@code cut}: older lines before them were left unread. */
    private record Lines(List<String> lines, boolean cut) {}

    /**
     * Reads the trail's lines, at most its last {@value #MAX_BYTES} bytes (about 280,000 records of a usual size): a
     * trail the limits let grow larger loses its oldest records at the next append instead of failing every call.
     */
    private Lines lines(RandomAccessFile raf) throws IOException {
        long length = raf.length();
        boolean cut = length > MAX_BYTES;
        long from = cut ? length - MAX_BYTES : 0;
        byte[] content = new byte[(int) (length - from)];
        raf.seek(from);
        raf.readFully(content);
        String text = new String(content, StandardCharsets.UTF_8);
        if (cut) {
            text = text.substring(text.indexOf('\n') + 1); // the first line read is only the end of one
        }
        List<String> lines = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (!line.isEmpty()) {
                lines.add(line);
            }
        }
        return new Lines(lines, cut);
    }

    private static boolean endsWithNewline(RandomAccessFile raf, long length) throws IOException {
        raf.seek(length - 1);
        return raf.read() == '\n';
    }
}
