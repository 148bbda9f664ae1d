package m0.server.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * m0serve's {@link Exchange}: the app's thread queues the head and body pieces here, and the loop
 * ({@link HttpSession}, when this is the oldest response owed) takes them as fast as the
 * connection carries them. The loop takes only while its output is under the session's high
 * water, so a streamed response holds at most {@link #PIPE_BYTES} plus the session's output per
 * connection, whatever its length.
 *
 * <p>Threads: {@link #sendHead}, {@link #body()} and {@link #finish()} are the writer's (one
 * thread at a time); {@link #moveTo}, {@link #abort}, {@link #lendSocket} and the getters the
 * loop's. Shared state is under {@link #lock}.
 *
 * <p>Direct writes (a plain connection's gathering body, ADR 0071's last addendum): the loop may
 * lend the writer the socket ({@link #lendSocket}) and the writer then writes its bytes itself,
 * without waking the loop, until a write falls short. Who writes the socket, one at a time:
 * <ul>
 * <li>{@link #socket} is lent only by the loop, under the lock, when it has written everything
 *     before this body's next byte (the session's output is empty) and nothing waits in the pipe,
 *     or only the writer's own array does: then the loop takes the array out untaken in the same
 *     hold ({@link #returnToWriter}) and the waiting writer writes the rest itself.
 *     From then until it is taken back the loop puts nothing into the connection's output (this is
 *     the oldest answer owed, so only its pipe feeds the output, and the pipe stays empty) and so
 *     writes nothing to the socket.</li>
 * <li>The writer writes the socket only under the lock and only while it is lent, and queues
 *     a piece only while it is not, looked at in the same hold of the lock: so a lent socket
 *     implies an empty pipe, always. The write takes it back when the socket takes less than
 *     it was offered, or fails, queuing the rest in that same hold: bytes stay in order, and the
 *     loop's EPOLLOUT carries the rest.</li>
 * <li>{@link #abort} (the loop's, before it closes the descriptor) and {@link #end} take it back
 *     under the lock: no write from the writer can reach a descriptor closed, or its number
 *     reused, after the connection's close.</li>
 * </ul>
 */
final class PipedExchange implements Exchange {

    /** The largest piece the writer's write is cut into, so no chunk outgrows the pipe. */
    static final int PIECE = 16 * 1024;
    /**
     * A write at least this long is lent, not copied: the loop takes its bytes from the writer's
     * own array while the write waits for it to be taken (ADR 0071), as the JDK's server writes
     * to its socket before a write returns.
     */
    static final int LEND = 64 * 1024;

    private final Request request;
    private final boolean head;
    private final Runnable wake;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition room = lock.newCondition();
    /** Under lock: the body's bytes not yet taken by the loop. */
    private final BodyPipe pipe = new BodyPipe();
    /** Under lock: set once by the writer; null until {@link #sendHead}. */
    private ExchangeHead sent;
    /** Under lock: the body ended ({@link #end}); the loop is done once the pipe is empty. */
    private boolean finished;
    /** Under lock: the body broke its framing: the connection ends after what was sent. */
    private boolean broken;
    /** Under lock: the connection is gone: every write fails from now on. */
    private boolean aborted;
    /** Under lock: the loop's takes that signalled {@link #room}. */
    private int takesSignalled;

    /** The writer's: the body's stream, which keeps the framing the head chose. */
    private final FramedBody body;

    /** The peer's raw sockaddr, or null when the worker does not keep it. */
    private final byte[] peer;

    /** Under lock: the socket the writer may write itself while lent it (see the class comment). */
    private final LentSocket socket;

    PipedExchange(Request request, Runnable wake, byte[] peer) {
        this(request, wake, peer, false);
    }

    /** {@code gathers}: the body's writes gather until a flush ({@link ExchangeApp#gathersWrites}). */
    PipedExchange(Request request, Runnable wake, byte[] peer, boolean gathers) {
        this(request, wake, peer, gathers, null);
    }

    /** {@code socket}: the connection's, which the loop may lend the writer; null: never lent. */
    PipedExchange(Request request, Runnable wake, byte[] peer, boolean gathers, SocketWrites socket) {
        this.socket = new LentSocket(socket);
        this.body = new FramedBody(this, gathers);
        this.request = request;
        this.peer = peer;
        this.head = "HEAD".equals(request.method());
        this.wake = wake;
    }

    /** The request this exchange answers. */
    @Override
    public Request request() {
        return request;
    }

    /** The client's address, or null when unknown. */
    @Override
    public java.net.InetSocketAddress remote() {
        return Peers.address(peer);
    }

    /** The connection's TLS session, or null: plain HTTP. Set by the loop before the app sees it. */
    private javax.net.ssl.SSLSession tls;

    void tls(javax.net.ssl.SSLSession session) {
        this.tls = session;
    }

    javax.net.ssl.SSLSession tls() {
        return tls;
    }

    /** The body as it arrives, when it streams; null when the parser read it whole. */
    private RequestBody streamed;

    /** The request's body as a stream: as it arrives, or the whole body the parser read. */
    @Override
    public InputStream requestBody() {
        return streamed != null ? streamed : new java.io.ByteArrayInputStream(request.body());
    }

    /** Whether {@code body} is this exchange's streamed request body. */
    boolean reads(RequestBody body) {
        return streamed == body;
    }

    /** The handler is done: what it did not read of a streamed body is read by the loop and dropped. */
    void discardBody() {
        if (streamed != null) {
            streamed.close();
        }
    }

    /** The body is close-delimited (HTTP/1.0, unknown length): the head must say Connection: close. */
    boolean closeDelimited() {
        lock.lock();
        try {
            return body.closeDelimited();
        } finally {
            lock.unlock();
        }
    }

    /** Set on the loop before the exchange's thread is handed it. */
    void streamBody(RequestBody body) {
        streamed = body;
    }

    /** Whether {@link #sendHead} has been called. */
    @Override
    public boolean headSent() {
        lock.lock();
        try {
            return sent != null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The status and headers (names and values alternating; the server's own framing fields,
     * Content-Length, Transfer-Encoding, Connection and Date, are its to write and skipped here),
     * and how the body is framed: {@code length >= 0} bytes, or {@link #CHUNKED}.
     *
     * @throws IOException when the connection is gone
     * @throws IllegalStateException when the head was sent already
     */
    @Override
    public void sendHead(int status, long length, String... headers) throws IOException {
        if (status < 100 || status > 999) {
            throw new IllegalArgumentException("status " + status);
        }
        if (length < CHUNKED) {
            throw new IllegalArgumentException("length " + length);
        }
        body.frame(status, length, head, request.version());
        ExchangeHead h = ExchangeHead.of(status, length, head, body, headers);
        lock.lock();
        try {
            if (sent != null) {
                throw new IllegalStateException("response headers already sent");
            }
            if (aborted) {
                throw new IOException("connection closed");
            }
            sent = h;
        } finally {
            lock.unlock();
        }
        wake.run();
    }

    /** The body's stream: writes block while {@link #PIPE_BYTES} wait; close ends the response. */
    @Override
    public OutputStream body() {
        return body;
    }

    /**
     * Ends the response (idempotent): a chunked body gets its last chunk; a fixed-length body
     * written short breaks the connection (and throws, as the JDK's does).
     */
    @Override
    public void finish() throws IOException {
        body.close();
    }

    /**
     * The writer failed part-way (an exception after the head): what was sent stays sent, no last
     * chunk follows, and the connection closes, as the JDK's server does.
     */
    @Override
    public void fail() {
        body.fail();
    }

    /** A whole response, as a blocking {@link App} answers. */
    @Override
    public void respond(Response r) throws IOException {
        if (r.file() != null) {
            FileThroughPipe.respond(this, r);
            return;
        }
        if (r.streams()) {
            String[] h = r.headersWithType();
            sendHead(r.status(), r.streamLength(), h);
            try (OutputStream o = body()) {
                r.writer().writeTo(o);
            }
            return;
        }
        String[] h = r.headersWithType();
        sendHead(r.status(), r.body().length, h);
        if (!body.bodyless()) {
            body.write(r.body(), 0, r.body().length);
        }
        finish();
    }

    // ---- the loop's side ----

    /** The status, once the head was sent (the access log). */
    int status() {
        lock.lock();
        try {
            return sent != null ? sent.status : 0;
        } finally {
            lock.unlock();
        }
    }

    /** The head's status line and fields, or null before {@link #sendHead}. */
    byte[] headBytes() {
        lock.lock();
        try {
            return sent != null ? sent.bytes : null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Moves up to {@code room} waiting bytes into {@code out}, waking the writer only when what it
     * waits for came: the pipe has room again, or its own array was taken whole. A MiB the writer
     * lent is taken a scratch at a time; a wake-up at every take was a thread switch each. True
     * when the response is complete and all of it moved.
     */
    boolean moveTo(HeldBytes out, int room) {
        lock.lock();
        try {
            boolean wasFull = pipe.full();
            boolean moved = pipe.moveTo(out, room) > 0;
            if (moved) {
                socket.loopWrites();
            }
            boolean gaveBack = pipe.gaveBack();
            if (moved && (wasFull && !pipe.full() || gaveBack)) {
                takesSignalled++;
                this.room.signalAll();
            }
            return finished && pipe.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    /** How many of the loop's takes woke the writer: each is a thread switch (LentBodyTest). */
    int takesSignalled() {
        lock.lock();
        try {
            return takesSignalled;
        } finally {
            lock.unlock();
        }
    }

    /** Whether the body broke its framing (the connection must end after it). */
    boolean broken() {
        lock.lock();
        try {
            return broken;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether the writer's own write found the connection gone: what the app throws after it is
     * the client's going, as when the loop finds it gone first and aborts the writer.
     */
    boolean lost() {
        lock.lock();
        try {
            return socket.lost();
        } finally {
            lock.unlock();
        }
    }

    /** Whether the first bytes waiting are {@code b} itself, lent by a waiting writer (tests). */
    boolean lends(byte[] b) {
        lock.lock();
        try {
            return pipe.startsWith(b);
        } finally {
            lock.unlock();
        }
    }

    /** Whether bytes wait to be moved. */
    boolean hasBytes() {
        lock.lock();
        try {
            return !pipe.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The loop has written all the connection's output and holds nothing of this body: the writer
     * may write the socket itself until a write falls short. A no-op without a socket, or while
     * bytes wait in the pipe, or once the body ended or the connection is gone.
     */
    void lendSocket() {
        if (!socket.lendable()) {
            return;
        }
        lock.lock();
        try {
            if (!aborted && !finished && !broken && pipe.isEmpty()) {
                socket.lend();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Whether the writer holds the socket now (tests). */
    boolean socketLent() {
        lock.lock();
        try {
            return socket.lent();
        } finally {
            lock.unlock();
        }
    }

    /** Bytes the writer wrote to the socket itself since the last call: the loop counts them as sent. */
    long takeDirectBytes() {
        lock.lock();
        try {
            return socket.takeCount();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The connection closed: a writer blocked or yet to write fails. Called before the descriptor
     * closes: a direct write in flight holds the lock, so it has ended when this returns, and
     * none follows.
     */
    void abort() {
        lock.lock();
        try {
            socket.takeBack();
            aborted = true;
            pipe.clear();
            room.signalAll();
        } finally {
            lock.unlock();
        }
    }

    // ---- the writer's side ----

    /**
     * Queues bytes for the loop, blocking while the pipe is full, and wakes it when the pipe was
     * empty; or, while the loop lends the writer the socket, writes them there. Whether the socket
     * is lent is looked at in the same hold of the lock that would queue a piece, so a piece is
     * never queued while it is lent, and the socket is lent only while the pipe is empty: what
     * the writer writes itself is never ahead of bytes waiting in the pipe.
     */
    void enqueue(byte[] b, int off, int len) throws IOException {
        if (len >= LEND) {
            lend(b, off, len);
            return;
        }
        while (len > 0) {
            int n = Math.min(len, PIECE);
            boolean wakeLoop;
            lock.lock();
            try {
                awaitRoom(() -> !socket.lent() && pipe.full());
                if (socket.lent()) {
                    wakeLoop = writeLent(b, off, len) != null; // all that is left, not just this piece
                    n = len;
                } else {
                    wakeLoop = pipe.copy(b, off, n);
                }
            } finally {
                lock.unlock();
            }
            if (wakeLoop) {
                wake.run();
            }
            off += n;
            len -= n;
        }
    }

    /**
     * Queues the writer's own bytes, uncopied, once the pipe has room, and waits until the loop
     * has taken them all: the array is the writer's again when this returns (or throws). While
     * the socket is lent, writes them there, and lends the loop only what it did not take.
     */
    private void lend(byte[] b, int off, int len) throws IOException {
        BodyPipe.Piece lent;
        boolean wasEmpty;
        lock.lock();
        try {
            awaitRoom(() -> !socket.lent() && pipe.full());
            if (socket.lent()) {
                lent = writeLent(b, off, len);
                if (lent == null) {
                    return; // the socket took it all
                }
                wasEmpty = true;
            } else {
                wasEmpty = pipe.isEmpty();
                lent = pipe.lend(b, off, len);
            }
        } finally {
            lock.unlock();
        }
        if (wasEmpty) {
            wake.run();
        }
        while (lent.borrows(b)) { // else a copy of the rest: nothing of the writer's to wait for
            BodyPipe.Piece waiting = lent;
            lock.lock();
            try {
                awaitRoom(() -> waiting.waiting() && !waiting.returned());
                if (!waiting.waiting()) {
                    return; // the loop took it all
                }
                // Given back with the socket (returnToWriter): the rest is this thread's to write.
                lent = writeLent(b, waiting.at(), waiting.end() - waiting.at());
            } finally {
                lock.unlock();
            }
            if (lent == null) {
                return; // the socket took it all
            }
            wake.run(); // the socket is the loop's again, with the rest queued
        }
    }

    /**
     * The loop's, when everything before this body's next byte is written and that byte is the
     * start of the rest of the writer's own array, waiting in the pipe: takes the array out
     * untaken and lends the writer the socket, in one hold of the lock, so a lent socket still
     * implies an empty pipe. The writer, woken, writes the rest itself: no copy through the
     * session's output. False, and nothing changes, where it cannot be lent.
     */
    boolean returnToWriter() {
        if (!socket.lendable()) {
            return false;
        }
        lock.lock();
        try {
            // Not while the socket is full: the loop writes from its output until EPOLLOUT says
            // there is room, and gives the array back once that output is written.
            if (aborted || finished || broken || socket.full() || !pipe.returnWritersArray()) {
                return false;
            }
            socket.lend();
            room.signalAll();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Under the lock, while the socket is lent: writes what the socket takes now. When it takes
     * less, or fails, the socket goes back to the loop, with the rest queued in this same hold of
     * the lock (the loop must never find the socket free and the pipe empty with bytes unsent: it
     * would lend the socket again, and a later write would pass them). The rest is lent as a
     * large write is (the caller waits for it), or copied. The abort waits for this: it takes the
     * lock. Null when the socket took it all, else the rest's piece.
     */
    private BodyPipe.Piece writeLent(byte[] b, int off, int len) throws IOException {
        int n;
        try {
            n = socket.write(b, off, len); // short or failed: the socket is the loop's again
        } catch (IOException e) {
            broken = true; // the connection is gone: no keep-alive after this answer
            throw e;
        }
        return n >= len ? null : pipe.rest(b, off + n, off + len);
    }

    /** Under lock: waits while {@code full} and the connection lives; throws once it is gone. */
    private void awaitRoom(java.util.function.BooleanSupplier full) throws IOException {
        while (!aborted && full.getAsBoolean()) {
            try {
                room.await(100, TimeUnit.MILLISECONDS); // the loop's take signals; the timeout only re-checks
            } catch (InterruptedException e) {
                // This write's bytes are not all sent, yet its framing counted them: and an array
                // given back (returnToWriter) has nobody left to write its rest. The body is cut,
                // so a close that follows must not end it as whole on a kept-alive connection.
                broken = true;
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted writing a response body");
            }
        }
        if (aborted) {
            throw new IOException("connection closed");
        }
    }

    /** The body ended ({@code breaks}: short of its framing, or cut); the loop is woken to see it. */
    void end(boolean breaks) {
        lock.lock();
        try {
            socket.takeBack(); // the loop writes what follows this answer
            finished = true;
            broken |= breaks;
        } finally {
            lock.unlock();
        }
        wake.run();
    }
}
