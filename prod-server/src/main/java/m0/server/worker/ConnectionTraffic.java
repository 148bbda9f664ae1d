package m0.server.worker;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import m0.server.jnr.Epoll;
import m0.server.jnr.EventFd;
import m0.server.jnr.Fds;
import m0.server.jnr.Memory;
import m0.server.jnr.NativeException;

/**
 * The read/write path of a worker's connections: an epoll event's bytes read to the session
 * (through TLS where the listener has it), the session's output written ({@link AnswerWrites}),
 * the pool's answers written after their wake-up, and a flush's end: wait for more, close, or
 * linger after an error answer ({@link LingeringClose}).
 *
 * <p>Not thread-safe: the loop thread's, but for {@link #completed}, which the blocking pool's
 * threads call.
 */
final class ConnectionTraffic {

    private final Epoll epoll;
    private final ConnectionTable table;
    private final AnswerWrites answers;
    private final ConnectionCloser closer;
    private final ConnectionTimeouts timeouts;
    private final KeepAliveCounts counts;
    /** The loop's "this pass has work": a connection's bytes may run the app inline. */
    private final Runnable work;
    private final Memory in = new Memory(ConnectionIo.IO_BYTES);
    private final ByteBuffer inView;
    /** After an error answer: FIN, and the client's bytes read and dropped until a bound. */
    private final LingeringClose lingering;
    /** The pool's answers, and the one wake-up a batch of them costs. */
    private final EventFd wake;
    private final AtomicBoolean wakePending = new AtomicBoolean();
    private final ConcurrentLinkedQueue<Connection> completions = new ConcurrentLinkedQueue<>();
    /** Metrics counters and the access log (docs/adr/0017); null when neither is on, or warming up. */
    private RequestRecorder recorder;
    /** The listener's TLS (ADR 0069); null: plain HTTP. Set after the warm-up, whose requests are plain. */
    private TlsReads tls;
    /** The loop's handshaking(): a handshake's bytes are admission work, no view (ADR 0069, addendum). */
    private Runnable handshake;

    ConnectionTraffic(Epoll epoll, ConnectionTable table, AnswerWrites answers, ConnectionCloser closer,
                      ConnectionTimeouts timeouts, KeepAliveCounts counts, EventFd wake, Runnable work) {
        this.epoll = epoll;
        this.table = table;
        this.answers = answers;
        this.closer = closer;
        this.timeouts = timeouts;
        this.counts = counts;
        this.wake = wake;
        this.work = work;
        this.inView = in.buffer().duplicate();
        this.lingering = new LingeringClose(epoll, in);
    }

    /** From now on bytes read are recorded (not the warm-up's). */
    void record(RequestRecorder recorder) {
        this.recorder = recorder;
    }

    /** From now on every connection's bytes go through its TLS; its handshake is {@code handshake}'s work. */
    void secure(TlsReads tls, Runnable handshake) {
        this.tls = tls;
        this.handshake = handshake;
    }

    /**
     * The pass works on {@code c}: while its TLS handshake is under way that is the connection's
     * admission, which runs no app code and ends, so under share it stamps no pass (ADR 0069,
     * addendum: stamped, a worker in a pass of handshakes read as a slow view to its siblings'
     * picks, and a storm landed 44/20); anything else may run the app inline.
     */
    private void working(Connection c) {
        if (c.tls != null && (!c.tls.handshakeBegun() || c.tls.handshaking())) {
            handshake.run();
        } else {
            work.run();
        }
    }

    /** ADR 0033's A/B arm: a new connection read at once rather than when epoll reports it. */
    void readNow(Connection c, long now) {
        // The app may run inline: a view the page must show (under share an admission,
        // accept or receipt, stamps nothing: ADR 0052), so its siblings' picks can skip it.
        working(c);
        onReadable(c, now, Epoll.IN);
    }

    /** An epoll event on connection descriptor {@code fd}. */
    void onEvent(int fd, int events, long now) {
        Connection c = table.get(fd);
        if (c == null || c.closed) {
            return;
        }
        working(c); // bytes to parse, output to write, an EOF: the app's code may run inline
        try {
            if ((events & (Epoll.IN | Epoll.HUP | Epoll.ERR)) != 0) {
                onReadable(c, now, events);
            } else if ((events & Epoll.OUT) != 0) {
                answers.flush(c, now);
            }
        } catch (RuntimeException e) {
            closer.fail(c, e); // one connection's failure is that connection's, never the worker's
        } catch (Error e) {
            closer.failOrRethrow(c, e);
        }
    }

    /** From a pool thread: a response is ready. One eventfd write per batch of completions. */
    void completed(Connection c) {
        completions.add(c);
        if (wakePending.compareAndSet(false, true)) {
            wake.signal();
        }
    }

    /** The wake-up descriptor was readable: the pool's answers are written. */
    void onWake(long now) {
        wake.drain();
        wakePending.set(false);
        Connection c;
        while ((c = completions.poll()) != null) {
            if (!c.closed) {
                work.run();
                try {
                    c.session.pollCompletions(now);
                    answers.flush(c, now);
                    if (!c.closed) {
                        // Its deadline may have come back from none: a writer lent the socket gave
                        // it back full (ADR 0071's last addendum), or a streamed body's bytes wait
                        // for a client that may have stopped reading. A sweep then comes for it.
                        timeouts.soon(TlsReads.deadline(c));
                    }
                } catch (RuntimeException e) {
                    closer.fail(c, e);
                } catch (Error e) {
                    closer.failOrRethrow(c, e);
                }
            }
        }
    }

    private void onReadable(Connection c, long now, int events) {
        if (c.lingering || !c.session.wantsInput()) {
            notReading(c, now, events); // kept out of line: this method is the hot path
            return;
        }
        try {
            for (int k = 0; k < ConnectionIo.READS_PER_EVENT && c.session.wantsInput(); k++) {
                int n = Fds.read(c.fd, in.address(), ConnectionIo.IO_BYTES);
                if (n < 0) {
                    break;
                }
                if (n == 0) {
                    try {
                        c.session.onEof(now);
                    } catch (RuntimeException e) {
                        closer.fail(c, e);
                        return;
                    }
                    break;
                }
                if (recorder != null) {
                    recorder.bytesIn(n);
                }
                inView.limit(n).position(0);
                try {
                    if (c.tls == null) {
                        c.session.onBytes(inView, now);
                    } else if (!tlsRead(c, now)) { // a view from its first plaintext byte on (work)
                        return;
                    }
                } catch (RuntimeException e) {
                    closer.fail(c, e); // one broken session (a full pool, an app bug) must not stop the worker
                    return;
                }
                counts.readRequest(c);
                if (c.reused) {
                    table.affinities().requested(c, c.session.requests()); // a swap's kind (ADR 0057)
                }
                if (n < ConnectionIo.IO_BYTES) {
                    break;
                }
            }
        } catch (NativeException e) {
            closer.close(c); // reset by the peer
            return;
        }
        answers.flush(c, now);
    }

    /**
     * Ciphertext in {@link #inView} through the connection's TLS ({@link TlsReads}): true to
     * read on; false when the connection is done with here (closed, or closing after its flush).
     */
    private boolean tlsRead(Connection c, long now) {
        switch (tls.read(c, inView, now, work)) {
            case CLOSE -> {
                closer.close(c);
                return false;
            }
            case PEER_CLOSED -> {
                answers.flush(c, now); // our close_notify, then the session's close
                return false;
            }
            default -> {
                return true;
            }
        }
    }

    /** Readiness on a connection we are not reading: lingering, or EPOLLIN off a moment ago. */
    private void notReading(Connection c, long now, int events) {
        if (c.lingering) {
            discard(c, now);
        } else if ((events & (Epoll.ERR | Epoll.HUP)) != 0) {
            closer.close(c); // only an error or hang-up is reported with EPOLLIN off
        } else {
            answers.flush(c, now);
        }
    }

    /** A flush's end: the socket took all this pass offered it. */
    void flushed(Connection c, long now) {
        if (c.outputWaits()) {
            c.watch(epoll); // this pass's share is spent; more next pass
            return;
        }
        if (c.session.closeAfterFlush()) {
            if (c.session.lingerOnClose()) {
                linger(c, now);
            } else {
                closer.close(c);
            }
            return;
        }
        c.watch(epoll);
        timeouts.soon(TlsReads.deadline(c));
    }

    /** After an error answer is flushed ({@link LingeringClose}). */
    private void linger(Connection c, long now) {
        if (!lingering.begin(c, now)) {
            closer.close(c); // already reset
            return;
        }
        timeouts.soon(c.lingerIdleEnd);
        discard(c, now);
    }

    private void discard(Connection c, long now) {
        if (lingering.discard(c, now)) {
            closer.close(c);
        }
    }
}
