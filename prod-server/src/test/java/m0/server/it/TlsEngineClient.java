package m0.server.it;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;

/**
 * A blocking TLS client on an {@link SSLEngine} over a plain socket. Unlike an SSLSocket, which
 * reads -1 at a bare FIN as at a close_notify (the JDK does not require the peer's close_notify
 * by default), it tells how the server ended the connection: close_notify then FIN, FIN alone,
 * or a reset.
 */
final class TlsEngineClient implements AutoCloseable {

    /** How the server ended the connection. */
    enum End { CLOSE_NOTIFY_THEN_FIN, CLOSE_NOTIFY_THEN_RESET, FIN_WITHOUT_CLOSE_NOTIFY, RESET }

    private static final Pattern CONTENT_LENGTH = Pattern.compile("(?i)content-length: *(\\d+)");

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final SSLEngine engine;
    /** Ciphertext read and not yet unwrapped; write mode. */
    private ByteBuffer netIn;
    /** Plaintext unwrapped and not yet taken; write mode. */
    private ByteBuffer appIn;
    private final ByteBuffer netOut;
    /** The server's close_notify was unwrapped. */
    private boolean closeNotify;

    private TlsEngineClient(Socket socket, SSLEngine engine) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
        this.engine = engine;
        this.netIn = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
        this.appIn = ByteBuffer.allocate(engine.getSession().getApplicationBufferSize());
        this.netOut = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
    }

    /** Connects to 127.0.0.1:port as "localhost" and completes the handshake; reads time out after timeoutMs. */
    static TlsEngineClient open(SSLContext context, int port, int timeoutMs) throws IOException {
        return connect(context, port, timeoutMs, TlsEngineClient::handshake);
    }

    /**
     * As {@link #open}, but the handshake's last flight (the client's Finished) is held and sent
     * in one write with a GET for {@code path}: the server reads the end of the handshake and the
     * request together, as a client that asks at once often makes it.
     */
    static TlsEngineClient openAsking(SSLContext context, int port, int timeoutMs, String path) throws IOException {
        return connect(context, port, timeoutMs, c -> {
            c.held = new java.io.ByteArrayOutputStream();
            c.handshake();
            ByteBuffer request = ByteBuffer.wrap(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            c.wrap(request);
            c.out.write(c.held.toByteArray()); // Finished and the request: one write, one segment on loopback
            c.out.flush();
            c.held = null;
        });
    }

    /** What a new client does on its connection before it is handed out (the handshake, at least). */
    private interface Start {
        void on(TlsEngineClient c) throws IOException;
    }

    /** A client on a new connection to 127.0.0.1:port after {@code start}; the socket is closed if that fails. */
    private static TlsEngineClient connect(SSLContext context, int port, int timeoutMs, Start start) throws IOException {
        Socket s = new Socket();
        try {
            s.connect(new InetSocketAddress("127.0.0.1", port), timeoutMs);
            s.setSoTimeout(timeoutMs);
            SSLEngine e = context.createSSLEngine("localhost", port);
            e.setUseClientMode(true);
            TlsEngineClient c = new TlsEngineClient(s, e);
            start.on(c);
            return c;
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /** Non-null while {@link #openAsking} holds what wraps make instead of writing it. */
    private java.io.ByteArrayOutputStream held;

    private void handshake() throws IOException {
        engine.beginHandshake();
        for (;;) {
            switch (engine.getHandshakeStatus()) {
                case NEED_WRAP -> wrap(ByteBuffer.allocate(0));
                case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
                    if (!unwrapSome()) {
                        throw new EOFException("EOF in the handshake");
                    }
                }
                case NEED_TASK -> {
                    for (Runnable t; (t = engine.getDelegatedTask()) != null; ) {
                        t.run();
                    }
                }
                default -> {
                    return; // FINISHED, NOT_HANDSHAKING
                }
            }
        }
    }

    /** Sends a keep-alive GET for {@code path}. */
    void send(String path) throws IOException {
        wrap(ByteBuffer.wrap(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n").getBytes(StandardCharsets.US_ASCII)));
    }

    /** One request on the connection; the body of its 200 answer, stripped. */
    String ask(String path) throws IOException {
        send(path);
        return readAnswer();
    }

    /** The body of the next answer (Content-Length), stripped; an IOException if it is not a whole 200. */
    String readAnswer() throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = readByte();
            if (b < 0) {
                throw new EOFException("EOF in the head: " + head);
            }
            head.append((char) b);
        }
        if (!head.toString().startsWith("HTTP/1.1 200 ")) {
            throw new IOException("not a 200: " + head);
        }
        Matcher m = CONTENT_LENGTH.matcher(head);
        if (!m.find()) {
            throw new IOException("no Content-Length: " + head);
        }
        byte[] body = new byte[Integer.parseInt(m.group(1))];
        for (int i = 0; i < body.length; i++) {
            int b = readByte();
            if (b < 0) {
                throw new EOFException("EOF in the body after " + i + " of " + body.length + " bytes");
            }
            body[i] = (byte) b;
        }
        return new String(body, StandardCharsets.US_ASCII).strip();
    }

    /**
     * Reads until the server ends the connection, expecting no more answers: how it ended. An
     * answer's bytes arriving first are an IOException; so is a read timeout.
     */
    End end() throws IOException {
        try {
            while (!closeNotify) {
                if (!unwrapSome()) {
                    return End.FIN_WITHOUT_CLOSE_NOTIFY;
                }
                if (appIn.position() > 0) {
                    throw new IOException("unexpected bytes before the end: " + appIn.position());
                }
            }
            byte[] rest = new byte[1024];
            while (in.read(rest) >= 0) {
                // after the close_notify: anything up to the FIN is ignored
            }
            return End.CLOSE_NOTIFY_THEN_FIN;
        } catch (SocketException e) { // "Connection reset"
            return closeNotify ? End.CLOSE_NOTIFY_THEN_RESET : End.RESET;
        }
    }

    private int readByte() throws IOException {
        while (appIn.position() == 0) {
            if (closeNotify || !unwrapSome()) {
                return -1;
            }
        }
        appIn.flip();
        int b = appIn.get() & 0xff;
        appIn.compact();
        return b;
    }

    /** One unwrap of what is buffered, reading more ciphertext as it needs; false at EOF. */
    private boolean unwrapSome() throws IOException {
        for (;;) {
            netIn.flip();
            SSLEngineResult r = engine.unwrap(netIn, appIn);
            netIn.compact();
            switch (r.getStatus()) {
                case OK -> {
                    return true;
                }
                case CLOSED -> {
                    closeNotify = true;
                    return true;
                }
                case BUFFER_OVERFLOW -> appIn = grown(appIn, engine.getSession().getApplicationBufferSize());
                case BUFFER_UNDERFLOW -> {
                    if (!fill()) {
                        return false;
                    }
                }
            }
        }
    }

    private boolean fill() throws IOException {
        if (!netIn.hasRemaining()) {
            netIn = grown(netIn, engine.getSession().getPacketBufferSize());
        }
        int n = in.read(netIn.array(), netIn.arrayOffset() + netIn.position(), netIn.remaining());
        if (n < 0) {
            return false;
        }
        netIn.position(netIn.position() + n);
        return true;
    }

    private void wrap(ByteBuffer src) throws IOException {
        do {
            netOut.clear();
            SSLEngineResult r = engine.wrap(src, netOut);
            if (r.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
                throw new IOException("a record larger than the packet buffer");
            }
            if (held != null && (engine.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING
                    || r.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.FINISHED)) {
                held.write(netOut.array(), 0, netOut.position()); // the last flight, and what follows it
            } else {
                out.write(netOut.array(), 0, netOut.position());
            }
        } while (src.hasRemaining());
        out.flush();
    }

    private static ByteBuffer grown(ByteBuffer b, int more) {
        ByteBuffer g = ByteBuffer.allocate(b.capacity() + more);
        b.flip();
        g.put(b);
        return g;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
