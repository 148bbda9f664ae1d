package m0.core;

/**
 * The sender's half of a hand-off, shared by a worker passing a fresh connection, a leaver
 * forwarding one, and the supervisor re-homing one from a dead worker's channel.
 *
 * <p>Not thread-safe: each worker and the supervisor own one.
 */
public final class HandOff<C> {

    /** {@link #sendIfUnchanged}: the target's channel holds the connection. */
    public static final int SENT = 1;
    /** {@link #sendIfUnchanged}: not sent (the target left, its channel is full or gone): keep it. */
    public static final int REFUSED = 0;
    /** {@link #sendIfUnchanged}: not raised, the target's counts moved since they were read: pick again. */
    public static final int MOVED = -1;

    private final Page page;
    private final Channel<C> channel;
    private final Siblings siblings;
    private final int sendingWord;
    private final boolean[] refused;

    /**
     * @param sendingWord where this sender publishes the hand-off it is making: its own line's
     *     {@link PageLayout#sendingWord}, or the supervisor's {@link PageLayout#SUPERVISOR_SENDING_WORD}
     */
    public HandOff(Page page, Channel<C> channel, Siblings siblings, int sendingWord) {
        this.page = page;
        this.channel = channel;
        this.siblings = siblings;
        this.sendingWord = sendingWord;
        this.refused = new boolean[siblings.workers()];
    }

    /**
     * Passes {@code connection} to {@code target}. Nothing is ever dropped: on false the caller
     * still owns the connection and serves it itself. If the channel throws an exception, the
     * raise is taken back before it leaves, and the caller still owns the connection.
     *
     * @return true when the target's channel now holds it
     */
    public boolean sendWith(int target, C connection) {
        return send(target, connection, false, 0) == SENT;
    }

    /**
     * The accept path's send (ADR 0043): as {@link #sendWith}, but the raise is a compare-and-set
     * against {@code seen}, the target's counts word as the pick read it. A pick decides on a
     * load; another acceptor of the same burst may keep against the target in between, and a
     * raise added blind on top would land the burst two off even. The raise succeeds only where
     * nothing moved the target's counts since the pick read them, so the decision holds at the
     * instant it takes effect.
     *
     * @return {@link #SENT}, {@link #REFUSED} (keep it) or {@link #MOVED} (nothing raised: pick again)
     */
    public int sendIfUnchanged(int target, C connection, long seen) {
        return send(target, connection, true, seen);
    }

    private int send(int target, C connection, boolean ifUnchanged, long seen) {
        int countsWord = PageLayout.countsWord(target);
        // Heal: SENDING before the raise, cleared after the send or the take-back, so that the
        // target's heal counts this raise as in flight for as long as it may be (ADR 0024).
        page.setVolatile(sendingWord, target + 1);
        // R5: raise pending BEFORE the datagram is queued. Raised after, the receiver could
        // admit and retire it first, and the late raise would leave pending one high for good.
        if (!raise(countsWord, ifUnchanged, seen)) {
            page.setVolatile(sendingWord, 0); // nothing raised: nothing for a heal to count
            return MOVED;
        }
        // B25, send side: read the target's state AFTER raising. The leaver stores LEFT and then
        // reads pending; with both accesses sequentially consistent, either we see LEFT here or
        // the leaver sees our raise and drains until this connection arrives.
        if (page.getVolatile(PageLayout.stateWord(target)) == PageLayout.LEFT) {
            takeBack(countsWord);
            return REFUSED;
        }
        boolean sent;
        try {
            sent = channel.send(target, connection);
        } catch (RuntimeException e) {
            // The port failed (an errno it did not turn into a refusal): take the raise back, or
            // pending stays one high; the caller keeps the connection. Exceptions only: an Error
            // is the process going away (the checkers' kill), and a dead process writes nothing
            // more: its raise is orphaned, and the target's heal after its reap takes it back.
            takeBack(countsWord);
            throw e;
        }
        if (!sent) {
            takeBack(countsWord); // full or gone: take it back, keep the connection
            return REFUSED;
        }
        // Sent: the datagram is in the target's queue, counted there by its heal; done.
        page.setVolatile(sendingWord, 0);
        return SENT;
    }

    /** The raise: one add, or one compare-and-set that fails when the counts are not {@code seen}. */
    private boolean raise(int countsWord, boolean ifUnchanged, long seen) {
        if (ifUnchanged) {
            return page.compareAndSet(countsWord, seen, seen + Counts.RAISE);
        }
        page.getAndAdd(countsWord, Counts.RAISE);
        return true;
    }

    private void takeBack(int countsWord) {
        page.getAndAdd(countsWord, Counts.TAKE_BACK);
        page.setVolatile(sendingWord, 0); // after the take-back: the heal counted us until it
    }

    /** The page's view of every worker, as this hand-off reads it. */
    Siblings siblings() {
        return siblings;
    }

    /**
     * Sends {@code connection} to the least loaded live worker other than {@code exclude},
     * trying the next one when a send is refused.
     *
     * @return the index that took it, or -1 when no live worker would (the caller keeps it)
     */
    public int forward(int exclude, C connection) {
        java.util.Arrays.fill(refused, false);
        for (;;) {
            int target = siblings.leastLoadedLive(exclude, refused);
            if (target < 0) {
                return -1;
            }
            if (sendWith(target, connection)) {
                return target;
            }
            refused[target] = true;
        }
    }
}
