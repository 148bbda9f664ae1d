package m0.server.http;

import java.util.concurrent.Executor;
import java.util.function.Supplier;
import javax.net.ssl.SSLSession;

/**
 * Runs one request's app code for its session: inline on the loop, or off it (on the pool for a
 * blocking handle or a streamed response, on an ExchangeApp's executor) with its answer owed in
 * request order ({@link OwedAnswers}). Whatever the app's code throws or fails to return is that
 * request's 500, told to the session's {@link HandlerFailures}. The loop thread's only.
 */
final class AppCalls {

    private final App app;
    /** Null: everything inline. */
    private final Executor pool;
    /** Called from a pool thread when a response is ready. */
    private final Runnable wakeLoop;
    /** Told of every request whose app code failed (never null). */
    private final HandlerFailures failures;
    private final OwedAnswers owed;
    /** The peer's raw sockaddr, for the exchanges' remote address (null: unknown). */
    private byte[] peer;
    /** The connection's TLS session, or null: plain HTTP (ADR 0069). */
    private Supplier<SSLSession> tls;
    /** The connection's socket, which a gathering body's writer may write itself; null: never. */
    private SocketWrites socket;

    AppCalls(App app, Executor pool, Runnable wakeLoop, HandlerFailures failures, OwedAnswers owed) {
        this.app = app;
        this.pool = pool;
        this.wakeLoop = wakeLoop;
        this.failures = failures;
        this.owed = owed;
    }

    void peer(byte[] sockaddr) {
        this.peer = sockaddr;
    }

    void tls(Supplier<SSLSession> session) {
        this.tls = session;
    }

    void socket(SocketWrites socket) {
        this.socket = socket;
    }

    /**
     * {@code request}'s app code, answered with {@code conn} (the Connection field, or null) and
     * no body for HEAD; {@code streamedBody}: its body as it streams (else null); {@code start}:
     * the pass that parsed it.
     */
    void run(Request request, byte[] conn, boolean head, RequestBody streamedBody, long start) {
        if (app instanceof ExchangeApp ea) {
            Executor ex = ea.executor() != null ? ea.executor() : pool;
            if (ex == null) {
                // Never on the loop: no pool, no answer.
                owed.respond(HttpSession.SERVER_ERROR, conn, head, request, start);
                return;
            }
            OwedResponse s = new OwedResponse(request, conn, head, app, wakeLoop, OwedResponse.SERVE, peer,
                    tls == null ? socket : null); // TLS records are the loop's to make
            if (streamedBody != null) s.exchange.streamBody(streamedBody);
            if (tls != null) s.exchange.tls(tls.get()); // the handshake is done: a request was read
            owed.offLoop(s, ex, start, streamedBody);
            return;
        }
        if (pool != null) {
            boolean blocking;
            try {
                blocking = app.blocking(request);
            } catch (Throwable t) {
                failures.failed(request, t);
                owed.respond(HttpSession.SERVER_ERROR, conn, head, request, start);
                return;
            }
            if (blocking) {
                owed.offLoop(new OwedResponse(request, conn, head, app, wakeLoop, OwedResponse.HANDLE, peer), pool,
                        start, streamedBody);
                return;
            }
        }
        Response r;
        try {
            r = app.handle(request);
        } catch (Throwable t) {
            // Any throwable is this request's 500 (nothing of its answer has left); the worker
            // decides what else it means (an OutOfMemoryError retires it, ADR 0061).
            failures.failed(request, t);
            r = HttpSession.SERVER_ERROR;
        }
        if (r == null) {
            failures.failed(request, new IllegalStateException("the handler returned no response"));
            r = HttpSession.SERVER_ERROR;
        }
        if (r.streams()) {
            // Its writer may block on the client: a pool thread writes it, never the loop.
            if (pool == null) {
                r = HttpSession.SERVER_ERROR;
            } else {
                OwedResponse s = new OwedResponse(request, conn, head, app, wakeLoop, OwedResponse.STREAM, peer);
                s.streamed = r;
                owed.offLoop(s, pool, start, streamedBody);
                return;
            }
        }
        owed.respond(r, conn, head, request, start);
    }
}
