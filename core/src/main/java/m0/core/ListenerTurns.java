package m0.core;

/**
 * The accept policy's say over one worker's listener and its accept batches (fountain's: share
 * and the race always listen and go on): the busy samples it judges a worker full by, whether
 * to take the listener or leave it to an earlier worker, whether to end a batch, and the HELD
 * mark. Nothing once the worker has left, or without sharing.
 *
 * <p>Part of {@link AcceptShare}: not thread-safe, called from its worker's loop only.
 */
final class ListenerTurns<C> {

    private final AcceptPolicy policy;
    private final Siblings siblings;
    private final Leaving<C> leaving;
    private final int self;
    private final boolean sharing;

    ListenerTurns(AcceptPolicy policy, Siblings siblings, Leaving<C> leaving, int self, boolean sharing) {
        this.policy = policy;
        this.siblings = siblings;
        this.leaving = leaving;
        this.self = self;
        this.sharing = sharing;
    }

    /**
     * Fountain: a reading of the loop's cumulative busy nanoseconds (time outside its wait for
     * events). Call at every pass end and at least every 20 ms while parked (bound the wait's
     * timeout by it): a sample is taken when the last is 20 ms old, and a full worker turns
     * free only at a sample. Costs a clock read and a compare otherwise; nothing for share/race.
     */
    void sample(long busyNanosTotal) {
        if (sharing && !leaving.left()) {
            policy.sample(siblings, self, busyNanosTotal);
        }
    }

    /**
     * Fountain: the same with the blocking pool's reading (ADR 0029): its threads' cumulative
     * busy nanoseconds (a task still running counted up to now) and its size. A worker whose loop
     * idles while every pool thread is occupied reads full. Without a pool, {@link #sample(long)}.
     */
    void sample(long busyNanosTotal, long poolBusyNanosTotal, int poolThreads) {
        if (sharing && !leaving.left()) {
            policy.sample(siblings, self, busyNanosTotal, poolBusyNanosTotal, poolThreads);
        }
    }

    /**
     * The loop looked at the listener: epoll found it readable, or it looks (a zero-timeout poll)
     * at the deadline of the last answer. True: listen to it (keep it in epoll) and, when
     * {@code readable}, accept from it now. False (fountain only, while an earlier worker is
     * taking): leave it to them, take the listener out of epoll, look again at
     * {@link #listenDeadline()} (within 1 ms). Always true for share and race.
     */
    boolean takeListener(boolean readable) {
        if (!sharing || leaving.left()) {
            return true;
        }
        return policy.takeListener(siblings, self, readable);
    }

    /**
     * After an accept this worker kept: {@link AcceptPolicy#GO_ON} with the batch,
     * {@link AcceptPolicy#END_BATCH}, or end it and have the sibling returned look at the
     * listener now (fountain, a worker the accept turned full: {@link AcceptPolicy#endBatch}).
     */
    int endBatch() {
        if (!sharing || leaving.left()) {
            return AcceptPolicy.GO_ON;
        }
        return policy.endBatch(siblings, self);
    }

    /** After {@link #takeListener} said false: when the loop looks at the listener again. */
    long listenDeadline() {
        return policy.listenDeadline();
    }

    /**
     * The loop keeps its listener out for reasons of its own, or takes it back (fountain
     * publishes it: a sibling must not leave new connections to a worker that will not take
     * them, ADR 0038). Nothing for share and race.
     */
    void holdListener(boolean held) {
        if (sharing && !leaving.left()) {
            policy.holdListener(siblings, self, held);
        }
    }
}
