package dev.exclusive;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Objects;
import java.util.Optional;

/**
 * One entry of a store's audit trail: something that happened to a hold that its holder did not do itself, kept in
 * the store so that every server reading the store sees it, also after a restart. Written by the registry
 * ({@link LockRegistry#forceRelease(LockInfo, String)}, a lost lease) through
 * {@link dev.exclusive.spi.LockStore#audit(AuditRecord)}, read with {@link LockRegistry#auditTrail(int)}.
 *
 * <p>Stores keep it as the one line {@link #encode()} returns and give it back through {@link #decode(String)}.
 * Text parts are cleaned like {@link LockHolder}'s: control characters become spaces, and {@code actor} and
 * {@code detail} are cut to 200 and 500 characters. Never put a secret in {@code actor} or {@code detail}: every
 * operator who can read the store reads them.
 *
 * @param at       when it happened: the store's clock where the store has one (it stamps the record as it appends
 *                 it), else the caller's
 * @param kind     what happened
 * @param lockName the full lock name, store prefix included
 * @param owner    the owner id of the hold it happened to; empty when no hold was found (a force-release of a free
 *                 lock)
 * @param fence    that hold's fence; {@code 0} when no hold was found
 * @param holder   that hold's holder (instance, thread, purpose); all parts empty when no hold was found
 * @param actor    who did it: the operator's principal name for a force-release (or the registry's instance name
 *                 when the application called it without one), the holding instance for a lost lease
 * @param detail   what happened to the hold, in a short sentence
 */
public record AuditRecord(
        Instant at,
        Kind kind,
        String lockName,
        String owner,
        long fence,
        LockHolder holder,
        String actor,
        String detail) {

    /** What happened to a hold. */
    public enum Kind {
        /** An operator or the application freed the lock whoever held it. */
        FORCE_RELEASED,
        /** The holder's lease ended before its holder released it: it ran out, or someone force-released it. */
        LEASE_LOST
    }

    private static final char SEPARATOR = '\u001e';
    private static final String VERSION = "1";
    private static final int PARTS = 9;
    private static final int MAX_ACTOR = 200;
    private static final int MAX_DETAIL = 500;

    /**
     * Checks the required parts and cleans the text ones.
     *
     * @param at       when it happened
     * @param kind     what happened
     * @param lockName the full lock name
     * @param owner    the hold's owner id, or empty
     * @param fence    the hold's fence, or {@code 0}
     * @param holder   the hold's holder; {@code null} becomes an empty one
     * @param actor    who did it; {@code null} becomes empty
     * @param detail   what happened to the hold; {@code null} becomes empty
     */
    public AuditRecord {
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(kind, "kind");
        lockName = clean(Objects.requireNonNull(lockName, "lockName"), Integer.MAX_VALUE);
        owner = clean(owner, Integer.MAX_VALUE);
        holder = holder == null ? new LockHolder("", "", "") : holder;
        actor = clean(actor, MAX_ACTOR);
        detail = clean(detail, MAX_DETAIL);
    }

    /**
     * @param storeTime the store's clock at the append
     * @return this record stamped with the store's time
     */
    public AuditRecord at(Instant storeTime) {
        return new AuditRecord(storeTime, kind, lockName, owner, fence, holder, actor, detail);
    }

    /** @return whether the record names the hold it happened to (owner and fence) */
    public boolean hasHold() {
        return !owner.isEmpty();
    }

    /** @return the record as one line: no line breaks, no control characters but its separators */
    public String encode() {
        return String.join(
                String.valueOf(SEPARATOR),
                VERSION,
                at.toString(),
                kind.name(),
                lockName,
                owner,
                Long.toString(fence),
                holder.encode(),
                actor,
                detail);
    }

    /**
     * @param line a line from {@link #encode()}
     * @return the record it holds; empty when the line is not one (damaged, or written by a later version), so a
     *         store skips what it cannot read instead of failing the whole trail
     */
    public static Optional<AuditRecord> decode(String line) {
        if (line == null) {
            return Optional.empty();
        }
        String[] parts = line.split(String.valueOf(SEPARATOR), -1);
        if (parts.length != PARTS || !parts[0].equals(VERSION)) {
            return Optional.empty();
        }
        try {
            return Optional.of(new AuditRecord(
                    Instant.parse(parts[1]),
                    Kind.valueOf(parts[2]),
                    parts[3],
                    parts[4],
                    Long.parseLong(parts[5]),
                    LockHolder.decode(parts[6]),
                    parts[7],
                    parts[8]));
        } catch (DateTimeParseException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** Leaves {@link LockHolder}'s separator alone, which only ever appears inside an encoded holder. */
    private static String clean(String text, int max) {
        String value = Objects.requireNonNullElse(text, "");
        StringBuilder cleaned = null;
        for (int i = 0; i < value.length(); i++) {
            if (Character.isISOControl(value.charAt(i))) {
                if (cleaned == null) {
                    cleaned = new StringBuilder(value.substring(0, i));
                }
                cleaned.append(' ');
            } else if (cleaned != null) {
                cleaned.append(value.charAt(i));
            }
        }
        value = cleaned == null ? value.strip() : cleaned.toString().strip();
        return value.length() > max ? value.substring(0, max) : value;
    }
}
