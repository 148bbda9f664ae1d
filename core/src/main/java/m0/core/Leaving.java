package m0.core;

import java.util.function.Consumer;

/**
 * One worker's leave: LEFT stored first (B25), then a bounded drain of what was raised against
 * it, forwarding each connection to a live sibling; what arrives once it has left, and its own
 * idle connections, go to a sibling too where one would take them. A leaver with no live
 * sibling holds what it would have to close while one is starting.
 *
 * <p>Part of {@link AcceptShare}: not thread-safe, called from its worker's loop only. Leave
 * wins: once {@link #left()}, no pass writes this worker's state again.
 */
final class Leaving<C> {

    private final Page page;
    private final Clock clock;
    private final AcceptPolicy policy;
    private final Siblings siblings;
    private final HandOff<C> handOff;
    private final Heal<C> heal;
    private final Receipts<C> receipts;
    private final AcceptPublication<C> publication;
    private final int self;
    private final boolean sharing;
    private final long leaveDrainNanos;
    private final int stateWord;
    private final int countsWord;

    /** Leave wins: once set, no pass writes this worker's state again. */
    private boolean left;
    private long leaveDeadline;
    private long leftAt;
    /**
     * Fresh hand-offs a leaver received when no sibling was live but one was starting: held,
     * not admitted (a leaver would close them unserved), until one starts or the wait ends.
     */
    private final java.util.ArrayDeque<C> awaitingStart = new java.util.ArrayDeque<>();

    private long forwarded;

    Leaving(Page page, Clock clock, AcceptPolicy policy, Siblings siblings, HandOff<C> handOff,
            Heal<C> heal, Receipts<C> receipts, AcceptPublication<C> publication, int self,
            boolean sharing, long leaveDrainNanos) {
        this.page = page;
        this.clock = clock;
        this.policy = policy;
        this.siblings = siblings;
        this.handOff = handOff;
        this.heal = heal;
        this.receipts = receipts;
        this.publication = publication;
        this.self = self;
        this.sharing = sharing;
        this.leaveDrainNanos = leaveDrainNanos;
        this.stateWord = PageLayout.stateWord(self);
        this.countsWord = PageLayout.countsWord(self);
    }

    boolean left() {
        return left;
    }

    /**
     * The next connection from this worker's channel to admit through the accept path's tail,
     * or null at EAGAIN. Call until null. After {@link #leave()} it forwards what arrives to a
     * live sibling and returns only what no sibling would take.
     */
    C receive() {
        if (!sharing) {
            return null;
        }
        for (;;) {
            C connection = receipts.take();
            if (connection == null) {
                return null;
            }
            if (!left) {
                return connection;
            }
            // B25, idle side: a leaver must not admit a fresh hand-off only to close it as idle;
            // a sibling that still serves gets it.
            if (handOff.forward(self, connection) >= 0) {
                forwarded++;
                continue;
            }
            if (awaitingStart()) {
                awaitingStart.addLast(connection); // a sibling is starting: hold it for that one
                continue;
            }
            return connection; // no sibling is live: serve it here
        }
    }

    /**
     * True while this leaver should hold what no live sibling takes: a sibling is live or
     * starting (see {@link Siblings#anyLiveOrStarting}), and {@link AcceptShare#START_WAIT_NANOS}
     * has not passed since the leave. A leaver's
     * caller keeps its idle connections (retrying {@link #handOver}) while this says so.
     */
    boolean awaitingStart() {
        return left && sharing && clock.nanoTime() - leftAt - AcceptShare.START_WAIT_NANOS < 0
                && siblings.anyLiveOrStarting(self);
    }

    /**
     * Start leaving (SIGTERM, reload, scale-down). Then call {@link #leaveStep} until false.
     */
    void leave() {
        if (left) {
            return;
        }
        left = true;
        // B25, leaver side: LEFT is stored FIRST, before any receive of the drain, so that a
        // sender either reads LEFT after its raise or its raise is seen by our drain condition.
        page.setVolatile(stateWord, PageLayout.LEFT);
        if (sharing) {
            leftAt = clock.nanoTime();
            leaveDeadline = leftAt + leaveDrainNanos;
        }
    }

    /**
     * One step of the leaver's bounded drain: receive to EAGAIN, forwarding each connection to
     * a live sibling (handing to {@code admit} only what none would take), retire what was
     * received, and say whether to go on.
     *
     * @return true while a connection raised against this worker is still in flight
     *         ({@code pending - taken > 0}) and the bound has not passed
     */
    boolean leaveStep(Consumer<? super C> admit) {
        if (!left) {
            throw new IllegalStateException("leaveStep before leave");
        }
        if (!sharing) {
            return false;
        }
        C connection;
        while ((connection = receive()) != null) {
            admit.accept(connection);
        }
        publication.retire();
        // What waits for a starting sibling: forwarded once one is live, admitted once none is
        // starting any more (it died, or the wait is over).
        for (int n = awaitingStart.size(); n > 0; n--) {
            C held = awaitingStart.pollFirst();
            if (handOff.forward(self, held) >= 0) {
                forwarded++;
            } else if (awaitingStart()) {
                awaitingStart.addLast(held);
            } else {
                admit.accept(held);
            }
        }
        long counts = page.getVolatile(countsWord);
        heal.note(counts);
        long inFlight = Counts.inFlight(counts);
        return !awaitingStart.isEmpty() || inFlight > 0 && clock.nanoTime() - leaveDeadline < 0;
    }

    /**
     * After {@link #leave()}: pass one of this worker's own idle connections (between requests,
     * nothing buffered, nothing owed: all its state is in the kernel) to a live sibling, which
     * admits it like a fresh accept. A reload or scale-down is then invisible to keep-alive
     * clients, where a close would race with their next request. Not under a policy whose
     * connections never move (fountain).
     *
     * @return true when a sibling took it; false: no live sibling would, or the policy keeps
     *         connections where they are: close it
     */
    boolean handOver(C connection) {
        if (!sharing || !left || !policy.movesConnections()) {
            // Fountain: established connections never move (seed 004), a leaver's neither; the
            // loop closes them once idle, as nginx's old workers do (ADR 0038).
            return false;
        }
        if (handOff.forward(self, connection) >= 0) {
            forwarded++;
            return true;
        }
        return false;
    }

    /** Connections this worker, leaving, forwarded or handed over to a sibling. */
    long forwardedCount() {
        return forwarded;
    }
}
