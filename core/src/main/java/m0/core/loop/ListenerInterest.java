package m0.core.loop;

/**
 * Whether the listener is in this worker's interest set, and why not: the one owner of that
 * registration (ADR 0022). It is in while no reason keeps it out:
 * <ul>
 *   <li>{@link #CAP}: {@code --max-connections} open; back in once one closes (fresh accepts stop,
 *       hand-offs still come);
 *   <li>{@link #BACKOFF}: EMFILE/ENFILE on accept; back in when the back-off ends;
 *   <li>{@link #LEFT_TO_HEAD}: fountain, the core's {@code takeListener} left it to an earlier
 *       worker; the loop looks again (a zero-timeout poll) at the deadline it gave, and only
 *       then, so nothing wakes this worker for the connections it leaves;
 *   <li>{@link #CLOSED}: leaving; the worker closes its copy of the listener. Final.
 * </ul>
 * {@link #CAP} and {@link #BACKOFF} are the worker's own reasons: while either holds it is
 * {@link #held()}, which the loop publishes for siblings that would leave connections to it.
 * Not thread-safe: the worker's loop owns it.
 */
public final class ListenerInterest {

    public static final int CAP = 1;
    public static final int BACKOFF = 2;
    public static final int LEFT_TO_HEAD = 4;
    public static final int CLOSED = 8;
    /** The worker's own reasons: it would not take a connection whatever its siblings do. */
    private static final int HELD = CAP | BACKOFF;

    private final Listener<?> listener;
    /** The reasons that keep the listener out, as bits; in exactly when 0. */
    private int out;
    private boolean registered;
    /** End of the back-off while {@link #BACKOFF} holds. */
    private long backoffEnd;
    /** When the loop looks at the listener again while {@link #LEFT_TO_HEAD} holds. */
    private long lookAt;

    public ListenerInterest(Listener<?> listener) {
        this.listener = listener;
    }

    /** Puts the listener in the interest set for the first time (before the loop's start). */
    public void register() {
        apply();
    }

    /** In the interest set now. */
    public boolean in() {
        return registered;
    }

    public boolean outFor(int reason) {
        return (out & reason) != 0;
    }

    /** Out for the worker's own reasons: at its cap, or backing off. */
    public boolean held() {
        return (out & HELD) != 0;
    }

    /** The worker holds {@code --max-connections}: out until {@link #resume} sees fewer. */
    public void atCap() {
        keepOut(CAP);
    }

    /** Out of descriptors: out until {@code end}. */
    public void backOff(long end) {
        backoffEnd = end;
        keepOut(BACKOFF);
    }

    /** Fountain: leave the listener to an earlier worker and look at it again at {@code at}. */
    public void leaveToHead(long at) {
        lookAt = at;
        keepOut(LEFT_TO_HEAD);
    }

    /** A sibling the burst left full told us to look now: the look is due at once. */
    public void lookNow(long now) {
        if ((out & LEFT_TO_HEAD) != 0 && lookAt - now > 0) {
            lookAt = now;
        }
    }

    /** Fountain's answer was "listen": in, unless another reason keeps it out. */
    public void take() {
        if ((out & LEFT_TO_HEAD) != 0) {
            out &= ~LEFT_TO_HEAD;
            apply();
        }
    }

    /** Leaving: out for good (before the listener is closed). */
    public void close() {
        keepOut(CLOSED);
    }

    /** Once per pass while out: the cap and the back-off end by themselves. */
    public void resume(long now, long open, long maxConnections) {
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
    public boolean lookDue(long now) {
        return out == LEFT_TO_HEAD && now - lookAt >= 0;
    }

    /** When the loop must wake for the listener without an event: a back-off's end or a look; MAX_VALUE: never. */
    public long wakeAt() {
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
        listener.listen(want);
        registered = want;
    }
}
