package m0.core.loop;

import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * Port: the connections a worker holds, and what the loop asks of them. What a connection does
 * with its bytes (HTTP, timeouts, lingering closes, the blocking pool) is the implementation's;
 * which connection is idle enough to move is too. The loop only decides when connections are
 * admitted, moved, handed over or closed.
 *
 * @param <C> the connection handle of an accept or a receipt
 */
public interface Connections<C> {

    /** Open connections now: what a pass end publishes as {@code active}. */
    long open();

    /**
     * The accept path's tail, shared by fresh accepts and hand-offs: the connection is this
     * worker's to serve from now on. {@code received}: it came over the channel.
     */
    void admit(C connection, boolean received);

    /**
     * Rebalance's move: one connection that can move now (between requests, nothing buffered,
     * nothing owed), taken out of service and offered to {@code send}; on true it is gone, on
     * false it is served again as before. One whose affinity is {@code affinity} when one can
     * move; else, unless {@code onlyThatKind} (a swap's move), any
     * ({@link m0.core.Rebalance#ANY_AFFINITY}: any from the start).
     *
     * @return true when one moved; false when none could, or {@code send} refused it
     */
    boolean moveIdle(int affinity, boolean onlyThatKind, Predicate<? super C> send);

    /**
     * The affinities of the connections held now, bit j while one pairs with worker j (j below
     * {@link m0.core.PageLayout#AFFINE_WORKERS}): the worker whose loop its client's thread
     * should meet, as the implementation reads it (m0serve: the CPU its packets arrive on,
     * ADR 0057). A connection whose affinity is not known yet has no bit. Without a reading: 0,
     * and no rebalance swap ever starts here.
     */
    default long affinities() {
        return 0;
    }

    /**
     * Settled connections held now: keep-alive ones that have begun a second request here, or
     * came here settled (a move carries it; ADR 0059). What a keeping worker's rebalance evens
     * (connections that close after one request never settle). O(1): read at every pass end.
     * Without a reading: 0, and a keeping worker never moves one.
     */
    default long settled() {
        return 0;
    }

    /**
     * A keeping worker's move (ADR 0059): one settled connection that can move now, offered to
     * {@code send} as {@link #moveIdle} does; none of another kind.
     *
     * @return true when one moved; false when none could, or {@code send} refused it
     */
    default boolean moveSettled(Predicate<? super C> send) {
        return false;
    }

    /**
     * Whether this connection's TLS handshake has begun here (it holds TLS state in this
     * worker's memory): then it never moves (ADR 0069, {@link m0.core.Mobility}); the loop
     * refuses a move the implementation offers for one. Plain connections: false.
     */
    default boolean handshakeBegun(C connection) {
        return false;
    }

    /**
     * A leaver's idle connections: each one offered to {@code handOver}; one it refuses, or that
     * cannot move (owing a close), is closed, unless {@code keep} says to keep serving it for now.
     */
    void leaveIdle(Predicate<? super C> handOver, BooleanSupplier keep);

    /** The grace period is over: every connection is closed. */
    void closeAll();

    /** When the earliest of the connections' own timers is due (idle, header, linger); MAX_VALUE: none. */
    long deadline();

    /** The timers due at {@code now}: timeouts answered or closed. */
    void expire(long now);

    /** The blocking pool's threads' cumulative busy time, a running task counted up to {@code now}. */
    long poolBusyNanos(long now);

    /** The blocking pool's size; 0 without one. */
    int poolThreads();

    /**
     * Connections closed so far having answered at most one request, whose request asked for
     * the close (cumulative): churn, the evidence that arrivals are not worth balancing
     * ({@link m0.core.LoadShape}). One that went idle keep-alive and was hung up is not counted.
     */
    long shortCloses();

    /** Connections that have begun a second request so far (cumulative, once each): keep-alive. */
    long reuses();
}
