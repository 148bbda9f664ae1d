package m0.server.worker;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import javax.net.ssl.SSLException;
import m0.server.jnr.Fds;
import m0.server.jnr.Memory;
import m0.server.jnr.NativeException;
import m0.server.log.RateLimitedLog;
import m0.server.tls.EngineSource;
import m0.server.tls.TlsLink;

/**
 * The TLS side of a worker's connection I/O (ADR 0069): each connection admitted gets its
 * {@link TlsLink}; ciphertext read goes through it; what ends a connection at the TLS layer
 * (a failed handshake, garbage, plain HTTP on the TLS port) is logged, answered where it can be,
 * and reported for the close. Not thread-safe: the loop's.
 */
final class TlsReads {

    /** What a read through TLS asks of the connection. */
    enum Outcome {
        /** Read on. */
        MORE,
        /** The peer's close_notify: flush (our close_notify) and let the session close. */
        PEER_CLOSED,
        /** Close it now: its last words, if any, were written. */
        CLOSE
    }

    /** nginx's answer to plain HTTP on an HTTPS port, in plain HTTP: the client can read it. */
    private static final byte[] PLAIN_HTTP_ANSWER = plainHttpAnswer("The plain HTTP request was sent to the HTTPS port.\n");

    private final EngineSource engines;
    private final TlsLink.Scratch scratch;
    /** One log per failure site (RateLimitedLog's rule). */
    private final RateLimitedLog failedHandshakes;
    private final RateLimitedLog plainOnTls;
    private final RateLimitedLog unfinishedHandshakes;
    private final RateLimitedLog refusedEngines;
    /** A handshake must finish this long after its first byte: the header timeout. */
    private final long handshakeNanos;
    /** Last words written outside the answer path: a close_notify, an alert, the 400. */
    private final Memory lastWords = new Memory(1024);

    TlsReads(EngineSource engines, int readBytes, String name, long handshakeNanos) {
        this.engines = engines;
        this.scratch = new TlsLink.Scratch(readBytes);
        scratch.judgedBy(engines);
        this.failedHandshakes = new RateLimitedLog(System.err, name + ": ");
        this.plainOnTls = new RateLimitedLog(System.err, name + ": ");
        this.unfinishedHandshakes = new RateLimitedLog(System.err, name + ": ");
        this.refusedEngines = new RateLimitedLog(System.err, name + ": ");
        this.handshakeNanos = handshakeNanos;
    }

    /** A connection admitted: its handshake runs here, in the worker that serves it. */
    void admit(Connection c) {
        TlsLink link = new TlsLink(engines.engine(c.peer), scratch);
        c.tls = link;
        c.session.tls(link::session); // an exchange on it is an HttpsExchange under --main
    }

    /** {@link #admit} threw: the caller closes the connection; said here, once a second at most. */
    void engineFailed(Exception e) {
        refusedEngines.log("TLS: closing a connection whose engine could not be made: " + e);
    }

    /** Ciphertext read from {@code c}'s socket (position..limit, all consumed); {@code viewing} before any plaintext reaches its session. */
    Outcome read(Connection c, ByteBuffer in, long now, Runnable viewing) {
        if (!c.tls.handshakeBegun() && in.hasRemaining()) {
            c.handshakeDeadline = now + handshakeNanos; // trickled or left hanging, it ends then
        }
        TlsLink.Read r;
        try {
            r = c.tls.onCipher(in, c.session, now, viewing);
        } catch (SSLException e) {
            failedHandshakes.log("TLS: closing a connection whose handshake or record failed: " + e.getMessage());
            writeLast(c, c.tls.waiting()); // the alert, if the engine made one
            return Outcome.CLOSE;
        }
        if (r == TlsLink.Read.PLAIN_HTTP) {
            plainOnTls.log("TLS: a plain HTTP request on the TLS port: answered 400 and closed");
            writeLast(c, ByteBuffer.wrap(PLAIN_HTTP_ANSWER));
            c.tls.release();
            c.tls = null; // no TLS to close
            return Outcome.CLOSE;
        }
        if (c.handshakeDeadline != Connection.NONE && c.tls.handshakeDone()) {
            c.handshakeDeadline = Connection.NONE;
            c.session.active(now); // the session's own clocks from here
        }
        return r == TlsLink.Read.CLOSED ? Outcome.PEER_CLOSED : Outcome.MORE;
    }

    /** {@code c}'s next deadline: its TLS handshake's while one is under way (set by {@link #read}), else its session's. */
    static long deadline(Connection c) {
        return handshakePending(c) ? c.handshakeDeadline : c.session.deadline();
    }

    /** Its TLS handshake began and has not finished (one finished by a wrap is seen here too). */
    static boolean handshakePending(Connection c) {
        return c.handshakeDeadline != Connection.NONE && c.tls != null && !c.tls.handshakeDone();
    }

    /** A handshake did not finish by its deadline: said; the caller closes its connection. */
    void handshakeTimedOut() {
        unfinishedHandshakes.log("TLS: closing a connection whose handshake did not finish within the header timeout ("
                + handshakeNanos / 1_000_000 + " ms from its first byte)");
    }

    /** Before {@code c}'s close: a close_notify, so its client tells the close from a truncation. */
    void closing(Connection c) {
        if (c.tls != null && c.tls.handshakeBegun()) {
            writeLast(c, c.tls.closeNotify());
        }
        if (c.tls != null) {
            c.tls.release();
        }
    }

    /** Handshakes finished in this worker: full ones. */
    long fullHandshakes() {
        return scratch.fullHandshakes();
    }

    /** ...and resumed ones (a ticket or the session cache). */
    long resumedHandshakes() {
        return scratch.resumedHandshakes();
    }

    /** One best-effort write of a connection's last bytes; a full or reset socket drops them. */
    private void writeLast(Connection c, ByteBuffer bytes) {
        if (bytes == null || !bytes.hasRemaining()) {
            return;
        }
        int len = Math.min(bytes.remaining(), lastWords.size());
        lastWords.buffer().put(0, bytes, bytes.position(), len);
        try {
            Fds.write(c.fd, lastWords.address(), len);
        } catch (NativeException e) {
            // reset by the peer: nothing to say to it
        }
    }

    private static byte[] plainHttpAnswer(String body) {
        return ("HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: " + body.length()
                + "\r\nConnection: close\r\n\r\n" + body).getBytes(StandardCharsets.US_ASCII);
    }
}
