package dev.exclusive.internal;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Owner ids: unique per handle across every JVM, and not guessable from another process. A random 96-bit
 * prefix drawn once per JVM keeps JVMs apart; a counter keeps handles apart without a {@link SecureRandom}
 * call on the hot path. Never a thread id: a hold belongs to a handle.
 */
public final class Owners {

    private static final String JVM_PREFIX;
    private static final AtomicLong COUNTER = new AtomicLong();

    static {
        byte[] random = new byte[12];
        new SecureRandom().nextBytes(random);
        JVM_PREFIX = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
    }

    private Owners() {}

    /**
     * @return what every owner id drawn in this JVM starts with (URL-safe Base64 and a {@code -}), so that a store
     *         can tell a lock held from this JVM from one held elsewhere
     */
    public static String jvmPrefix() {
        return JVM_PREFIX + '-';
    }

    /** @return a new owner id */
    public static String next() {
        return JVM_PREFIX + '-' + Long.toString(COUNTER.incrementAndGet(), 36);
    }
}
