package m0.server.worker;

import java.nio.ByteBuffer;
import m0.server.jnr.Epoll;
import m0.server.jnr.Fds;
import m0.server.jnr.FileSends;
import m0.server.jnr.Memory;
import m0.server.jnr.NativeException;
import m0.server.jnr.Sockets;

/**
 * How a worker's answers leave its connections: written at once with write(2), or, where the
 * worker has a ring and a pass's events are being handled, sent at the pass's end together in one
 * io_uring_enter (docs/adr/0049). Either way each write is settled within the pass: a short one
 * leaves EPOLLOUT registered, and a flush's end goes back to the connection's owner
 * ({@link Ends#flushed}), which decides whether it closes, lingers or waits for its next request.
 *
 * <p>Against the loop's output scratch (docs/adr/0036) one rule: a connection's output is looked
 * at only just before its bytes are copied out (into {@link #out}, or the ring's arena), never
 * before a call whose results run session code, which can take the scratch it sits in
 * ({@link #queue}; SendDueTest). Not thread-safe: the loop thread's.
 */
final class AnswerWrites {

    /** Writes (or sends) per connection per flush: a fast writer leaves the socket to the others. */
    private static final int WRITES_PER_FLUSH = 64;
    /** The most one sendfile(2) is asked for; the socket's room decides what it takes. */
    private static final long SENDFILE_ASK = 1L << 30;

    /** What a write's outcome asks of the connection's owner ({@link ConnectionIo}). */
    interface Ends {
        /** A flush's end: the socket took all it was offered, or the pass's share of writes is spent. */
        void flushed(Connection c, long now);

        /** Reset by the peer: a write or a send failed. */
        void close(Connection c);

        /** One connection's exception is that connection's, never the worker's. */
        void fail(Connection c, RuntimeException e);
    }

    private final Epoll epoll;
    private final Ends ends;
    private final Memory out = new Memory(ConnectionIo.IO_BYTES);
    /** The pass's answers, sent together at its end (docs/adr/0049); null: each written at once. */
    private final RingSends sends;
    private final RingSends.Result sendResult = this::sent;
    /** The pass's clock for {@link #sent}. */
    private long sendNow;
    /** Between {@link #batchSends} and {@link #sendDue}: the events' answers wait for the batch. */
    private boolean batching;
    /** Bytes out for the metrics and the access log (docs/adr/0017); set with ConnectionIo's, by its record(). */
    private RequestRecorder recorder;
    /** Answers' write(2) calls, for the worker's counters (the ring's sends are {@link RingSends}'). */
    private long writeCalls;
    /** File answers' sendfile(2) calls and the bytes they sent (docs/adr/0071), for the worker's counters. */
    private long sendfileCalls;
    private long sendfileBytes;
    /** How a file answer's bytes go from its descriptor to a plain connection's socket. */
    private final FileSender files;

    /** sendfile(2), or a test's recorder: bytes sent, 0 at the file's end, -1 when the socket is full. */
    interface FileSender {
        long send(int socketFd, int fileFd, long position, long count);
    }

    AnswerWrites(Epoll epoll, RingSends sends, Ends ends) {
        this(epoll, sends, ends, null);
    }

    /** {@code files}: null where file answers are read into the output instead (no descriptor). */
    AnswerWrites(Epoll epoll, RingSends sends, Ends ends, FileSender files) {
        this.epoll = epoll;
        this.sends = sends;
        this.ends = ends;
        this.files = files;
    }

    /** From now on bytes out are recorded, and the counters begin (the warm-up's are not a client's). */
    void record(RequestRecorder recorder) {
        this.recorder = recorder;
        writeCalls = 0;
        sendfileCalls = 0;
        sendfileBytes = 0;
        if (sends != null) {
            sends.resetCounts();
        }
    }

    long writeCalls() {
        return writeCalls;
    }

    long sendfileCalls() {
        return sendfileCalls;
    }

    long sendfileBytes() {
        return sendfileBytes;
    }

    /**
     * Writes what the session has, in order: with the pass's other answers to its events where
     * the worker has a ring and the events are being handled ({@link #sendDue}), else now.
     */
    void flush(Connection c, long now) {
        if (batching && c.tls == null) { // TLS records are written at once (ADR 0069: the ring is plain's for now)
            sends.due(c);
        } else {
            writeNow(c, now);
        }
    }

    /** How this worker writes its answers, for its start-up line. */
    String describe() {
        return sends != null && sends.usable() ? "answers sent through io_uring" : "answers written with write(2)";
    }

    /** The pass's events come: their answers wait for {@link #sendDue} where the worker has a ring. */
    void batchSends() {
        batching = sends != null && sends.usable();
    }

    /**
     * Writes with write(2). EPOLLOUT stays registered while output is left: after a short write
     * (the socket is full) and after this pass's share of writes (the socket is still writable,
     * so the next pass comes back at once, after the other ready connections had their turn).
     */
    private void writeNow(Connection c, long now) {
        try {
            for (int k = 0; k < WRITES_PER_FLUSH; k++) {
                int file = c.tls == null && files != null ? c.session.fileToSend() : -1;
                if (file >= 0) {
                    if (!sentFile(c, file, now)) {
                        return;
                    }
                    continue;
                }
                ByteBuffer o = c.tls == null ? c.session.output() : c.tls.output(c.session, now);
                if (o == null || !o.hasRemaining()) {
                    break;
                }
                int len = Math.min(o.remaining(), ConnectionIo.IO_BYTES);
                out.buffer().put(0, o, o.position(), len);
                noDelayBeforeSecondWrite(c);
                writeCalls++;
                boolean more = c.tls == null && files != null && c.session.fileFollows(); // corked with the file
                int n = more ? FileSends.sendMore(c.fd, out.address(), len) : Fds.write(c.fd, out.address(), len);
                if (!wrote(c, n, len, now)) {
                    return;
                }
            }
        } catch (NativeException e) {
            ends.close(c);
            return;
        } catch (javax.net.ssl.SSLException e) {
            ends.fail(c, new IllegalStateException("TLS: " + e.getMessage(), e));
            return;
        }
        ends.flushed(c, now);
    }

    /**
     * The events are handled: every answer they made goes in one io_uring_enter (docs/adr/0049),
     * each send settled within it as a write(2) would be, so what the pass closes is closed before
     * its end counts what it holds. A connection with more output than one send takes goes again
     * in the next call, up to this pass's share of writes. Later answers in the pass (a timeout's
     * 408) are written at once.
     */
    void sendDue(long now) {
        if (!batching) {
            return;
        }
        batching = false;
        sendNow = now;
        for (int round = 0; round < WRITES_PER_FLUSH && sends.hasDue(); round++) {
            sends.beginRound();
            Connection c;
            while ((c = sends.nextInRound()) != null) {
                if (c.closed) {
                    continue;
                }
                try {
                    if (sends.usable()) {
                        queue(c, now);
                    } else {
                        writeNow(c, now); // the ring failed this pass
                    }
                } catch (RuntimeException e) {
                    ends.fail(c, e); // one connection's failure is that connection's, as in onEvent
                }
            }
            sends.send(sendResult);
        }
        sends.beginRound();
        Connection c;
        while ((c = sends.nextInRound()) != null) {
            if (!c.closed) {
                try {
                    ends.flushed(c, now); // this pass's share is spent: EPOLLOUT brings it back next pass
                } catch (RuntimeException e) {
                    ends.fail(c, e);
                }
            }
        }
    }

    /**
     * One sendfile(2) of the file answer {@code c} owes (docs/adr/0071): true when the connection
     * may write on. A full socket leaves EPOLLOUT registered, as a short write does; a file that
     * ended short of its length is the session's cut, and the connection closes after it.
     */
    private boolean sentFile(Connection c, int file, long now) {
        long ask = Math.min(c.session.fileLeft(), SENDFILE_ASK);
        noDelayBeforeSecondWrite(c);
        sendfileCalls++;
        long n = files.send(c.fd, file, c.session.fileSent(), ask);
        if (n < 0) {
            c.watch(epoll);
            return false;
        }
        if (n > 0) {
            sendfileBytes += n;
            if (recorder != null) {
                recorder.bytesOut((int) n);
            }
        }
        c.session.sentFromFile(n, now);
        if (n == 0) {
            ends.flushed(c, now); // the cut: closeAfterFlush says so
            return false;
        }
        if (n < ask) {
            c.watch(epoll);
            return false;
        }
        return true;
    }

    /** One send of {@code c}'s output into the call being built, or its flush's end when it has none. */
    private void queue(Connection c, long now) {
        if (!sends.fits(ConnectionIo.IO_BYTES)) {
            // The call is full: it goes now, c starts the next. Before c's output is looked at:
            // the results run session code that can take the loop's scratch c's output may be in.
            sends.send(sendResult);
            if (!sends.usable()) {
                writeNow(c, now);
                return;
            }
        }
        if (files != null && c.session.fileToSend() >= 0) {
            writeNow(c, now); // a file answer goes by sendfile(2), not through the ring's arena
            return;
        }
        ByteBuffer o = c.session.output();
        if (o == null || !o.hasRemaining()) {
            ends.flushed(c, now);
            return;
        }
        int len = Math.min(o.remaining(), ConnectionIo.IO_BYTES);
        try {
            noDelayBeforeSecondWrite(c);
        } catch (NativeException e) {
            ends.close(c);
            return;
        }
        sends.add(c, o, len, files != null && c.session.fileFollows() ? FileSends.MSG_MORE : 0);
    }

    private void sent(Connection c, int result, int length) {
        if (c.closed) {
            return;
        }
        if (result < -1) {
            ends.close(c); // the send failed as a write(2) would have thrown: reset by the peer
            return;
        }
        try {
            if (wrote(c, result, length, sendNow)) {
                sends.due(c); // more output, or its flush's end: the next call decides
            }
        } catch (RuntimeException e) {
            ends.fail(c, e);
        }
    }

    private static void noDelayBeforeSecondWrite(Connection c) {
        if (c.writes < Connection.NO_DELAY && ++c.writes == Connection.NO_DELAY) {
            Sockets.setNoDelay(c.fd); // the second write: the first may still be unacknowledged
        }
    }

    /** A write's result (-1: the socket was full): true when the connection may write on. */
    private boolean wrote(Connection c, int n, int length, long now) {
        if (n < 0) {
            c.watch(epoll);
            return false;
        }
        if (recorder != null) {
            recorder.bytesOut(n);
        }
        if (c.tls == null) {
            c.session.written(n, now);
        } else {
            c.tls.written(n); // the session's output moved on when it was wrapped
        }
        if (n < length) {
            c.watch(epoll);
            return false;
        }
        return true;
    }
}
