package m0.server.worker;

import m0.server.jnr.Epoll;

/**
 * Whether the listener is in this worker's epoll set, and why not: the one owner of that
 * registration (docs/adr/0022). It is in while no reason keeps it out:
 * <ul>
 *   <li>{@link #CAP}: {@code --max-connections} open; back in once one closes (fresh accepts stop,
 *       hand-offs still come);
 *   <li>{@link #BACKOFF}: EMFILE/ENFILE on accept; back in when the back-off ends;
 *   <li>{@link #LEFT_TO_HEAD}: fountain, the core's {@code takeListener} left it to an earlier
 *       worker; the loop looks again (a zero-timeout poll) at the deadline it gave, and only
 *       then, so nothing wakes this worker for the connections it leaves;
 *   <li>{@link #CLOSED}: leaving; the worker closed its copy of the listener. Final.
 * </ul>
 * Registered EPOLLIN, with {@link Epoll#EXCLUSIVE} for share and race: the kernel wakes one
 * waiter per new connection, not every worker. Not for fountain: a worker woken for a connection
 * it leaves to its head would sit on it until its next look while the head stays asleep.
 * The kernel refuses EPOLL_CTL_MOD on an exclusive registration, so out is DEL and in is ADD, for
 * every policy alike. Not thread-safe: the worker's loop owns it.
 */
final class ListenerInterest {

    static final int CAP = 1;
    static final int BACKOFF = 2;
    static final int LEFT_TO_HEAD = 4;
    static final int CLOSED = 8;

    private final Epoll epoll;
    private final int fd;
    private final long data;
    private final int events;
    /** The reasons that keep the listener out, as bits; in exactly when 0. */
    private int out;
    private boolean registered;
    /** End of the back-off while {@link #BACKOFF} holds (System.nanoTime). */
    private long backoffEnd;
    /** When the loop looks at the listener again while {@link #LEFT_TO_HEAD} holds. */
    private long lookAt;

    ListenerInterest(Epoll epoll, int fd, long data, boolean exclusive) {
        this.epoll = epoll;
        this.fd = fd;
        this.data = data;
        this.events = Epoll.IN | (exclusive ? Epoll.EXCLUSIVE : 0);
    }

    /** Puts the listener in the epoll set for the first time (before the loop's start). */
    void register() {
        apply();
    }

    /** In the epoll set now. */
    boolean in() {
        return registered;
    }

    boolean outFor(int reason) {
        return (out & reason) != 0;
    }

    /** The worker holds {@code --max-connections}: out until {@link #resume} sees fewer. */
    void atCap() {
        keepOut(CAP);
    }

    /** Out of descriptors: out until {@code end}. */
    void backOff(long end) {
        backoffEnd = end;
        keepOut(BACKOFF);
    }

    /** Fountain: leave the listener to an earlier worker and look at it again at {@code at}. */
    void leaveToHead(long at) {
        lookAt = at;
        keepOut(LEFT_TO_HEAD);
    }

    /** A sibling the burst left full told us to look now: the look is due at once. */
    void lookNow(long now) {
        if ((out & LEFT_TO_HEAD) != 0 && lookAt - now > 0) {
            lookAt = now;
        }
    }

    /** Fountain's answer was "listen": in, unless another reason keeps it out. */
    void take() {
        if ((out & LEFT_TO_HEAD) != 0) {
            out &= ~LEFT_TO_HEAD;
            apply();
        }
    }

    /** Leaving: out for good (call before closing the descriptor). */
    void close() {
        keepOut(CLOSED);
    }

    /** Once per pass while out: the cap and the back-off end by themselves. */
    void resume(long now, long open, long maxConnections) {
        int was = out;
        if ((out & CAP) != 0 && open < maxConnections) {
            out &= ~CAP;
        }
        if ((out & BACKOFF) != 0 && now - backoffEnd >= 0) {
            out &= ~BACKOFF;
        }
        if (out != was) {
            apply();
        }
    }

    /**
     * True when the fountain's look is due: left to the head, the deadline reached, and nothing
     * else keeps the listener out (at the cap or in a back-off this worker could not accept what
     * it found; leaving, its copy is closed).
     */
    boolean lookDue(long now) {
        return out == LEFT_TO_HEAD && now - lookAt >= 0;
    }

    /** When the loop must wake for the listener without an event: a back-off's end or a look; MAX_VALUE: never. */
    long wakeAt() {
        if ((out & CLOSED) != 0) {
            return Long.MAX_VALUE;
        }
        if ((out & BACKOFF) != 0) {
            return backoffEnd; // a look that falls inside the back-off waits for its end
        }
        return out == LEFT_TO_HEAD ? lookAt : Long.MAX_VALUE;
    }

    private void keepOut(int reason) {
        if ((out & reason) == 0) {
            out |= reason;
            apply();
        }
    }

    private void apply() {
        boolean want = out == 0;
        if (want == registered) {
            return;
        }
        if (want) {
            epoll.add(fd, events, data);
        } else {
            epoll.delete(fd);
        }
        registered = want;
    }
}
