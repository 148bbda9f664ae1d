package m0.server.tls;

import java.nio.ByteBuffer;
import java.util.Arrays;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;
import m0.server.http.HttpSession;

/**
 * One connection's TLS (ADR 0069): between the socket and its {@link HttpSession}. Ciphertext
 * read is unwrapped into the session's input ({@link #onCipher}); the session's output is
 * wrapped into records as the socket takes them ({@link #output}, {@link #written}). The
 * handshake runs here, in the worker that serves the connection; its delegated tasks run inline
 * (they are the handshake's CPU, counted as the pass's work). Not thread-safe: the loop's.
 *
 * <p>What it holds between passes: the engine, a partial record read (rare), and ciphertext the
 * socket did not take yet (the handshake's flight, or a short write's rest). The rest is the
 * worker's {@link Scratch}.
 */
public final class TlsLink {

    /** What a read did. */
    public enum Read {
        /** Read on: plaintext, if any, went to the session. */
        MORE,
        /** The peer's close_notify: the session saw its EOF. */
        CLOSED,
        /** The first bytes are a plain HTTP request (an ASCII method), not a TLS record. */
        PLAIN_HTTP
    }

    /** The worker's buffers for all its connections' records (one loop thread). */
    public static final class Scratch {
        ByteBuffer net;
        ByteBuffer app;
        ByteBuffer wrapped;

        /** Handshakes finished on this worker, full and resumed (ADR 0073's counters). */
        long fullHandshakes;
        long resumedHandshakes;
        /** Who tells a resumed handshake from a full one: the worker's engines. */
        EngineSource engines;

        public Scratch(int readBytes) {
            // direct: BoringSSL's engine reads and writes a direct buffer in place, and copies a
            // heap one through a pooled direct buffer of its own first
            this.net = ByteBuffer.allocateDirect(readBytes + 17 * 1024 + 512);
            this.app = ByteBuffer.allocateDirect(17 * 1024 + 512);
            this.wrapped = ByteBuffer.allocateDirect(17 * 1024 + 512);
        }

        /** Judged by {@code engines} from now on ({@link EngineSource#resumed}). */
        public void judgedBy(EngineSource engines) {
            this.engines = engines;
        }

        public long fullHandshakes() {
            return fullHandshakes;
        }

        public long resumedHandshakes() {
            return resumedHandshakes;
        }
    }

    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final SSLEngine engine;
    private final Scratch scratch;
    /** A partial record (write mode), or null. */
    private ByteBuffer partial;
    /** Ciphertext to write: bytes start..end of out. */
    private byte[] out = new byte[0];
    private int start;
    private int end;
    /** What {@link #output} returned last: the scratch's wrapped record (true) or {@link #out}. */
    private boolean fromScratch;
    private boolean begun;
    private boolean counted;
    /** Wall clock at the connection's admission: the JDK's resumption rule reads it. */
    private final long createdMillis = System.currentTimeMillis();

    public TlsLink(SSLEngine engine, Scratch scratch) {
        this.engine = engine;
        this.scratch = scratch;
    }

    /** A result that finished the handshake: counted once, full or resumed. */
    private SSLEngineResult seen(SSLEngineResult r) {
        if (!counted && r.getHandshakeStatus() == HandshakeStatus.FINISHED) {
            counted = true;
            EngineSource judge = scratch.engines;
            boolean resumed = judge != null ? judge.resumed(engine, createdMillis)
                    : engine.getSession().getCreationTime() < createdMillis;
            if (resumed) {
                scratch.resumedHandshakes++;
            } else {
                scratch.fullHandshakes++;
            }
        }
        return r;
    }

    /**
     * The engine's native memory back now, not at its collection (BoringSSL's engine holds an
     * SSL*): after the last close_notify, once per connection.
     */
    public void release() {
        if (engine instanceof io.netty.util.ReferenceCounted rc && rc.refCnt() > 0) {
            rc.release();
        }
    }

    /**
     * The handshake has begun: a byte of it was read here. From then on the connection's
     * session lives in this worker's memory and it never moves (core's Mobility, ADR 0069).
     */
    public boolean handshakeBegun() {
        return begun;
    }

    /** The handshake finished (the engine said FINISHED): from then on the session's clocks apply. */
    public boolean handshakeDone() {
        return counted;
    }

    /** The handshake is still under way (application data cannot be wrapped yet). */
    public boolean handshaking() {
        HandshakeStatus hs = engine.getHandshakeStatus();
        return hs != HandshakeStatus.NOT_HANDSHAKING && hs != HandshakeStatus.FINISHED;
    }

    /** Ciphertext waits for the socket. */
    public boolean hasOutput() {
        return start < end;
    }

    /** The connection's session (the handshake's, once it is done): an HttpsExchange's. */
    public javax.net.ssl.SSLSession session() {
        return engine.getSession();
    }

    /** The ALPN protocol agreed ("" for none, null before the handshake). */
    public String protocol() {
        return engine.getApplicationProtocol();
    }

    /**
     * Ciphertext read from the socket (position..limit, all consumed): records unwrapped into
     * the session, handshake messages answered into the output. {@code viewing} runs before any
     * plaintext reaches the session, which may run the app inline: the pass is a view from there
     * (ADR 0069, addendum), not from after the read.
     *
     * @throws SSLException a handshake failure or a bad record: the connection is to be closed
     */
    public Read onCipher(ByteBuffer in, HttpSession session, long now, Runnable viewing) throws SSLException {
        if (!begun && in.hasRemaining()) {
            begun = true;
            byte first = in.get(in.position());
            if (first >= 'A' && first <= 'Z') {
                return Read.PLAIN_HTTP; // "GET /": nginx answers these 400, as we do
            }
        }
        ByteBuffer src = in;
        if (partial != null) {
            if (scratch.net.capacity() < partial.position() + in.remaining()) {
                scratch.net = ByteBuffer.allocateDirect(partial.position() + in.remaining());
            }
            ByteBuffer net = scratch.net;
            net.clear();
            partial.flip();
            net.put(partial).put(in).flip();
            partial = null;
            src = net;
        }
        for (;;) {
            HandshakeStatus hs = engine.getHandshakeStatus();
            if (hs == HandshakeStatus.NEED_TASK) {
                Runnable task;
                while ((task = engine.getDelegatedTask()) != null) {
                    task.run();
                }
                continue;
            }
            if (hs == HandshakeStatus.NEED_WRAP) {
                if (wrapOwn(EMPTY).getStatus() == SSLEngineResult.Status.CLOSED) {
                    return Read.CLOSED;
                }
                continue;
            }
            if (!src.hasRemaining()) {
                if (counted || !begun || hs != HandshakeStatus.NEED_UNWRAP || src == EMPTY) {
                    return Read.MORE;
                }
                src = EMPTY; // once more with nothing: BoringSSL says FINISHED only at the call after the one that finished
            }
            ByteBuffer app = scratch.app;
            app.clear();
            SSLEngineResult r = seen(engine.unwrap(src, app));
            if (app.position() > 0) {
                app.flip();
                viewing.run();
                session.onBytes(app, now);
            }
            switch (r.getStatus()) {
                case BUFFER_UNDERFLOW -> {
                    keepPartial(src);
                    return Read.MORE;
                }
                case BUFFER_OVERFLOW -> scratch.app = ByteBuffer.allocateDirect(engine.getSession().getApplicationBufferSize());
                case CLOSED -> {
                    session.onEof(now);
                    if (engine.getHandshakeStatus() == HandshakeStatus.NEED_WRAP) {
                        wrapOwn(EMPTY); // our close_notify in answer
                    }
                    return Read.CLOSED;
                }
                default -> {
                    // OK: on while bytes remain or the handshake asks for more
                }
            }
        }
    }

    /**
     * The ciphertext to write next (position..limit; the caller does not move it): what waits,
     * else the session's output wrapped into a record; null when there is none (or the handshake
     * is not done, so the session's output cannot go yet).
     */
    public ByteBuffer output(HttpSession session, long now) throws SSLException {
        if (start < end) {
            fromScratch = false;
            return ByteBuffer.wrap(out, start, end - start);
        }
        if (handshaking()) {
            return null;
        }
        ByteBuffer plain = session.output();
        if (plain == null || !plain.hasRemaining()) {
            return null;
        }
        ByteBuffer src = plain.duplicate();
        ByteBuffer dst = scratch.wrapped;
        for (;;) {
            dst.clear();
            SSLEngineResult r = seen(engine.wrap(src, dst));
            if (r.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
                dst = scratch.wrapped = ByteBuffer.allocateDirect(engine.getSession().getPacketBufferSize());
                continue;
            }
            if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
                return null;
            }
            break;
        }
        int consumed = src.position() - plain.position();
        if (consumed > 0) {
            session.written(consumed, now); // in a record now: the session's output moves on
        }
        dst.flip();
        fromScratch = true;
        return dst.hasRemaining() ? dst : null;
    }

    /** n bytes of what {@link #output} returned went to the socket; the rest waits here. */
    public void written(int n) {
        if (!fromScratch) {
            start += n;
            if (start == end) {
                start = 0;
                end = 0;
            }
            return;
        }
        ByteBuffer w = scratch.wrapped;
        int rest = w.remaining() - n;
        if (rest > 0) {
            ensure(rest);
            w.get(w.position() + n, out, end, rest);
            end += rest;
        }
    }

    /** The ciphertext waiting for the socket (an alert after a failure), or null. */
    public ByteBuffer waiting() {
        fromScratch = false;
        return start < end ? ByteBuffer.wrap(out, start, end - start) : null;
    }

    /** Our close_notify, made into the output for a last best-effort write. */
    public ByteBuffer closeNotify() {
        engine.closeOutbound();
        try {
            wrapOwn(EMPTY);
        } catch (SSLException e) {
            // closing anyway
        }
        return start < end ? ByteBuffer.wrap(out, start, end - start) : null;
    }

    /** A handshake message or an alert into the output. */
    private SSLEngineResult wrapOwn(ByteBuffer src) throws SSLException {
        for (;;) {
            ensure(engine.getSession().getPacketBufferSize());
            ByteBuffer dst = ByteBuffer.wrap(out, end, out.length - end);
            SSLEngineResult r = seen(engine.wrap(src, dst));
            end = dst.position();
            if (r.getStatus() != SSLEngineResult.Status.BUFFER_OVERFLOW) {
                return r;
            }
            ensure(out.length - end + 1 + engine.getSession().getPacketBufferSize());
        }
    }

    private void keepPartial(ByteBuffer src) {
        if (src.hasRemaining()) {
            partial = ByteBuffer.allocate(Math.max(src.remaining(), engine.getSession().getPacketBufferSize()));
            partial.put(src);
        }
    }

    /** Room for {@code more} bytes after end, the waiting bytes moved to the front first. */
    private void ensure(int more) {
        if (start > 0) {
            System.arraycopy(out, start, out, 0, end - start);
            end -= start;
            start = 0;
        }
        if (out.length - end < more) {
            out = Arrays.copyOf(out, end + more);
        }
    }
}
