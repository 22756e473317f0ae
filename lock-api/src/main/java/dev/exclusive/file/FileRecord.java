package dev.exclusive.file;

import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * One lock file's content, and its binary form. {@code owner} is empty while free. Times are host wall-clock
 * milliseconds; {@code releasedAt} is when the lock was last released (0 if never, or written by a version that
 * did not record it), so that cleanup can tell how long a free lock has been idle.
 *
 * <p>Format, big-endian: {@code "XLK1"}, fence, acquired at, expires at (longs), then name, owner, holder (each a
 * length-prefixed UTF-8 string), then released at (long). Readers ignore what follows the holder when it is
 * shorter than a long, so files of earlier versions read as never released; earlier versions ignore the trailing
 * long. A removed file holds only {@code "XLK0"}: a tombstone, which earlier versions reject as a bad header
 * rather than read as a free lock.
 */
record FileRecord(
        String name, long fence, String owner, String holder, long acquiredAt, long expiresAt, long releasedAt) {

    private static final int MAGIC = 0x584c4b31; // "XLK1"
    private static final int TOMBSTONE = 0x584c4b30; // "XLK0"

    static FileRecord free(String name, long fence, long releasedAt) {
        return new FileRecord(name, fence, "", "", 0, 0, releasedAt);
    }

    /** A lease lasts through its last millisecond: {@code expiresAt} is still live. */
    boolean liveAt(long now) {
        return !owner.isEmpty() && expiresAt >= now;
    }

    /** @return the millisecond from which a lock that is not live has been unused: its release or its expiry */
    long idleSince() {
        return owner.isEmpty() ? releasedAt : expiresAt + 1;
    }

    byte[] encode() {
        byte[] nameBytes = name.getBytes(StandardCharsets.UTF_8);
        byte[] ownerBytes = owner.getBytes(StandardCharsets.UTF_8);
        byte[] holderBytes = holder.getBytes(StandardCharsets.UTF_8);
        ByteBuffer buffer =
                ByteBuffer.allocate(4 + 8 * 4 + 4 * 3 + nameBytes.length + ownerBytes.length + holderBytes.length);
        buffer.putInt(MAGIC).putLong(fence).putLong(acquiredAt).putLong(expiresAt);
        buffer.putInt(nameBytes.length).put(nameBytes);
        buffer.putInt(ownerBytes.length).put(ownerBytes);
        buffer.putInt(holderBytes.length).put(holderBytes);
        buffer.putLong(releasedAt);
        return buffer.array();
    }

    static byte[] tombstone() {
        return ByteBuffer.allocate(4).putInt(TOMBSTONE).array();
    }

    static boolean isTombstone(byte[] content) {
        return content.length >= 4 && ByteBuffer.wrap(content).getInt() == TOMBSTONE;
    }

    /**
     * @param content a whole lock file that is not a tombstone
     * @return its record, or {@code null} for a file too short to hold one (just created, not written yet)
     * @throws IOException if it is not a lock file or is damaged
     */
    static FileRecord decode(byte[] content) throws IOException {
        if (content.length < 4) {
            return null;
        }
        ByteBuffer buffer = ByteBuffer.wrap(content);
        try {
            if (buffer.getInt() != MAGIC) {
                throw new IOException("not a lock file (bad header)");
            }
            long fence = buffer.getLong();
            long acquiredAt = buffer.getLong();
            long expiresAt = buffer.getLong();
            String name = string(buffer);
            String owner = string(buffer);
            String holder = string(buffer);
            long releasedAt = buffer.remaining() >= 8 ? buffer.getLong() : 0;
            return new FileRecord(name, fence, owner, holder, acquiredAt, expiresAt, releasedAt);
        } catch (BufferUnderflowException e) {
            throw new IOException("damaged lock file (truncated record)", e);
        }
    }

    private static String string(ByteBuffer buffer) throws IOException {
        int length = buffer.getInt();
        if (length < 0 || length > buffer.remaining()) {
            throw new IOException("damaged lock file (bad length " + length + ")");
        }
        byte[] bytes = new byte[length];
        buffer.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
