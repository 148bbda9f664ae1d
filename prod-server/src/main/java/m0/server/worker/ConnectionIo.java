package m0.server.worker;

import java.util.function.Predicate;
import m0.server.http.App;
import m0.server.http.HttpConfig;
import m0.server.jnr.Epoll;
import m0.server.jnr.EventFd;
import m0.server.jnr.FileSends;
import m0.server.log.RateLimitedLog;
import m0.server.share.Accepted;
import m0.server.tls.EngineSource;

/**
 * A worker's connection I/O: what its connections do with their bytes. A connection is admitted
 * ({@link ConnectionAdmission}: non-blocking, registered; epoll reports its request), read to its
 * session and written from its session's output ({@link ConnectionTraffic}, {@link AnswerWrites}:
 * at once, or with the pass's other answers in one ring call), closed after an error answer with
 * a lingering read ({@link LingeringClose}, nginx's lingering close), timed out at its session's
 * deadlines ({@link ConnectionTimeouts}), and handed off (out of epoll, then sent). The loop
 * ({@code m0.core.loop.WorkerLoop}) decides when; this class does it, through those parts.
 *
 * <p>Not thread-safe: the loop thread's, but for the sessions' completions, which the blocking
 * pool's threads report ({@link ConnectionTraffic#completed}).
 */
final class ConnectionIo {

    static final int IO_BYTES = 64 * 1024;
    /** Reads per readable event; level-triggered epoll brings us back for the rest. */
    static final int READS_PER_EVENT = 4;

    private final HttpConfig http;
    /** ADR 0033's A/B arm: read a new connection at once rather than when epoll reports it. */
    private final boolean eagerRead;
    /** File answers' files: opened natively, sent with sendfile(2) (docs/adr/0071). */
    private final FileSends fileSends = new FileSends(IO_BYTES);
    private final KeepAliveCounts counts = new KeepAliveCounts();
    /** How answers leave: write(2) at once, or a pass's answers in one ring call. */
    private final AnswerWrites answers;
    private final ConnectionCloser closer;
    private final ConnectionTimeouts timeouts;
    private final ConnectionTraffic traffic;
    private final ConnectionAdmission admission;
    /** The listener's TLS (ADR 0069); null: plain HTTP. Set after the warm-up, whose requests are plain. */
    private TlsReads tls;

    ConnectionIo(Epoll epoll, ConnectionTable table, HttpConfig http, App app, BlockingPool pool, EventFd wake,
                 RateLimitedLog failures, Runnable work, boolean eagerRead, boolean keepReceivedRegistered,
                 RingSends sends) {
        this.http = http;
        this.eagerRead = eagerRead;
        this.closer = new ConnectionCloser(table, counts, failures,
                keepReceivedRegistered ? c -> { } : c -> epoll.deleteQuietly(c.fd));
        this.answers = new AnswerWrites(epoll, sends, new AnswerWrites.Ends() {
            @Override
            public void flushed(Connection c, long now) {
                traffic.flushed(c, now);
            }

            @Override
            public void close(Connection c) {
                closer.close(c);
            }

            @Override
            public void fail(Connection c, RuntimeException e) {
                closer.fail(c, e);
            }
        }, fileSends::send);
        this.timeouts = new ConnectionTimeouts(table, closer, answers);
        this.traffic = new ConnectionTraffic(epoll, table, answers, closer, timeouts, counts, wake, work);
        this.admission = new ConnectionAdmission(epoll, table, http, app, pool, failures, counts,
                traffic::completed, new SendfileBodies(fileSends));
    }

    /** From now on requests are recorded (not the warm-up's). */
    void record(RequestRecorder recorder) {
        admission.record(recorder);
        traffic.record(recorder);
        answers.record(recorder); // the worker's counters begin with its first client too
    }

    /** From now on every connection admitted speaks TLS (ADR 0069): its handshake runs here. */
    void secure(EngineSource engines, String name, Runnable handshake) {
        this.tls = new TlsReads(engines, IO_BYTES, name, http.headerTimeoutNanos());
        admission.secure(tls);
        traffic.secure(tls, handshake);
        timeouts.secure(tls);
        closer.secure(tls);
    }

    /** From now on app failures go to {@code failed} (the worker's: its own log, its leave). */
    void reportFailures(FailedHandlers failed) {
        admission.reportFailures(failed);
    }

    /** Requests whose app code failed so far, for the worker's counters. */
    long handlerFailures() {
        return admission.handlerFailures().count();
    }

    /** How this worker writes its answers, for its start-up line. */
    String writes() {
        return answers.describe();
    }

    /** The pass's events come: their answers wait for {@link #sendDue} where the worker has a ring. */
    void batchSends() {
        answers.batchSends();
    }

    /** The events are handled: their answers go, in one ring call where the worker has a ring. */
    void sendDue(long now) {
        answers.sendDue(now);
    }

    /** Answers' write(2) calls since {@link #record}, for the worker's counters. */
    long writeCalls() {
        return answers.writeCalls();
    }

    /** TLS handshakes finished, full and resumed (ADR 0073), for the worker's counters. */
    long tlsFullHandshakes() {
        return tls == null ? 0 : tls.fullHandshakes();
    }

    long tlsResumedHandshakes() {
        return tls == null ? 0 : tls.resumedHandshakes();
    }

    /** File answers' sendfile(2) calls and bytes since {@link #record}, for the worker's counters. */
    long sendfileCalls() {
        return answers.sendfileCalls();
    }

    long sendfileBytes() {
        return answers.sendfileBytes();
    }

    /**
     * A connection accepted here or received from a sibling ({@link ConnectionAdmission#admit}).
     *
     * @return the connection, or null when it was reset before it could be registered, or its
     *         TLS engine could not be made (then closed)
     */
    Connection admit(int fd, byte[] peer, boolean received, long now) {
        return admit(fd, peer, received, false, now);
    }

    /** {@code settled}: it came settled (a keeping sibling's move, ADR 0059), and counts so at once. */
    Connection admit(int fd, byte[] peer, boolean received, boolean settled, long now) {
        Connection c = admission.admit(fd, peer, received, settled, now);
        if (c == null) {
            return null;
        }
        timeouts.soon(TlsReads.deadline(c)); // a client that never sends a byte meets its header timeout
        if (eagerRead) {
            traffic.readNow(c, now);
        }
        return c;
    }

    /** An epoll event on connection descriptor {@code fd}. */
    void onEvent(int fd, int events, long now) {
        traffic.onEvent(fd, events, now);
    }

    /** The wake-up descriptor was readable: the pool's answers are written. */
    void onWake(long now) {
        traffic.onWake(now);
    }

    long settled() {
        return counts.settled();
    }

    /** Connections closed at their one request's ask, and second requests: the load's shape (ADR 0041). */
    long shortCloses() {
        return counts.shortCloses();
    }

    long reuses() {
        return counts.reuses();
    }

    void close(Connection c) {
        closer.close(c);
    }

    /**
     * The hand-off of one of our idle connections (a leaver's hand-over, rebalance, the warm-up):
     * on true the channel holds it and we forget it; on false it is still ours and registered
     * again ({@link ConnectionAdmission#handOff}).
     */
    boolean handOff(Connection c, Predicate<? super Accepted> send) {
        return admission.handOff(c, send);
    }

    /** The earliest of the connections' deadlines. */
    long deadline() {
        return timeouts.deadline();
    }

    /** Timeouts: lingering closes ended, idle keep-alive connections closed, slow heads answered 408. */
    void sweep(long now) {
        timeouts.sweep(now);
    }
}
