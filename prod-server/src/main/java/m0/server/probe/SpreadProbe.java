package m0.server.probe;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The spread probe: opens N keep-alive connections in a shape, asks {@code /pid} on each while
 * all are open, and counts how many each worker serves. A connection belongs to the worker that
 * answers it (a keep-alive connection never moves after its hand-off), so the count per worker
 * is the spread the server would give a real keep-alive load.
 *
 * <p>Every connection has a read timeout, and every round closes all it opened.
 */
public final class SpreadProbe {

    private static final byte[] PID_REQUEST =
            "GET /pid HTTP/1.1\r\nHost: probe\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private final InetSocketAddress server;
    private final int timeoutMillis;

    public SpreadProbe(InetSocketAddress server, int timeoutMillis) {
        this.server = server;
        this.timeoutMillis = timeoutMillis;
    }

    /**
     * One round: open {@code connections} in {@code shape}, then ask {@code /pid} on every one
     * while all are open.
     *
     * @param workers the workers expected; one that serves none counts 0
     */
    public Spread round(Shape shape, int connections, int workers) throws IOException {
        List<Socket> open = new ArrayList<>(connections);
        try {
            int group = shape.groupSize(connections);
            for (int first = 0; first < connections; first += group) {
                int last = Math.min(connections, first + group);
                for (int k = first; k < last; k++) {
                    Socket socket = new Socket();
                    socket.setTcpNoDelay(true);
                    socket.setSoTimeout(timeoutMillis);
                    socket.connect(server, timeoutMillis);
                    open.add(socket);
                }
                if (group < connections) {
                    // Ramp and groups: the server has served each group before the next opens.
                    for (int k = first; k < last; k++) {
                        askPid(open.get(k));
                    }
                }
            }
            Map<Integer, Integer> perWorker = new HashMap<>();
            for (int i = 0; i < workers; i++) {
                perWorker.put(i, 0);
            }
            for (Socket socket : open) {
                perWorker.merge(askPid(socket), 1, Integer::sum);
            }
            return new Spread(shape, connections, perWorker);
        } finally {
            for (Socket socket : open) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // closing a probe connection: nothing to save
                }
            }
        }
    }

    /** Sends {@code GET /pid} and returns the worker index from the body "{pid} {index}". */
    static int askPid(Socket socket) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(PID_REQUEST);
        out.flush();
        String body = readResponseBody(socket.getInputStream());
        String[] fields = body.trim().split("\\s+");
        if (fields.length != 2) {
            throw new IOException("unexpected /pid body: '" + body.trim() + "'");
        }
        return Integer.parseInt(fields[1]);
    }

    /** Reads one HTTP/1.1 response with a Content-Length body; returns the body. */
    static String readResponseBody(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        int b;
        while (!head.toString().endsWith("\r\n\r\n")) {
            b = in.read();
            if (b < 0) {
                throw new IOException("connection closed before a response"
                        + (head.length() > 0 ? " (read: " + head + ")" : ""));
            }
            head.append((char) b);
            if (head.length() > 16384) {
                throw new IOException("response head too long");
            }
        }
        String status = head.substring(0, head.indexOf("\r\n"));
        if (!status.startsWith("HTTP/1.1 200")) {
            throw new IOException("unexpected status: " + status);
        }
        int length = -1;
        for (String line : head.toString().split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase("Content-Length")) {
                length = Integer.parseInt(line.substring(colon + 1).trim());
            }
        }
        if (length < 0) {
            throw new IOException("response without Content-Length: " + status);
        }
        byte[] body = in.readNBytes(length);
        if (body.length != length) {
            throw new IOException("connection closed inside a response body");
        }
        return new String(body, StandardCharsets.US_ASCII);
    }
}
