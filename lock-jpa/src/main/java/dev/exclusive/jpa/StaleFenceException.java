package dev.exclusive.jpa;

import dev.exclusive.LockLostException;

/**
 * {@link Fences#claim} found a greater fence than the claimer's on the resource: a newer holder of the lock has
 * claimed it, so the claimer's lease has ended, and the caller's transaction, already marked rollback-only, must not
 * commit. A {@link LockLostException}: the work may be retried from the start, under a new hold (through Jakarta
 * REST, lock-cdi answers {@code 503} naming the lock).
 */
public class StaleFenceException extends LockLostException {

    private static final long serialVersionUID = 1L;

    /** The resource claimed. */
    private final String resource;
    /** The claimer's fence, refused. */
    private final long fence;
    /** The greater fence the resource has. */
    private final long currentFence;

    /**
     * @param message      what was refused and why
     * @param lockName     the full name of the claimer's lock, or {@code null} if the fence was given by hand
     * @param storeName    its store, or {@code null}
     * @param resource     the resource claimed
     * @param fence        the claimer's fence, refused
     * @param currentFence the greater fence the resource has
     */
    public StaleFenceException(
            String message, String lockName, String storeName, String resource, long fence, long currentFence) {
        super(message, lockName, storeName, null);
        this.resource = resource;
        this.fence = fence;
        this.currentFence = currentFence;
    }

    /** @return the resource claimed */
    public String resource() {
        return resource;
    }

    /** @return the claimer's fence, which the database refused */
    public long fence() {
        return fence;
    }

    /** @return the resource's fence in the database, greater than {@link #fence()} */
    public long currentFence() {
        return currentFence;
    }
}
