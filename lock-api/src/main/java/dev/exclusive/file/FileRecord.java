package dev.exclusive.file;

import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * One lock file's content, and its binary form. {@code owner} is empty while free. Times are host wall-clock
 * milliseconds.
 *
 * <p>Format, big-endian: {@code "XLK1"}, fence, acquired at, expires at (longs), then name, owner, holder (each a
 * length-prefixed UTF-8 string).
 */
record FileRecord(String name, long fence, String owner, String holder, long acquiredAt, long expiresAt) {

    private static final int MAGIC = 0x584c4b31; // "XLK1"

    static FileRecord free(String name, long fence) {
        return new FileRecord(name, fence, "", "", 0, 0);
    }

    /** A lease lasts through its last millisecond: {@code expiresAt} is still live. */
    boolean liveAt(long now) {
        return !owner.isEmpty() && expiresAt >= now;
    }

    byte[] encode() {
        byte[] nameBytes = name.getBytes(StandardCharsets.UTF_8);
        byte[] ownerBytes = owner.getBytes(StandardCharsets.UTF_8);
        byte[] holderBytes = holder.getBytes(StandardCharsets.UTF_8);
        ByteBuffer buffer =
                ByteBuffer.allocate(4 + 8 * 3 + 4 * 3 + nameBytes.length + ownerBytes.length + holderBytes.length);
        buffer.putInt(MAGIC).putLong(fence).putLong(acquiredAt).putLong(expiresAt);
        buffer.putInt(nameBytes.length).put(nameBytes);
        buffer.putInt(ownerBytes.length).put(ownerBytes);
        buffer.putInt(holderBytes.length).put(holderBytes);
        return buffer.array();
    }

    /**
     * @param content a whole lock file
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
            return new FileRecord(name, fence, owner, holder, acquiredAt, expiresAt);
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
