package dev.exclusive.internal;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * The threads of one registry that found a lock of one store busy, in the order they did: only the first, the head,
 * waits on the store (its attempts, its wake-ups); the others park here until they are first. So under contention
 * inside one JVM the store sees one waiter per name instead of one per thread, and a release wakes a thread that is
 * sure to try instead of one among several that each ask the store again. A thread that comes along still tries
 * once before it joins the line, as a non-fair lock does: a lock that is free meanwhile (its release on its way to
 * the head, or a holder elsewhere gone) is taken at once instead of after a wake-up.
 *
 * <p>A head leaves when it acquires, gives up or fails; the next in line is then the head. Told that the lock was
 * acquired ({@link #leave(Ticket, Duration)}), the new head knows the lock is busy without asking the store and
 * waits for its release at once. A name costs memory only while some thread waits on it.
 */
final class LocalQueue {

    private final ConcurrentHashMap<String, ArrayDeque<Ticket>> waiting = new ConcurrentHashMap<>();

    /** One thread's place in a name's line. */
    static final class Ticket {
        final String name;
        final Thread thread = Thread.currentThread();
        /**
         * Set before {@link #head} by a head that left holding the lock: that hold's ttl, which bounds how long the
         * lock stays busy without a release; {@code null} if the head before gave up (the lock may be free).
         */
        volatile Duration heldFor;
        /** Set once, when this ticket becomes the first of its line. */
        volatile boolean head;

        Ticket(String name) {
            this.name = name;
        }
    }

    /** Puts the calling thread at the end of {@code name}'s line; it is the head at once if the line was empty. */
    Ticket join(String name) {
        Ticket ticket = new Ticket(name);
        waiting.compute(name, (key, line) -> {
            ArrayDeque<Ticket> tickets = line == null ? new ArrayDeque<>() : line;
            if (tickets.isEmpty()) {
                ticket.head = true;
            }
            tickets.addLast(ticket);
            return tickets;
        });
        return ticket;
    }

    /**
     * Parks until {@code ticket} is the head or {@code deadlineNanos} (on {@link System#nanoTime()}) passes.
     *
     * @return whether it is the head
     * @throws InterruptedException if interrupted first; the ticket is still in line, for {@link #leave}
     */
    boolean awaitHead(Ticket ticket, long deadlineNanos) throws InterruptedException {
        while (!ticket.head) {
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            LockSupport.parkNanos(this, left);
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while waiting for lock '" + ticket.name + "'");
            }
        }
        return true;
    }

    /**
     * Takes {@code ticket} out of its line; if it was the head, the next thread becomes the head and is woken.
     *
     * @param heldFor the ttl of the lock the leaving thread holds now; {@code null} if it does not hold it
     */
    void leave(Ticket ticket, Duration heldFor) {
        waiting.computeIfPresent(ticket.name, (key, line) -> {
            if (line.peekFirst() == ticket) {
                line.pollFirst();
                Ticket next = line.peekFirst();
                if (next != null) {
                    next.heldFor = heldFor;
                    next.head = true;
                    LockSupport.unpark(next.thread);
                }
            } else {
                line.remove(ticket);
            }
            return line.isEmpty() ? null : line;
        });
    }
}
