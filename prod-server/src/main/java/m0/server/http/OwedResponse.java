package m0.server.http;

/**
 * One response a {@link HttpSession} owes, in request order: run off the loop (an App's blocking
 * handle, an ExchangeApp's serve, a streamed response's writer), or already known but queued
 * behind one that runs. The fields marked "the loop's" are the session's alone; the rest are
 * written by the slot's thread before the volatile write the loop reads them after.
 */
final class OwedResponse implements Runnable {

    /** What the slot's thread does: the app's handle, its serve, or a streamed response's writer. */
    static final int HANDLE = 0;
    static final int SERVE = 1;
    static final int STREAM = 2;

    final Request request;
    final byte[] conn;
    final boolean head;
    final App app;
    final Runnable wake;
    final int kind;
    /** Made on the loop with the slot, so its thread sees it through the executor's hand-over. */
    final PipedExchange exchange;
    volatile Response response;
    /** The writer's thread has returned: what the exchange holds is all there will be. */
    volatile boolean done;
    /** What the app's code threw on the slot's thread; written before response or done. */
    Throwable failure;
    /** The loop's: bytes of the exchange's body moved into the output (after its head). */
    long bodySent;
    /** The loop's: the request's streamed body broke its framing; the parser answers it. */
    boolean bodyBroken;
    /** The loop's: the exchange's head is in the output. */
    boolean headOut;
    /** STREAM: the response whose writer runs here. */
    Response streamed;
    /** For the observer: the request of a response known at once but queued behind others. */
    Request logged;
    long start;

    OwedResponse(Request request, byte[] conn, boolean head, App app, Runnable wake) {
        this(request, conn, head, app, wake, HANDLE, null);
    }

    OwedResponse(Request request, byte[] conn, boolean head, App app, Runnable wake, int kind, byte[] peer) {
        this(request, conn, head, app, wake, kind, peer, null);
    }

    /** {@code socket}: the connection's, lent to a gathering body's writer ({@link PipedExchange#lendSocket}). */
    OwedResponse(Request request, byte[] conn, boolean head, App app, Runnable wake, int kind, byte[] peer,
                 SocketWrites socket) {
        this.request = request;
        this.conn = conn;
        this.head = head;
        this.app = app;
        this.wake = wake;
        this.kind = kind;
        // A blocking handle may answer with a streamed response too, so every slot that runs
        // off the loop has one; a slot of a known response (request null) has none.
        boolean gathers = app instanceof ExchangeApp x && x.gathersWrites();
        // Only a gathering body's writer writes the socket itself: its writes come 64 KiB at a
        // time or at a flush, as the JDK's server writes its socket; an App's stream of small
        // writes is coalesced by the loop instead.
        this.exchange = request == null || wake == null ? null : new PipedExchange(request, wake, peer,
                gathers, gathers ? socket : null);
    }

    @Override
    public void run() {
        if (kind == HANDLE) {
            handle();
            return;
        }
        try {
            if (kind == SERVE) {
                ((ExchangeApp) app).serve(exchange);
            } else {
                exchange.respond(streamed);
            }
            if (exchange.headSent()) {
                exchange.finish(); // what the app left open is finished for it
            }
        } catch (Throwable t) {
            // Nothing is rethrown: a pool thread that dies of a handler's Error helps nobody,
            // and the loop reports it (ADR 0061). Before a head: the loop answers 500; after:
            // what was sent, then the close.
            failure = t;
            exchange.fail();
        } finally {
            exchange.discardBody(); // a body the handler left unread is read and dropped, as the JDK does
        }
        ended();
    }

    private void ended() {
        done = true;
        if (!exchange.headSent()) {
            try {
                exchange.finish(); // no head: the loop answers 500
            } catch (java.io.IOException e) {
                // nothing was promised
            }
        }
        wake.run();
    }

    private void handle() {
        Response r;
        try {
            r = app.handle(request);
            if (r == null) {
                throw new IllegalStateException("the handler returned no response");
            }
        } catch (Throwable t) {
            failure = t; // before the volatile write the loop reads it after
            response = HttpSession.SERVER_ERROR;
            wake.run();
            return;
        }
        if (r.streams()) {
            try {
                exchange.respond(r); // this pool thread writes it: the loop drains it
            } catch (Throwable t) {
                failure = t;
                exchange.fail();
            } finally {
                ended();
            }
            return;
        }
        response = r;
        wake.run();
    }
}
