package dev.exclusive;

/**
 * What happens when a handle finds out that its lease ended while the work under it still ran: a renewal of an
 * {@linkplain Lock#autoExtend() auto-extending} handle found it gone (the store was unreachable for a whole ttl,
 * an operator force-released it), or the check after the work found it gone (a GC pause past the ttl).
 *
 * <p>Every policy logs the loss at WARNING and tells listeners ({@link LockListener#lost(Lock)}); they differ in
 * what they do to the work.
 */
public enum OnLost {

    /** Log and tell listeners; the work goes on and its result stands. */
    LOG,

    /**
     * Also interrupt the thread that runs the work under the lock ({@link Lock#get(LockedWork)},
     * {@link Lock#block(java.time.Duration, LockedWork)}, an {@code @Exclusive} method), as soon as the loss is
     * found. Work that checks its interrupt flag or blocks interruptibly stops early.
     */
    INTERRUPT,

    /**
     * The work's result must not stand without its lock. Inside a JTA transaction (lock-cdi), the transaction is
     * marked rollback-only as soon as the loss is found, and before it commits the hold is checked against the
     * store once; a hold that is gone rolls it back, and the caller gets a {@link LockLostException}. Outside a
     * transaction ({@link Lock#get(LockedWork)} in Java SE), the hold is checked once after the work returns,
     * and a hold that is gone turns the result into a {@link LockLostException}: the work ran, but the caller is
     * told that it ran without the lock for part of the time. A hold whose lease ran out by the handle's own clock
     * is gone without asking; when the store cannot be asked, that clock decides (logged at WARNING), since an
     * outage alone does not undo work whose lease has not run out. The lock is released after the check either way.
     *
     * <p>A window remains between that check and the commit (or the caller's next step): a lease can still end
     * there. A {@linkplain Lock#fence() fence} written with the data closes it, because the next holder's higher
     * fence makes the database refuse the stale write.
     */
    ROLLBACK
}
