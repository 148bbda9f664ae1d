package m0.core.loop;

/**
 * Whether the shared listener holds new connections back until their request arrives
 * (TCP_DEFER_ACCEPT), as this worker wishes it: the one owner of that wish (ADR 0056). The
 * loop hands in, at its start and at each pass start, whether every worker keeps what it
 * accepts; the wish follows that.
 *
 * <p>The socket is shared: a sibling may have set it on a stale page, or set it and died,
 * stopped or left. So the wish is a level, not an edge. It is sent at start (a cold start
 * balances, which clears what a predecessor or a past run left on a socket systemd kept), on
 * every change, and again at the first pass past each {@link #REASK_NANOS}. A wrong setting
 * lasts until a live worker's next pass past its re-ask: a window for a keeping worker, whose
 * loop wakes at its window's end, and {@link WorkerLoop#HEAL_LOOK_NANOS} for an idle balancing
 * one. Not thread-safe: the worker's loop owns it.
 */
public final class ListenerDeferral {

    /** How often the wish is sent unchanged: one shape window, 250 ms. */
    public static final long REASK_NANOS = m0.core.LoadShape.WINDOW_NANOS;

    private final Listener<?> listener;
    private boolean deferring;
    private long askedAt;

    public ListenerDeferral(Listener<?> listener) {
        this.listener = listener;
    }

    /** The worker took over its index: the wish is said whatever the socket shows. */
    public void start(boolean everyWorkerKeeps, long now) {
        ask(everyWorkerKeeps, now);
    }

    /** A pass starts: the wish is said if it changed, or if its re-ask is due. */
    public void follow(boolean everyWorkerKeeps, long now) {
        if (everyWorkerKeeps != deferring || now - askedAt >= REASK_NANOS) {
            ask(everyWorkerKeeps, now);
        }
    }

    private void ask(boolean on, long now) {
        deferring = on;
        askedAt = now;
        listener.deferAccept(on);
    }
}
