package m0.server.it;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/** A raw-socket HTTP/1.1 client for the tests: exact bytes out, responses parsed by Content-Length. */
final class Http implements AutoCloseable {

    /** One parsed response. */
    record Response(int status, String head, String body) {
        String header(String name) {
            for (String line : head.split("\r\n")) {
                int c = line.indexOf(':');
                if (c > 0 && line.substring(0, c).trim().equalsIgnoreCase(name)) {
                    return line.substring(c + 1).trim();
                }
            }
            return null;
        }
    }

    final Socket socket;
    private final InputStream in;

    Http(int port) throws IOException {
        this(port, 10_000);
    }

    Http(int port, int readTimeoutMillis) throws IOException {
        this(port, readTimeoutMillis, 0);
    }

    /** receiveBuffer > 0 fixes SO_RCVBUF (no autotuning); keep it above loopback's 64 KiB MSS. */
    Http(int port, int readTimeoutMillis, int receiveBuffer) throws IOException {
        socket = new Socket();
        if (receiveBuffer > 0) {
            socket.setReceiveBufferSize(receiveBuffer);
        }
        socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        socket.setSoTimeout(readTimeoutMillis);
        socket.setTcpNoDelay(true);
        in = new BufferedInputStream(socket.getInputStream());
    }

    void send(String raw) throws IOException {
        send(raw.getBytes(StandardCharsets.ISO_8859_1));
    }

    void send(byte[] raw) throws IOException {
        socket.getOutputStream().write(raw);
        socket.getOutputStream().flush();
    }

    static String get(String path) {
        return "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    }

    /** Reads one response (status line, headers, Content-Length body); null at EOF before any byte. */
    Response read() throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int state = 0;
        while (state < 4) {
            int b = in.read();
            if (b < 0) {
                if (head.size() == 0) {
                    return null;
                }
                throw new IOException("EOF inside a response head: " + head.toString(StandardCharsets.ISO_8859_1));
            }
            head.write(b);
            state = (b == '\r' && (state == 0 || state == 2)) || (b == '\n' && (state == 1 || state == 3)) ? state + 1
                    : (b == '\r' ? 1 : 0);
            if (head.size() > 1 << 20) {
                throw new IOException("response head too long");
            }
        }
        String h = head.toString(StandardCharsets.ISO_8859_1);
        int status = Integer.parseInt(h.substring(9, 12));
        Response r = new Response(status, h, "");
        String len = r.header("Content-Length");
        int n = len == null ? 0 : Integer.parseInt(len);
        byte[] body = in.readNBytes(n);
        if (body.length != n) {
            throw new IOException("EOF inside a body of " + n);
        }
        return new Response(status, h, new String(body, StandardCharsets.ISO_8859_1));
    }

    /** True when the server closed: read returns EOF (within the socket's read timeout). */
    boolean readsEof() throws IOException {
        try {
            return in.read() < 0;
        } catch (java.net.SocketException e) {
            return e.getMessage() != null && e.getMessage().toLowerCase(Locale.ROOT).contains("reset");
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
