package m0.core;

/**
 * Which connections may change workers (ADR 0069). A connection moves (share's pass-on, a
 * leaver's forward or hand-over, rebalance) only while all its state is in the kernel. A TLS
 * connection's is not once its handshake began: the engine's keys, sequence numbers and
 * session live in the memory of the worker that read the ClientHello, and no descriptor
 * passing carries them. So such a connection is pinned: it is served where its handshake ran
 * for its life, and a leaver closes it gracefully (close_notify, then FIN) once it is idle, as
 * nginx does at a graceful stop, instead of handing it over.
 */
public final class Mobility {

    private Mobility() {
    }

    /**
     * The rule. {@code handshakeBegun}: the connection's TLS handshake has begun in this worker
     * (it holds TLS state). A plain connection, and a TLS one not yet read, may move.
     */
    public static boolean mayMove(boolean handshakeBegun) {
        return !handshakeBegun;
    }
}
