package m0.server.worker;

/**
 * A worker's connections' deadlines: the earliest of them, and what each means when it passes
 * (a lingering close ended, a TLS handshake unfinished, an idle keep-alive connection closed, a
 * slow head answered 408). Not thread-safe: the loop thread's.
 */
final class ConnectionTimeouts {

    /** A deadline that did not move is looked at again this much later, not at once. */
    private static final long MIN_SWEEP_NANOS = 10_000_000L;

    private final ConnectionTable table;
    private final ConnectionCloser closer;
    private final AnswerWrites answers;
    /** The listener's TLS (ADR 0069); null: plain HTTP. */
    private TlsReads tls;
    /** The earliest of the connections' deadlines (MAX_VALUE: none). */
    private long nextSweep = Long.MAX_VALUE;

    ConnectionTimeouts(ConnectionTable table, ConnectionCloser closer, AnswerWrites answers) {
        this.table = table;
        this.closer = closer;
        this.answers = answers;
    }

    /** From now on connections may wait on their TLS handshakes' deadlines. */
    void secure(TlsReads tls) {
        this.tls = tls;
    }

    /** The earliest of the connections' deadlines. */
    long deadline() {
        return nextSweep;
    }

    /** A connection's deadline: the next sweep comes no later. */
    void soon(long deadline) {
        if (deadline - nextSweep < 0) {
            nextSweep = deadline;
        }
    }

    /** Timeouts: lingering closes ended, idle keep-alive connections closed, slow heads answered 408. */
    void sweep(long now) {
        nextSweep = Long.MAX_VALUE;
        table.forEach(c -> expire(c, now));
    }

    private void expire(Connection c, long now) {
        if (c.lingering && now - LingeringClose.deadline(c) >= 0) {
            closer.close(c);
            return;
        }
        if (!c.lingering && TlsReads.handshakePending(c)) {
            if (now - c.handshakeDeadline >= 0) {
                tls.handshakeTimedOut();
                closer.close(c);
                return;
            }
            soon(c.handshakeDeadline); // the session's clocks wait for the handshake's end
            return;
        }
        if (!c.lingering && now - c.session.deadline() >= 0) {
            try {
                c.session.onTimeout(now);
            } catch (RuntimeException e) {
                closer.fail(c, e);
                return;
            }
            answers.flush(c, now);
            if (c.closed) {
                return;
            }
        }
        long d = c.lingering ? LingeringClose.deadline(c) : c.session.deadline();
        soon(d - now <= 0 ? now + MIN_SWEEP_NANOS : d); // a deadline that did not move must not spin the loop
    }
}
