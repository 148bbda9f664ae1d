package m0.server.http;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * The answers a session owes, in request order: run off the loop (on the pool, or an
 * ExchangeApp's executor), or known at once but queued behind one that runs. Each moves into
 * the session's output ({@link SessionOutput}) once it and all before it are done; a streamed one
 * as its writer writes, with its request's 100 Continue when its handler first reads.
 * {@link HttpSession} decides what is owed; this keeps the order. The loop thread's only.
 */
final class OwedAnswers {

    private static final Response UNAVAILABLE = Response.status(503);

    /** Responses not yet in the output, in request order; its head always waits on the pool. */
    private final ArrayDeque<OwedResponse> slots = new ArrayDeque<>();
    private final SessionOutput out;
    private final HttpParser parser;
    /** Null: nobody is told of what is answered. */
    private final ResponseObserver observer;
    /** Told of every request whose app code failed (never null). */
    private final HandlerFailures failures;
    /** The session's closeNow: nothing more is read or answered on the connection. */
    private final Runnable closeNow;
    /** A streamed request whose 100 Continue is still owed, and its slot; null when none. */
    private RequestBody continueBody;
    private OwedResponse continueSlot;

    OwedAnswers(SessionOutput out, HttpParser parser, ResponseObserver observer, HandlerFailures failures,
                Runnable closeNow) {
        this.out = out;
        this.parser = parser;
        this.observer = observer;
        this.failures = failures;
        this.closeNow = closeNow;
    }

    boolean isEmpty() {
        return slots.isEmpty();
    }

    int size() {
        return slots.size();
    }

    /** The newest answer owed, or null. */
    OwedResponse newest() {
        return slots.peekLast();
    }

    /** {@code slot}'s streamed request waits for its 100 Continue, sent when its handler first reads. */
    void continueOwed(RequestBody body, OwedResponse slot) {
        continueBody = body;
        continueSlot = slot;
    }

    /** Nothing more will be answered: the answers owed are forgotten. */
    void clear() {
        slots.clear();
    }

    /** A streamed answer whose head is out ends here, short: logged with what it sent and the mark. */
    void cutStreamed() {
        OwedResponse s = slots.peekFirst();
        if (s != null && s.headOut && observer != null) {
            slots.pollFirst(); // logged once: a later close finds it gone
            s.bodySent += s.exchange.takeDirectBytes();
            observer.responded(s.request, s.exchange.status(), s.bodySent, s.start, true);
        }
    }

    /** A response made off the loop, owed in order. */
    void offLoop(OwedResponse s, Executor executor, long start, RequestBody streamedBody) {
        s.start = start;
        slots.addLast(s);
        try {
            executor.execute(s);
        } catch (RejectedExecutionException e) {
            s.response = UNAVAILABLE; // the bounded pool is full
            if (streamedBody != null) {
                streamedBody.close(); // nobody will read it: the loop reads it and drops it
            }
            drain();
        }
    }

    /** The response to the newest request: straight to the output unless earlier ones still run. */
    void respond(Response r, byte[] conn, boolean head, Request request, long start) {
        if (slots.isEmpty() && !out.hasTail()) {
            out.encode(r, conn, head, request, start);
        } else {
            OwedResponse s = new OwedResponse(null, conn, head, null, null);
            s.logged = request;
            s.start = start;
            s.response = r;
            slots.addLast(s);
        }
    }

    /** Moves finished responses at the head of the queue into the output; true if any moved. */
    boolean drain() {
        boolean moved = false;
        OwedResponse s;
        while (!out.hasTail() && (s = slots.peekFirst()) != null) {
            Response r = s.response;
            if (r != null) {
                slots.pollFirst();
                if (s.failure != null) {
                    failures.failed(s.request, s.failure); // read after response: written before it
                }
                out.encode(r, s.conn, s.head, s.request != null ? s.request : s.logged, s.start);
                moved = true;
                continue;
            }
            if (s.exchange == null || !drainStream(s)) break;
            moved = true;
        }
        return moved;
    }

    /**
     * The oldest response owed is streamed: its head once it is sent, then what its writer has
     * written, while the output is under the high water (the rest waits in the exchange, whose
     * writer then blocks). True when it is complete and out of the queue.
     */
    private boolean drainStream(OwedResponse s) {
        PipedExchange x = s.exchange;
        if (s == continueSlot && !s.headOut && continueBody.continueAsked()) {
            // The handler reads its body and nothing is owed before it: the client may send it.
            out.put(HttpSession.CONTINUE);
            continueBody = null;
            continueSlot = null;
        }
        if (!s.headOut) {
            boolean done = s.done; // read before the head: a head sent just after is then seen
            byte[] h = x.headBytes();
            if (h == null) {
                if (!done || x.hasBytes()) return false;
                // Finished with no head: it threw before it, or returned without one. The JDK's
                // server closes the connection answering nothing; this one answers 500, as for
                // any handler's failure before a byte of its answer left (ADR 0061).
                slots.pollFirst();
                if (s.bodyBroken) {
                    return true; // the client's body broke its framing: the parser's 400 after it answers
                }
                failures.failed(s.request, s.failure != null ? s.failure
                        : new IllegalStateException("the handler returned without sending a response"));
                boolean bodyOwed = s == continueSlot && parser.streaming();
                if (s == continueSlot) {
                    continueBody = null;
                    continueSlot = null;
                }
                out.encode(HttpSession.SERVER_ERROR, bodyOwed ? HttpSession.CONN_CLOSE : s.conn, s.head, s.request, s.start);
                if (bodyOwed) {
                    closeNow.run(); // its body may never come, and what comes is no request (as below)
                }
                return true;
            }
            s.headOut = true;
            // The Connection field is the request's; a body that breaks its framing closes the
            // connection anyway, after what was sent (below).
            out.streamedHead(h, x.closeDelimited() ? HttpSession.CONN_CLOSE : s.conn);
            out.held().streaming(true);
        }
        // A scratch's worth at a time, into the scratch or the array the output keeps while this
        // body flows (HeldBytes.streaming). Taken up to the high water, it grew an array of its
        // own, doubling, for each batch and dropped it after the write (ADR 0071's addendum).
        int room = Math.min(HttpSession.OUT_HIGH_WATER - out.size(), out.held().roomInScratch());
        int before = out.size();
        // Nothing before this body's next byte is left to write, and that byte is the start of its
        // writer's own array, waiting: the writer writes it itself (PipedExchange's rule), with no
        // copy through the output.
        boolean complete = room > 0 && !(before == 0 && x.returnToWriter()) && x.moveTo(out.held(), room);
        long direct = x.takeDirectBytes();
        s.bodySent += out.size() - before + direct;
        if (direct > 0) {
            // The loop saw none of them leave: without this a download its writer wrote for longer
            // than the idle timeout would be cut as idle at the first full socket.
            out.progressed();
        }
        if (!complete) {
            if (out.size() == 0) {
                // All before this body's next byte is written, and nothing of it waits: its writer
                // may write the socket itself until a write falls short (PipedExchange's rule).
                // Nothing else enters the output meanwhile: this is the oldest answer owed.
                x.lendSocket();
            }
            return false;
        }
        out.held().streaming(false);
        slots.pollFirst();
        boolean broken = x.broken();
        // A failure after the writer's own write found the connection gone is the client's reset,
        // not the app's: unreported, as when the loop finds it first (its close forgets the answer).
        if (s.failure != null && !x.lost()) {
            failures.failed(s.request, s.failure); // after its head: the close below is the client's sign
        }
        if (observer != null) {
            // Cut: short of the head's promise; a close-delimited body's close is its end, unless it failed.
            observer.responded(s.request, x.status(), s.bodySent, s.start,
                    s.failure != null || (broken && !x.closeDelimited()));
        }
        if (s == continueSlot && parser.streaming()) {
            // Answered without asking for the body, which has not come: the client may never send
            // it, and what it sends is that body, not a request. The connection ends here
            // (RFC 9110 10.1.1).
            continueBody = null;
            continueSlot = null;
            closeNow.run();
            return true;
        }
        if (broken) closeNow.run();
        return true;
    }

    /** Writers of streamed bodies still owed fail from now on: nobody will read them. */
    void abortAll() {
        for (OwedResponse s : slots) {
            if (s.exchange != null) s.exchange.abort();
        }
    }

    /** The oldest response owed is streamed and its head is out. */
    boolean streaming() {
        OwedResponse s = slots.peekFirst();
        return s != null && s.headOut;
    }
}
