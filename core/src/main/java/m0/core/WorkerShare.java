package m0.core;

import java.util.function.Consumer;

/**
 * One worker's side of accept sharing, as its loop ({@link m0.core.loop.WorkerLoop}) drives it:
 * the protocol of {@code DESIGN.md}. {@link AcceptShare} is the one implementation; the
 * checkers wrap it to put one historical ordering back into one operation (test code only), and
 * the loop that runs in m0serve runs over whichever they give it.
 *
 * <p>In a worker's life: {@link #bind()} as its first act, {@link #start()} when it is ready to
 * serve; per pass {@link #work()} at its first real work, {@link #admitted()} for every accept
 * and receipt, {@link #passOn} for every accept,
 * {@link #receive()} to null when its channel is readable, {@link #passEnd(long)}; to stop,
 * {@link #leave()} and {@link #leaveStep} until it says done. Not thread-safe: one per worker.
 */
public interface WorkerShare<C> {

    /** This worker's index. */
    int self();

    /** False with one worker or the race policy: then no per-pass entry point touches the page. */
    boolean sharing();

    /** The accept policy this worker picks with. */
    AcceptPolicy policy();

    /** A replacement's first act: NOT_STARTED, keeping the predecessor's counts (start settles them). */
    void bind();

    /** The loop is ready to serve: take over the index ({@code pending -= taken; taken = 0; PARKED}). */
    void start();

    /** A pass that will do work begins: publish its start (a scripted pass; the loop uses {@link #work()}). */
    void passStart();

    /** This pass has work: publish its start now, once per pass (busy means busy, ADR 0015). */
    void work();

    /**
     * This pass accepted or received a connection: work the page shows ({@link #work()}) only
     * where the policy counts an admission as busy (share does not, ADR 0052).
     */
    void admitted();

    /**
     * This pass runs a TLS handshake (ADR 0069, addendum): a part of the connection's admission,
     * which runs no view and always ends, so the page shows it as {@link #admitted()} does. A
     * handshake stamped like a view made a worker inside a pass of handshakes read to its
     * siblings' picks as a slow view, and they kept what they accepted: a storm landed 44/20.
     */
    void handshaking();

    /** A pass ends: publish {@code open} and PARKED (unless left), retire what it received. */
    void passEnd(long open);

    /** Who should serve a connection this worker accepted with {@code open} others open. */
    int pick(long open);

    /** Passes {@code connection} R5 + B25-safely to {@code target}; false: the caller still owns it. */
    boolean sendWith(int target, C connection);

    /**
     * The accept path's send: as {@link #sendWith}, raised only if {@code target}'s counts still
     * hold what the last {@link #pick} read of them (ADR 0043).
     *
     * @return {@link HandOff#SENT}, {@link HandOff#REFUSED} (the caller keeps it) or
     *         {@link HandOff#MOVED} (nothing raised: pick again)
     */
    int sendPicked(int target, C connection);

    /**
     * An accepted connection stays here: publish this worker's load at once (ADR 0007), so that a
     * sibling accepting from the same burst in its own pass picks against it.
     */
    void kept(long open);

    /**
     * The accept path's keep (ADR 0053): {@link #kept}, published only on this worker's counts as
     * its last {@link #pick} read them.
     *
     * @return true when kept and published; false: nothing published, those counts moved since
     *     the pick read them (a sibling's send landed here): pick again
     */
    boolean keptIfUnchanged(long open);

    /**
     * How many picks one accept makes at most. A pick is made again only when the counts it
     * decided on moved before the decision was published: the target's between the read and the
     * raise (a sibling's keep, receipt or raise), or this worker's own between the read and the
     * keep (a sibling's raise or take-back, the supervisor's heal request); each takes a write
     * landing in a window of a few instructions. The last pick raises or keeps as the seed does,
     * whatever moved (the two-acceptor bound of ADR 0040 again, never worse).
     */
    int PICKS = 4;

    /**
     * The accept path: pick, and send if the pick is a sibling; a connection kept here is
     * published in {@code active} at once ({@link #keptIfUnchanged}).
     *
     * @return true when a sibling took the connection; false: admit it here
     */
    default boolean passOn(C connection, long open) {
        if (!sharing()) {
            return false;
        }
        for (int picks = 1; ; picks++) {
            boolean last = picks == PICKS;
            int target = pick(open);
            // Two acceptors of one burst each pick blind to the other's decision in flight; a send
            // raised only on the counts its pick read (ADR 0043), and a keep published only on the
            // counts its pick read (ADR 0053), each lands on the load it was decided on.
            if (target == self()) {
                if (last) {
                    kept(open); // the last pick keeps as the seed does, whatever moved
                    return false;
                }
                if (keptIfUnchanged(open)) {
                    return false;
                }
                continue;
            }
            int sent = !last ? sendPicked(target, connection)
                    : sendWith(target, connection) ? HandOff.SENT : HandOff.REFUSED;
            if (sent == HandOff.SENT) {
                return true;
            }
            if (sent == HandOff.REFUSED) {
                kept(open);
                return false;
            }
        }
    }

    /**
     * After an accept this worker kept: {@link AcceptPolicy#GO_ON} with the batch,
     * {@link AcceptPolicy#END_BATCH}, or end it and have the sibling returned look at the
     * listener now (fountain: {@link AcceptPolicy#endBatch}).
     */
    int endBatch();

    /**
     * The loop looked at the listener and found it {@code readable} or not: listen to it (and
     * accept now, when readable)? False (fountain): leave it to an earlier worker until
     * {@link #listenDeadline()}.
     */
    boolean takeListener(boolean readable);

    /** After {@link #takeListener} said false: when the loop looks at the listener again. */
    long listenDeadline();

    /**
     * The loop keeps its listener out for reasons of its own ({@code held}: its connection cap,
     * an EMFILE back-off) or takes it back: published where siblings that leave connections to
     * this worker read it (ADR 0038).
     */
    void holdListener(boolean held);

    /**
     * A reading of the loop's cumulative busy nanoseconds and its blocking pool's (fountain's
     * estimator, ADR 0029); at every pass end, and at least every 20 ms.
     */
    void sample(long busyNanosTotal, long poolBusyNanosTotal, int poolThreads);

    /**
     * The loop's reading of its connections' shape at the start of a pass, before its accepts:
     * the driver's cumulative short closes and reuses (share's gate, ADR 0041).
     */
    void shape(long now, long shortCloses, long reuses);

    /** When the policy wants its next shape reading even if no pass comes; MAX_VALUE: never. */
    long shapeDeadline();

    /**
     * Whether this worker and every live sibling keep what they accept ({@link LoadShape}: the
     * arrivals close short everywhere), as the page shows now. The loop defers accepts to the
     * request's arrival only then (ADR 0056); false for a policy that does not judge the shape.
     */
    boolean keepingEverywhere();

    /**
     * The next connection from this worker's channel to admit through the accept path's tail,
     * or null at EAGAIN. After {@link #leave()} it forwards what arrives to a live sibling.
     */
    C receive();

    /** A heal of this index's counts was asked for and is not complete: one read of its counts. */
    boolean healDue();

    /** Start leaving: LEFT first (B25). Then {@link #leaveStep} until false. */
    void leave();

    /** One step of the leaver's bounded drain; true while it must go on. */
    boolean leaveStep(Consumer<? super C> admit);

    /** A leaver should hold what no live sibling takes: one is starting, within the wait. */
    boolean awaitingStart();

    /** A leaver hands one of its own idle connections to a live sibling; false: close it. */
    boolean handOver(C connection);

    /**
     * Whether a connection may be moved at all (ADR 0069): the loop asks before every rebalance
     * move and every leaver's hand-over. False once its TLS handshake began: its session lives
     * in this worker's memory ({@link Mobility}).
     */
    default boolean mayMove(boolean handshakeBegun) {
        return Mobility.mayMove(handshakeBegun);
    }

    /**
     * Whether this worker looks at moving idle connections at all: sharing, rebalance on, and a
     * policy whose connections move. False: the loop keeps no rebalance timer.
     */
    boolean rebalances();

    /**
     * Rebalance, the look: to whom to hand one idle connection now; {@link #self()} for nobody.
     * {@code settled}: the held settled connections ({@link m0.core.loop.Connections#settled}),
     * which a keeping worker's look compares (ADR 0059); {@code affinities}: the held
     * connections' ({@link m0.core.loop.Connections#affinities}), for the swap (ADR 0057).
     */
    int rebalancePick(long open, long settled, long affinities);

    /**
     * Rebalance: whether the last look was a keeping worker's (ADR 0059), whose move takes only a
     * settled connection ({@link m0.core.loop.Connections#moveSettled}).
     */
    boolean settledOnly();

    /** At a pass end, before it: the held settled connections, published on a change (share, ADR 0059). */
    void publishSettled(long settled);

    /**
     * Rebalance, which connection a move to {@code target} takes: an affinity to ask the
     * connections for, or {@link Rebalance#ANY_AFFINITY}.
     */
    int affinityToMove(int target, long affinities);

    /**
     * Rebalance: whether the last look named a swap, whose move takes only a connection of its
     * target's kind ({@link #affinityToMove}); a plain move takes any idle one when none is.
     */
    boolean swapping();

    /** At a pass end: the held connections' affinities, published as this worker's AFFINE mark on a change. */
    void publishAffinities(long affinities);

    /** Rebalance, the move: hand the idle {@code connection} to {@code target}. */
    boolean rebalance(int target, C connection);
}
