package m0.server.worker;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Predicate;
import m0.server.http.App;
import m0.server.http.HttpConfig;
import m0.server.http.HttpSession;
import m0.server.http.Scratch;
import m0.server.jnr.FileSends;
import m0.server.jnr.Epoll;
import m0.server.jnr.EventFd;
import m0.server.jnr.Fds;
import m0.server.jnr.Memory;
import m0.server.jnr.NativeException;
import m0.server.jnr.Sockets;
import m0.server.log.RateLimitedLog;
import m0.server.share.Accepted;
import m0.server.tls.EngineSource;

/**
 * A worker's connection I/O: what its connections do with their bytes. A connection is admitted
 * (non-blocking, registered; epoll reports its request), read to its session, written from its
 * session's output ({@link AnswerWrites}: at once, or with the pass's other answers in one ring
 * call), closed after an error answer with a lingering read ({@link LingeringClose}, nginx's
 * lingering close), timed out at its session's deadlines, and handed off (out of epoll, then sent). The
 * loop ({@code m0.core.loop.WorkerLoop}) decides when; this class does it.
 *
 * <p>Not thread-safe: the loop thread's, but for {@link #completed}, which the blocking pool's
 * threads call.
 */
final class ConnectionIo {

    static final int IO_BYTES = 64 * 1024;
    /** Reads per readable event; level-triggered epoll brings us back for the rest. */
    static final int READS_PER_EVENT = 4;
    /** A deadline that did not move is looked at again this much later, not at once. */
    private static final long MIN_SWEEP_NANOS = 10_000_000L;

    private final Epoll epoll;
    private final ConnectionTable table;
    private final HttpConfig http;
    private final App app;
    private final BlockingPool pool;
    private final RateLimitedLog failures;
    /** The loop's "this pass has work": a connection's bytes may run the app inline. */
    private final Runnable work;
    /** ADR 0033's A/B arm: read a new connection at once rather than when epoll reports it. */
    private final boolean eagerRead;
    /**
     * Before a received connection's close: leave the epoll set (docs/adr/0034). Its sender may
     * still hold its copy, and with it our registration, which would then report the client's
     * FIN under a descriptor number we no longer know. A test's stand-in leaves it registered.
     */
    private final Consumer<Connection> unregisterReceived;
    private final Memory in = new Memory(IO_BYTES);
    private final ByteBuffer inView;
    /** What this loop's sessions parse and encode in while they hold bytes (docs/adr/0036). */
    private final Scratch inScratch = new Scratch(IO_BYTES);
    private final Scratch outScratch = new Scratch(IO_BYTES);
    /** File answers' files: opened natively, sent with sendfile(2) (docs/adr/0071). */
    private final FileSends fileSends = new FileSends(IO_BYTES);
    private final SendfileBodies bodyFiles = new SendfileBodies(fileSends);
    /** The pool's answers, and the one wake-up a batch of them costs. */
    private final EventFd wake;
    private final AtomicBoolean wakePending = new AtomicBoolean();
    private final ConcurrentLinkedQueue<Connection> completions = new ConcurrentLinkedQueue<>();
    /** Metrics counters and the access log (docs/adr/0017); null when neither is on, or warming up. */
    private RequestRecorder recorder;
    /** The earliest of the connections' deadlines (MAX_VALUE: none). */
    private long nextSweep = Long.MAX_VALUE;
    /** How answers leave: write(2) at once, or a pass's answers in one ring call. */
    private final AnswerWrites answers;
    /** After an error answer: FIN, and the client's bytes read and dropped until a bound. */
    private final LingeringClose lingering;
    /** Told of every request whose app code failed: the log, the count, the retirement (ADR 0061). */
    private FailedHandlers handlerFailures;
    /** The listener's TLS (ADR 0069); null: plain HTTP. Set after the warm-up, whose requests are plain. */
    private TlsReads tls;
    /** The loop's handshaking(): a handshake's bytes are admission work, no view (ADR 0069, addendum). */
    private Runnable handshake;

    ConnectionIo(Epoll epoll, ConnectionTable table, HttpConfig http, App app, BlockingPool pool, EventFd wake,
                 RateLimitedLog failures, Runnable work, boolean eagerRead, boolean keepReceivedRegistered,
                 RingSends sends) {
        this.epoll = epoll;
        this.table = table;
        this.http = http;
        this.app = app;
        this.pool = pool;
        this.wake = wake;
        this.failures = failures;
        this.work = work;
        this.eagerRead = eagerRead;
        this.unregisterReceived = keepReceivedRegistered ? c -> { } : c -> epoll.deleteQuietly(c.fd);
        this.inView = in.buffer().duplicate();
        this.lingering = new LingeringClose(epoll, in);
        this.handlerFailures = new FailedHandlers(failures, () -> { }); // the worker's own replaces it
        this.answers = new AnswerWrites(epoll, sends, new AnswerWrites.Ends() {
            @Override
            public void flushed(Connection c, long now) {
                ConnectionIo.this.flushed(c, now);
            }

            @Override
            public void close(Connection c) {
                ConnectionIo.this.close(c);
            }

            @Override
            public void fail(Connection c, RuntimeException e) {
                ConnectionIo.this.fail(c, e);
            }
        }, fileSends::send);
    }

    /** From now on requests are recorded (not the warm-up's). */
    void record(RequestRecorder recorder) {
        this.recorder = recorder;
        answers.record(recorder); // the worker's counters begin with its first client too
    }

    /** From now on every connection admitted speaks TLS (ADR 0069): its handshake runs here. */
    void secure(EngineSource engines, String name, Runnable handshake) {
        this.tls = new TlsReads(engines, IO_BYTES, name, http.headerTimeoutNanos());
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

    /** From now on app failures go to {@code failed} (the worker's: its own log, its leave). */
    void reportFailures(FailedHandlers failed) {
        this.handlerFailures = failed;
    }

    /** Requests whose app code failed so far, for the worker's counters. */
    long handlerFailures() {
        return handlerFailures.count();
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
     * The accept path's tail, shared by fresh accepts and hand-offs: non-blocking and registered;
     * epoll reports its request. Nagle goes off before a fresh connection's second write
     * ({@link Connection#writes}); a received one may have been written to by its sender, so it
     * goes off now.
     *
     * @return the connection, or null when it was reset before it could be registered, or its
     *         TLS engine could not be made (then closed)
     */
    Connection admit(int fd, byte[] peer, boolean received, long now) {
        return admit(fd, peer, received, false, now);
    }

    /** {@code settled}: it came settled (a keeping sibling's move, ADR 0059), and counts so at once. */
    Connection admit(int fd, byte[] peer, boolean received, boolean settled, long now) {
        try {
            if (received) {
                Fds.setNonBlocking(fd); // the sender's accept4 made it so; cheap to be sure
                Sockets.setNoDelay(fd);
            }
            epoll.add(fd, Epoll.IN, fd);
        } catch (NativeException e) {
            Fds.close(fd);
            return null;
        }
        Connection c = new Connection(fd, peer);
        if (received) {
            c.writes = Connection.NO_DELAY;
            c.received = true;
        }
        c.session = new HttpSession(http, app, pool, () -> completed(c), now,
                recorder == null ? null : recorder.observer(peer), inScratch, outScratch, handlerFailures);
        c.session.peer(peer);
        c.session.files(bodyFiles);
        if (tls != null) {
            try {
                tls.admit(c);
            } catch (Exception e) {
                // Netty's engine constructor can rethrow a checked exception (throwException):
                // this connection is refused, said, and closed; the worker serves on.
                tls.engineFailed(e);
                epoll.deleteQuietly(fd);
                Fds.close(fd);
                return null;
            }
        }
        c.interest = Epoll.IN;
        table.put(c);
        if (settled) {
            c.reused = true; // reused where it came from: not a reuse again here (ADR 0041 counts it once)
            this.settled++;
        }
        soon(TlsReads.deadline(c)); // a client that never sends a byte meets its header timeout
        if (eagerRead) {
            // The app may run inline: a view the page must show (under share an admission,
            // accept or receipt, stamps nothing: ADR 0052), so its siblings' picks can skip it.
            working(c);
            onReadable(c, now, Epoll.IN);
        }
        return c;
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
            fail(c, e); // one connection's failure is that connection's, never the worker's
        } catch (Error e) {
            failOrRethrow(c, e);
        }
    }

    /** From a pool thread: a response is ready. One eventfd write per batch of completions. */
    private void completed(Connection c) {
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
                } catch (RuntimeException e) {
                    fail(c, e);
                } catch (Error e) {
                    failOrRethrow(c, e);
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
            for (int k = 0; k < READS_PER_EVENT && c.session.wantsInput(); k++) {
                int n = Fds.read(c.fd, in.address(), IO_BYTES);
                if (n < 0) {
                    break;
                }
                if (n == 0) {
                    try {
                        c.session.onEof(now);
                    } catch (RuntimeException e) {
                        fail(c, e);
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
                    fail(c, e); // one broken session (a full pool, an app bug) must not stop the worker
                    return;
                }
                if (!c.reused && c.session.requests() > 1) {
                    c.reused = true;
                    reuses++; // keep-alive: this connection's second request (ADR 0041)
                    settled++; // and settled from here on (ADR 0059)
                }
                if (c.reused) {
                    table.affinities().requested(c, c.session.requests()); // a swap's kind (ADR 0057)
                }
                if (n < IO_BYTES) {
                    break;
                }
            }
        } catch (NativeException e) {
            close(c); // reset by the peer
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
                close(c);
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
            close(c); // only an error or hang-up is reported with EPOLLIN off
        } else {
            answers.flush(c, now);
        }
    }

    /** A flush's end: the socket took all this pass offered it. */
    private void flushed(Connection c, long now) {
        if (c.outputWaits()) {
            c.watch(epoll); // this pass's share is spent; more next pass
            return;
        }
        if (c.session.closeAfterFlush()) {
            if (c.session.lingerOnClose()) {
                linger(c, now);
            } else {
                close(c);
            }
            return;
        }
        c.watch(epoll);
        soon(TlsReads.deadline(c));
    }

    /** After an error answer is flushed ({@link LingeringClose}). */
    private void linger(Connection c, long now) {
        if (!lingering.begin(c, now)) {
            close(c); // already reset
            return;
        }
        soon(c.lingerIdleEnd);
        discard(c, now);
    }

    private void discard(Connection c, long now) {
        if (lingering.discard(c, now)) {
            close(c);
        }
    }

    /** Connections closed at their one request's ask, and second requests: the load's shape (ADR 0041). */
    private long shortCloses;
    private long reuses;
    /**
     * Held connections that are reused keep-alive ({@link Connection#reused}): up at the second
     * request or a settled admission, down at the close or hand-off of one (ADR 0059).
     */
    private long settled;

    long settled() {
        return settled;
    }

    long shortCloses() {
        return shortCloses;
    }

    long reuses() {
        return reuses;
    }

    void close(Connection c) {
        if (c.closed) {
            return;
        }
        c.closed = true;
        table.remove(c);
        if (c.reused) {
            settled--;
        }
        if (!c.reused && c.session.closeAsked()) {
            // Its one request asked for the close: churn (ADR 0041). A keep-alive connection its
            // client hung up after one request went idle keep-alive first: it is not counted.
            shortCloses++;
        }
        try {
            c.session.closed();
            if (tls != null) {
                tls.closing(c); // a close_notify, the engine released
            }
        } catch (RuntimeException e) {
            failures.log("closing a connection: its close failed: " + e); // the descriptor is closed all the same
        } finally {
            // Whatever threw above, the descriptor goes: a leaked one is a slot of --max-connections for good.
            if (c.received) {
                unregisterReceived.accept(c);
            }
            Fds.close(c.fd); // a fresh accept: no other process holds it, the close unregisters it
        }
    }

    /**
     * An Error out of our own code on one connection (a handler's never gets here): a
     * NoClassDefFoundError or an AssertionError is that connection's; a VirtualMachineError goes
     * up to the loop, which retires the worker (ADR 0061).
     */
    private void failOrRethrow(Connection c, Error e) {
        if (e instanceof VirtualMachineError) {
            throw e;
        }
        fail(c, e);
    }

    private void fail(Connection c, Throwable e) {
        StackTraceElement[] at = e.getStackTrace();
        failures.log("closing a connection: " + e + (at.length > 0 ? " at " + at[0] : ""));
        close(c);
    }

    /**
     * The hand-off of one of our idle connections (a leaver's hand-over, rebalance, the warm-up):
     * out of our epoll set, then {@code send}; on true the channel holds it and closed our copy,
     * and we forget it. On false it is still ours and registered again.
     */
    boolean handOff(Connection c, Predicate<? super Accepted> send) {
        // The queued message keeps the socket open after our close, and with it our epoll
        // registration: remove it first, or a reused descriptor number could inherit it.
        epoll.delete(c.fd);
        boolean sent;
        try {
            sent = send.test(new Accepted(c.fd, c.peer, c.reused));
        } catch (RuntimeException e) {
            // As passOn's: the core took its raise back before the send threw; the connection is
            // still ours, registered again below and served (issue 44).
            failures.log("handing a connection off: " + e + "; serving it here");
            sent = false;
        }
        if (sent) {
            c.closed = true; // the channel closed our copy
            if (c.tls != null) {
                c.tls.release(); // a handshake not begun may move: its engine is freed here, not at a GC
                c.tls = null;
            }
            table.remove(c);
            if (c.reused) {
                settled--;
            }
            return true;
        }
        epoll.add(c.fd, c.interest, c.fd);
        return false;
    }

    /** The earliest of the connections' deadlines. */
    long deadline() {
        return nextSweep;
    }

    private void soon(long deadline) {
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
            close(c);
            return;
        }
        if (!c.lingering && TlsReads.handshakePending(c)) {
            if (now - c.handshakeDeadline >= 0) {
                tls.handshakeTimedOut();
                close(c);
                return;
            }
            soon(c.handshakeDeadline); // the session's clocks wait for the handshake's end
            return;
        }
        if (!c.lingering && now - c.session.deadline() >= 0) {
            try {
                c.session.onTimeout(now);
            } catch (RuntimeException e) {
                fail(c, e);
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
