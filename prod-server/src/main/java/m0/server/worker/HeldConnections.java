package m0.server.worker;

import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import m0.core.Clock;
import m0.core.Mobility;
import m0.core.loop.Connections;
import m0.server.share.Accepted;

/**
 * The core loop's {@link Connections} port over this worker's connection table and I/O: what
 * the loop admits, moves, hands over and closes, and which connection is idle enough for it.
 */
final class HeldConnections implements Connections<Accepted> {

    private final ConnectionTable table;
    private final ConnectionIo io;
    private final BlockingPool pool;
    private final Clock clock;

    HeldConnections(ConnectionTable table, ConnectionIo io, BlockingPool pool, Clock clock) {
        this.table = table;
        this.io = io;
        this.pool = pool;
        this.clock = clock;
    }

    @Override
    public long open() {
        return table.open();
    }

    @Override
    public void admit(Accepted connection, boolean received) {
        io.admit(connection.fd(), connection.peer(), received, connection.settled(), clock.nanoTime());
    }

    /**
     * Rebalance's move: a connection that can move now, taken in turn: between requests, nothing
     * buffered in userspace, no response owed or being written, not mid-body, no app call on the
     * pool, not closing. All its state is in the kernel then; a request the client sends
     * meanwhile waits in the socket for the sibling.
     */
    @Override
    public boolean moveIdle(int affinity, boolean onlyThatKind, Predicate<? super Accepted> send) {
        Connection c = affinity < 0 ? null : table.next(x -> x.affinity == affinity && movable(x));
        if (c == null && !(onlyThatKind && affinity >= 0)) {
            c = table.next(HeldConnections::movable);
        }
        return c != null && io.handOff(c, send);
    }

    @Override
    public long settled() {
        return io.settled();
    }

    /** A keeping worker's move (ADR 0059): a settled connection that can move now; it travels settled. */
    @Override
    public boolean moveSettled(Predicate<? super Accepted> send) {
        Connection c = table.next(x -> x.reused && movable(x));
        return c != null && io.handOff(c, send);
    }

    @Override
    public long affinities() {
        return table.affinities().mark();
    }

    /** Its TLS handshake began here (ADR 0069): the core's loop never moves it. */
    @Override
    public boolean handshakeBegun(Accepted connection) {
        Connection c = table.get(connection.fd());
        return c != null && c.handshakeBegun();
    }

    private static boolean movable(Connection c) {
        return Mobility.mayMove(c.handshakeBegun()) && !c.closed && !c.lingering && c.peer != null && c.session.idle()
                && !c.session.closeAfterFlush() && c.session.wantsInput();
    }

    /**
     * A leaver's idle connections (between requests, nothing owed): each one that can move goes
     * to {@code handOver}; one it refuses, or that owes a close, is closed, unless {@code keep}
     * says to serve it on for now (a sibling is starting).
     */
    @Override
    public void leaveIdle(Predicate<? super Accepted> handOver, BooleanSupplier keep) {
        table.forEach(c -> {
            if (!c.session.idle() || c.outputWaits()) { // under TLS: ciphertext not yet written too
                return; // a request in flight: finished first, offered at a later step
            }
            // A TLS connection stays where its handshake ran (ADR 0069): closed gracefully here.
            boolean moves = !c.session.closeAfterFlush() && c.peer != null && Mobility.mayMove(c.handshakeBegun());
            if (moves && (io.handOff(c, handOver) || keep.getAsBoolean())) {
                return;
            }
            io.close(c);
        });
    }

    @Override
    public void closeAll() {
        table.forEach(io::close);
    }

    @Override
    public long deadline() {
        return io.deadline();
    }

    @Override
    public void expire(long now) {
        io.sweep(now);
    }

    @Override
    public long poolBusyNanos(long now) {
        return pool == null ? 0 : pool.busyNanos(now); // a few loads: no lock
    }

    @Override
    public int poolThreads() {
        return pool == null ? 0 : pool.size();
    }

    @Override
    public long shortCloses() {
        return io.shortCloses();
    }

    @Override
    public long reuses() {
        return io.reuses();
    }
}
