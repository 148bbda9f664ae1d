package m0.server.http;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;

/**
 * One connection's HTTP/1.1 state: parses requests from the bytes the loop reads, runs the app
 * (inline, or on the pool when {@link App#blocking} says so), and queues responses strictly in
 * request order. No I/O and no threads of its own; every method is for the loop thread only,
 * except that pool threads run {@link App#handle} and call {@code wakeLoop}.
 *
 * <p>The loop's duty: after any call, write {@link #output()} until it returns null or the
 * socket would block, telling {@link #written(int)} each time; close when {@link #output()} is
 * null and {@link #closeAfterFlush()} is true; arm a timer for {@link #deadline()} and call
 * {@link #onTimeout} when it passes; call {@link #pollCompletions} after a wake-up.
 *
 * <p>The session is the state machine; its parts: {@link AppCalls} runs the app,
 * {@link OwedAnswers} keeps the answers owed in request order, {@link SessionOutput} holds what
 * is to be written and accounts for what was, {@link StreamedRequest} keeps the request whose
 * body is read as it streams.
 */
public final class HttpSession {

    /** Where {@link #requests} stops counting: no overflow however long a connection lives. */
    public static final int REQUESTS_COUNTED = 1024;
    /** Requests queued behind a blocking one (or waiting on the pool) before parsing stops. */
    static final int MAX_QUEUED = 16;
    /** Unwritten output past which parsing stops, so a client that does not read cannot grow it. */
    static final int OUT_HIGH_WATER = 256 * 1024;

    static final byte[] CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
    static final byte[] CONN_CLOSE = "Connection: close\r\n".getBytes(StandardCharsets.ISO_8859_1);
    private static final byte[] CONN_KEEP_ALIVE = "Connection: keep-alive\r\n".getBytes(StandardCharsets.ISO_8859_1);

    private static final Response BAD_REQUEST = Response.status(400);
    private static final Response TIMEOUT = Response.status(408);
    private static final Response TOO_LARGE = Response.status(413);
    private static final Response HEADERS_TOO_LARGE = Response.status(431);
    static final Response SERVER_ERROR = Response.status(500);
    private static final Response NOT_IMPLEMENTED = Response.status(501);

    private final HttpConfig config;
    private final Runnable wakeLoop;
    /** The pass that parsed the request being dispatched (for the observer's durations). */
    private long requestStart;
    private final HttpParser parser;
    /** Responses not yet in the output, in request order; its head always waits on the pool. */
    private final OwedAnswers owed;

    /** Bytes to write, and a large body or a file's slice sent after them (docs/adr/0036, 0071). */
    private final SessionOutput out;
    /** Runs each request's app code, inline or off the loop. */
    private final AppCalls calls;
    /** The request whose body is read as it streams, from its head to its body's end. */
    private final StreamedRequest streamed;

    /** No more requests will be read; the last queued response ends the connection. */
    private boolean closing;
    /** Closing with no response owed (idle timeout, stalled flush): close now. */
    private boolean quiet;
    private boolean eof;
    private long lastNow;
    private long lastActive;
    /** A head is partly read and its clock runs from headStart. */
    private boolean timing;
    private long headStart;
    /** The session answered an error, or dropped received bytes: the peer may still be sending. */
    private boolean lingerWanted;
    /** Requests dispatched on this connection, counted up to 2 (the load's shape, ADR 0041). */
    private int requests;
    /** A request asked for the close (Connection: close, HTTP/1.0 without keep-alive). */
    private boolean closeAsked;

    /** pool null: everything inline. wakeLoop: called from a pool thread when a response is ready. */
    public HttpSession(HttpConfig config, App app, Executor pool, Runnable wakeLoop, long nowNanos) {
        this(config, app, pool, wakeLoop, nowNanos, null);
    }

    /** The same, telling {@code observer} (null: nobody) of each response as it is queued. */
    public HttpSession(HttpConfig config, App app, Executor pool, Runnable wakeLoop, long nowNanos,
                       ResponseObserver observer) {
        this(config, app, pool, wakeLoop, nowNanos, observer, null, null);
    }

    /**
     * The same, parsing in {@code in} and encoding in {@code out} (the loop's scratches,
     * docs/adr/0036; null: arrays of its own) while it holds bytes, so that a request that
     * arrives whole and a response written whole cost no array of the connection's own.
     */
    public HttpSession(HttpConfig config, App app, Executor pool, Runnable wakeLoop, long nowNanos,
                       ResponseObserver observer, Scratch in, Scratch out) {
        this(config, app, pool, wakeLoop, nowNanos, observer, in, out, HandlerFailures.NONE);
    }

    /** The same, telling {@code failures} of each request whose app code failed (issue 44). */
    public HttpSession(HttpConfig config, App app, Executor pool, Runnable wakeLoop, long nowNanos,
                       ResponseObserver observer, Scratch in, Scratch out, HandlerFailures failures) {
        if (config == null || app == null) throw new NullPointerException("config and app are required");
        this.config = config;
        this.wakeLoop = wakeLoop != null ? wakeLoop : () -> { };
        this.parser = new HttpParser(config, in);
        if (app instanceof ExchangeApp) {
            parser.streamBodies(); // its handlers read bodies as they arrive: no whole-body cap
        }
        this.out = new SessionOutput(out, observer, failures, this::afterFlush, this::closeNow);
        this.owed = new OwedAnswers(this.out, parser, observer, failures, this::closeNow);
        this.calls = new AppCalls(app, pool, this.wakeLoop, failures, owed);
        this.streamed = new StreamedRequest(this.wakeLoop);
        this.lastNow = nowNanos;
        this.lastActive = nowNanos;
    }

    /** Files are opened by {@code files} from now on (the worker's: with a descriptor for sendfile). */
    public HttpSession files(BodyFiles files) {
        out.files(files);
        return this;
    }

    /** The connection's peer, as the accept gave it: the exchanges' remote address (null: unknown). */
    public void peer(byte[] sockaddr) {
        calls.peer(sockaddr);
    }

    /** The connection speaks TLS: its exchanges carry {@code session}'s answer ({@link ExchangeTls}, ADR 0069). */
    public void tls(java.util.function.Supplier<javax.net.ssl.SSLSession> session) {
        calls.tls(session);
    }

    /**
     * The connection's socket, which a gathering body's writer may write itself while the loop
     * has nothing to write before it (ADR 0071's last addendum; plain connections only).
     */
    public HttpSession socket(SocketWrites socket) {
        calls.socket(socket);
        return this;
    }

    /** Bytes read from the socket, position..limit; consumes all of them. */
    public void onBytes(ByteBuffer in, long nowNanos) {
        lastNow = nowNanos;
        lastActive = nowNanos;
        if (closing) {
            if (in.hasRemaining()) lingerWanted = true;
            in.position(in.limit()); // past a close or an error nothing more is read
            return;
        }
        // The head clock starts at the first byte after the last response, an empty line's too:
        // a trickle of CR/LF cannot hold the connection (parse() stops it at a complete request).
        if (!timing && owed.isEmpty() && !parser.inBody() && in.hasRemaining()) {
            timing = true;
            headStart = nowNanos;
        }
        parser.append(in);
        parse(nowNanos);
    }

    /**
     * Requests dispatched on this connection so far, counted up to {@link #REQUESTS_COUNTED}: 2
     * means it was reused (ADR 0041); the affinity is read at the 256th (ADR 0057).
     */
    public int requests() {
        return requests;
    }

    /**
     * A request on this connection asked to close it after its answer: the client said it will
     * not reuse it. A keep-alive connection its client hangs up after one request did not.
     */
    public boolean closeAsked() {
        return closeAsked;
    }

    /**
     * The connection finished something below HTTP (its TLS handshake): its idle clock starts
     * now, not at its admission, so a handshake that took most of the header timeout does not
     * leave it already idle.
     */
    public void active(long nowNanos) {
        lastNow = nowNanos;
        lastActive = nowNanos;
    }

    /** The peer shut its write side (read returned 0). */
    public void onEof(long nowNanos) {
        lastNow = nowNanos;
        eof = true;
        if (!closing) parse(nowNanos);
    }

    /** On the loop thread after a wake-up: moves finished pool responses into the output, in order. */
    public void pollCompletions(long nowNanos) {
        lastNow = nowNanos;
        if (owed.drain()) {
            lastActive = nowNanos;
            // The client may have sent its next head while we were busy: its clock starts now.
            if (timing) headStart = nowNanos;
        }
        if (!closing) parse(nowNanos);
    }

    /**
     * Bytes to write now (pipelined responses in request order), or null when none. The bytes are
     * position..limit of a heap buffer valid until the next call into this session (or, with a
     * scratch, into another session of its loop); its position need not be moved: {@link #written(int)} does the accounting.
     */
    public ByteBuffer output() {
        return out.next();
    }

    /** Whether output waits, without making any ({@link #output()} reads a file answer's next chunk). */
    public boolean hasOutput() {
        return out.waiting();
    }

    /**
     * The file to send next with sendfile(2), from {@link #fileSent()}: a descriptor once
     * {@link #output()} is empty and a file answer's bytes are left, else -1. Then the loop sends
     * and tells {@link #sentFromFile}; a loop that does not (TLS) takes {@link #output()}, which
     * reads the file.
     */
    public int fileToSend() {
        return out.fileToSend();
    }

    /** The output is the head of a file answer that sendfile will send next: the head may be corked. */
    public boolean fileFollows() {
        return out.fileFollows();
    }

    /** Where the file's next byte is, and how many are left ({@link #fileToSend}). */
    public long fileSent() {
        return out.fileSent();
    }

    public long fileLeft() {
        return out.fileLeft();
    }

    /** sendfile(2) sent n bytes of the file; 0: the file ended short of its promised length (a cut). */
    public void sentFromFile(long n, long nowNanos) {
        lastNow = nowNanos;
        out.sentFromFile(n, nowNanos);
    }

    /** n bytes of output() were written (partial writes are normal). */
    public void written(int n) {
        written(n, lastNow);
    }

    /**
     * The same, at nowNanos: when the output empties, a head that arrived (pipelined) while we were
     * still writing gets its full header time from now; our slow writing is not the client's.
     */
    public void written(int n, long nowNanos) {
        lastNow = nowNanos;
        out.written(n, nowNanos);
    }

    /** The output (and any tail) is all written: what waited behind it goes on. */
    private void afterFlush(long nowNanos) {
        if (timing) headStart = nowNanos;
        if (!owed.isEmpty()) owed.drain(); // a streamed body waits behind what was written
        // Parsing may have stopped at the output high-water mark; no new bytes may ever come.
        if (!closing && parser.buffered() > 0) parse(lastNow);
    }

    /**
     * True once the connection must be closed as soon as output is flushed (Connection: close,
     * HTTP/1.0 without keep-alive, 400/431/413/408, EOF after the last response, idle timeout).
     */
    public boolean closeAfterFlush() {
        return quiet || (closing && owed.isEmpty());
    }

    /**
     * When the loop must call onTimeout if nothing else happens: the header-read deadline while a
     * head is partly read, the idle deadline between requests (and while a body or a flush
     * stalls), Long.MAX_VALUE while a request runs.
     */
    public long deadline() {
        if (quiet) return lastActive;
        // A body read as it streams, with room for more: the client is the one who is late.
        if (!closing && parser.streaming() && !parser.sinkFull()) return plus(lastActive, config.bodyTimeoutNanos());
        if (out.hasTail()) return plus(lastActive, config.idleTimeoutNanos()); // a body the client does not take
        if (!owed.isEmpty()) {
            // A streamed body the client does not take is a stalled flush; one the app is slow
            // to produce is a request still running.
            return owed.streaming() && out.size() > 0 ? plus(lastActive, config.idleTimeoutNanos()) : Long.MAX_VALUE;
        }
        if (headPhase()) return plus(headStart, config.headerTimeoutNanos());
        if (!closing && parser.inBody()) return plus(lastActive, config.bodyTimeoutNanos());
        return plus(lastActive, config.idleTimeoutNanos());
    }

    /** The deadline passed: idle → close quietly; slow header (or stalled body) → 408 then close. */
    public void onTimeout(long nowNanos) {
        lastNow = nowNanos;
        long d = deadline();
        if (quiet || d == Long.MAX_VALUE || nowNanos - d < 0) return; // early or nothing due
        if (headPhase() || (!closing && parser.inBody())) {
            timing = false;
            lastActive = nowNanos; // the 408 gets an idle period to be flushed in
            fail(408);
            return;
        }
        if (out.takeProgress()) {
            // The peer took some output since the deadline was armed: it is slow, not gone.
            lastActive = nowNanos;
            return;
        }
        quiet = true;
        closing = true;
        owed.abortAll(); // before the cut is logged: a writer lent the socket has stopped, its count is final
        parser.kill();
        cutStream();
        out.drop();
    }

    /**
     * The loop should read this connection now. False while parsing is paused (responses queued
     * behind a running request, or output past the high-water mark) and once closing: the loop
     * then drops EPOLLIN, so what one client sends waits in its own socket buffers, not in our
     * heap. Together with the header limit this bounds buffered input to the header limit plus
     * one read.
     */
    public boolean wantsInput() {
        return !closing && !paused();
    }

    /**
     * At close: the peer may still be sending (an error was answered, or received bytes were
     * dropped), so the loop should shut down its write side and drain for a while before the
     * close, or the kernel resets the connection and the peer may never read our answer.
     */
    public boolean lingerOnClose() {
        return lingerWanted && !eof && !quiet;
    }

    /** Received bytes held and not yet parsed (tests: the bound on buffered input). */
    int bufferedInput() {
        return parser.buffered();
    }

    /**
     * The loop closed the connection: let go of its scratches without copying what they held
     * (a partial head, unwritten output), so the next borrower does not keep a dead one's bytes.
     */
    public void closed() {
        // First: a writer lent the socket stops writing it before the loop closes the descriptor
        // (PipedExchange#abort), whatever below throws; and its count of bytes sent is final.
        owed.abortAll();
        closing = true;
        parser.kill();
        cutStream();
        out.drop();
    }

    /** A streamed answer whose head is out ends here, short: logged with what it sent and the mark. */
    private void cutStream() {
        if (out.cutTail()) {
            return; // a tail is the oldest answer owed: what follows it waits behind it
        }
        owed.cutStreamed();
    }

    /** No request partly read or in flight and nothing left to write: safe to close at a graceful stop. */
    public boolean idle() {
        return owed.isEmpty() && out.empty() && !parser.partial();
    }

    // ---- internals ----

    /** A head is being read and nothing of ours is owed before it (no request runs, no output waits). */
    private boolean headPhase() {
        return timing && !closing && owed.isEmpty() && out.empty() && !parser.inBody();
    }

    private static long plus(long t, long d) {
        return t > Long.MAX_VALUE - d ? Long.MAX_VALUE : t + d;
    }

    private boolean paused() {
        return owed.size() >= MAX_QUEUED || out.size() + out.tailLeft() > OUT_HIGH_WATER || parser.sinkFull();
    }

    private void parse(long now) {
        while (!closing && !paused()) {
            int r = parser.next();
            if (r == HttpParser.NEED_MORE) break;
            if (r == HttpParser.REQUEST) {
                timing = false;
                requestStart = now;
                dispatch(parser.request(), parser.requestKeepAlive());
            } else if (r == HttpParser.HEAD_READY) {
                timing = false;
                requestStart = now;
                streamed.begin(parser);
                dispatch(parser.request(), parser.requestKeepAlive());
                streamed.dispatched(owed);
            } else if (r == HttpParser.BODY_END) {
                lastActive = now;
                if (streamed.end()) {
                    closing = true; // that request was the last: drop anything pipelined after it
                    if (parser.buffered() > 0) lingerWanted = true;
                    parser.kill();
                }
            } else if (r == HttpParser.CONTINUE) {
                // Interim responses keep request order too: only when nothing is owed before it.
                if (owed.isEmpty()) out.put(CONTINUE);
            } else {
                fail(r);
            }
        }
        if (closing) return;
        if (eof && !paused()) {
            // Nothing more will come: whatever is buffered is a truncated request; drop it.
            timing = false;
            closing = true;
            parser.kill();
            return;
        }
        if (!timing && parser.partial() && !parser.inBody()) {
            timing = true;
            headStart = now;
        }
    }

    private void dispatch(Request request, boolean keepAlive) {
        if (requests < REQUESTS_COUNTED) {
            requests++;
        }
        if (!keepAlive) {
            closeAsked = true;
        }
        byte[] conn = keepAlive ? (Request.HTTP_1_1.equals(request.version()) ? null : CONN_KEEP_ALIVE) : CONN_CLOSE;
        boolean head = request.method().equals("HEAD");
        RequestBody streamedBody = streamed.dispatching();
        if (!keepAlive && streamedBody != null) {
            streamed.closeAfterBody(); // its body is still to be read: close after it
        } else if (!keepAlive) {
            closing = true; // this response is the last: drop anything pipelined after it
            if (parser.buffered() > 0) lingerWanted = true;
            parser.kill();
        }
        calls.run(request, conn, head, streamedBody, requestStart);
    }

    /** The response to the newest request: straight to the output unless earlier ones still run. */
    private void respond(Response r, byte[] conn, boolean head, Request request) {
        owed.respond(r, conn, head, request, requestStart);
    }

    private void fail(int status) {
        streamed.broken();
        closing = true;
        lingerWanted = true;
        parser.kill();
        Response r = switch (status) {
            case 408 -> TIMEOUT;
            case 413 -> TOO_LARGE;
            case 431 -> HEADERS_TOO_LARGE;
            case HttpParser.NOT_IMPLEMENTED -> NOT_IMPLEMENTED;
            default -> BAD_REQUEST;
        };
        requestStart = lastNow;
        respond(r, CONN_CLOSE, false, null);
    }

    /** Nothing more is read or answered on this connection: close once the output is out. */
    private void closeNow() {
        closing = true;
        parser.kill();
        owed.abortAll();
        owed.clear();
    }

    /** The output's bytes, or the parser's (tests). */
    HeldBytes held(boolean output) {
        return output ? out.held() : parser.held();
    }

    /** Whether the output, or the parser, holds its loop scratch (tests). */
    boolean borrowsScratch(boolean output) {
        return held(output).borrowsScratch();
    }
}
