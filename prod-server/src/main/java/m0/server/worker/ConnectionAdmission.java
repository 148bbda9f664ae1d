package m0.server.worker;

import java.util.function.Consumer;
import java.util.function.Predicate;
import m0.server.http.App;
import m0.server.http.ExchangeApp;
import m0.server.http.HttpConfig;
import m0.server.http.HttpSession;
import m0.server.http.Scratch;
import m0.server.jnr.Epoll;
import m0.server.jnr.Fds;
import m0.server.jnr.NativeException;
import m0.server.jnr.Sockets;
import m0.server.log.RateLimitedLog;
import m0.server.share.Accepted;

/**
 * How a connection joins a worker and leaves it alive: admitted (accepted here or received from a
 * sibling: non-blocking, registered, its session made, its TLS engine made or the connection
 * refused), and handed off (out of epoll, then sent; on success its TLS released and forgotten
 * here). Not thread-safe: the loop thread's.
 */
final class ConnectionAdmission {

    private final Epoll epoll;
    private final ConnectionTable table;
    private final HttpConfig http;
    private final App app;
    /** Plain connections' sessions get their socket for a gathering body's writer; TLS records stay the loop's. */
    private final boolean lendsSocket;
    private final BlockingPool pool;
    private final RateLimitedLog failures;
    private final KeepAliveCounts counts;
    /** From a pool thread: a session's response is ready ({@link ConnectionTraffic#completed}). */
    private final Consumer<Connection> completed;
    /** What this loop's sessions parse and encode in while they hold bytes (docs/adr/0036). */
    private final Scratch inScratch = new Scratch(ConnectionIo.IO_BYTES);
    private final Scratch outScratch = new Scratch(ConnectionIo.IO_BYTES);
    /** File answers' files: opened natively, sent with sendfile(2) (docs/adr/0071). */
    private final SendfileBodies bodyFiles;
    /** Metrics counters and the access log (docs/adr/0017); null when neither is on, or warming up. */
    private RequestRecorder recorder;
    /** Told of every request whose app code failed: the log, the count, the retirement (ADR 0061). */
    private FailedHandlers handlerFailures;
    /** The listener's TLS (ADR 0069); null: plain HTTP. Set after the warm-up, whose requests are plain. */
    private TlsReads tls;

    ConnectionAdmission(Epoll epoll, ConnectionTable table, HttpConfig http, App app, BlockingPool pool,
                        RateLimitedLog failures, KeepAliveCounts counts, Consumer<Connection> completed,
                        SendfileBodies bodyFiles) {
        this.epoll = epoll;
        this.table = table;
        this.http = http;
        this.app = app;
        // Only a gathering body's writer is lent the socket (ADR 0071): no other app pays for it.
        this.lendsSocket = app instanceof ExchangeApp x && x.gathersWrites();
        this.pool = pool;
        this.failures = failures;
        this.counts = counts;
        this.completed = completed;
        this.bodyFiles = bodyFiles;
        this.handlerFailures = new FailedHandlers(failures, () -> { }); // the worker's own replaces it
    }

    /** From now on sessions tell {@code recorder} of their requests (not the warm-up's). */
    void record(RequestRecorder recorder) {
        this.recorder = recorder;
    }

    /** From now on every connection admitted speaks TLS (ADR 0069): its engine is made here. */
    void secure(TlsReads tls) {
        this.tls = tls;
    }

    /** From now on app failures go to {@code failed} (the worker's: its own log, its leave). */
    void reportFailures(FailedHandlers failed) {
        this.handlerFailures = failed;
    }

    FailedHandlers handlerFailures() {
        return handlerFailures;
    }

    /**
     * The accept path's tail, shared by fresh accepts and hand-offs: non-blocking and registered;
     * epoll reports its request. Nagle goes off before a fresh connection's second write
     * ({@link Connection#writes}); a received one may have been written to by its sender, so it
     * goes off now. {@code settled}: it came settled (a keeping sibling's move, ADR 0059).
     *
     * @return the connection, in the table, or null when it was reset before it could be
     *         registered, or its TLS engine could not be made (then closed)
     */
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
        c.session = new HttpSession(http, app, pool, () -> completed.accept(c), now,
                recorder == null ? null : recorder.observer(peer), inScratch, outScratch, handlerFailures);
        c.session.peer(peer);
        c.session.files(bodyFiles);
        if (lendsSocket && tls == null) {
            c.session.socket(new DirectWrites(c, recorder));
        }
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
            counts.arrivedSettled(c);
        }
        return c;
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
            counts.left(c);
            return true;
        }
        epoll.add(c.fd, c.interest, c.fd);
        return false;
    }
}
