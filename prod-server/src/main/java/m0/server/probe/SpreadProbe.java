package m0.server.probe;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
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

    /** What identifies the worker in a {@code /pid} body. */
    public enum Key {
        /** m0serve's "{pid} {index}": the second field. */
        INDEX,
        /**
         * The first field, a pid, mapped to an index in the order pids are first seen (or as
         * given): for servers that know no index (nginx's {@code $pid}, uvicorn's workers).
         */
        PID
    }

    private final InetSocketAddress server;
    private final int timeoutMillis;
    private final Key key;
    /** Key.PID: pid to index, kept across rounds so a worker keeps its column. */
    private final Map<Long, Integer> indexByPid = new LinkedHashMap<>();

    public SpreadProbe(InetSocketAddress server, int timeoutMillis) {
        this(server, timeoutMillis, Key.INDEX, List.of());
    }

    /**
     * @param knownPids with {@link Key#PID}: pids in index order (may be empty: then first seen, first index)
     */
    public SpreadProbe(InetSocketAddress server, int timeoutMillis, Key key, List<Long> knownPids) {
        this.server = server;
        this.timeoutMillis = timeoutMillis;
        this.key = key;
        for (Long pid : knownPids) {
            indexByPid.putIfAbsent(pid, indexByPid.size());
        }
    }

    /** Key.PID: the pids seen so far, in index order. */
    public List<Long> pids() {
        return List.copyOf(indexByPid.keySet());
    }

    /**
     * One round: open {@code connections} in {@code shape}, ask {@code /pid} on every one while
     * all are open (or count the answers to what each asked as it opened, {@link Shape#ASKING}),
     * and close them all.
     *
     * @param workers the workers expected; one that serves none counts 0
     */
    public Spread round(Shape shape, int connections, int workers) throws IOException {
        try (Held held = open(shape, connections)) {
            return held.landedSpread(workers);
        }
    }

    /**
     * Opens {@code connections} in {@code shape} (a ramp or groups: each answered before the
     * next opens; {@link Shape#ASKING}: each asks as it opens, {@link Held#landedSpread}) and keeps
     * them open, for a caller that wants to look at the server while they are. Close the result.
     */
    public Held open(Shape shape, int connections) throws IOException {
        Held held = new Held(shape, connections);
        try {
            int group = shape.groupSize(connections);
            for (int first = 0; first < connections; first += group) {
                int last = Math.min(connections, first + group);
                for (int k = first; k < last; k++) {
                    Socket socket = new Socket();
                    held.open.add(socket);
                    socket.setTcpNoDelay(true);
                    socket.setSoTimeout(timeoutMillis);
                    socket.connect(server, timeoutMillis);
                    if (shape.asksOnOpen()) {
                        socket.getOutputStream().write(PID_REQUEST);
                    }
                }
                if (shape.asksOnOpen()) {
                    for (int k = first; k < last; k++) {
                        held.first.add(worker(readResponseBody(held.open.get(k).getInputStream())));
                    }
                } else if (group < connections) {
                    // Ramp and groups: the server has served each group before the next opens.
                    for (int k = first; k < last; k++) {
                        askWorker(held.open.get(k));
                    }
                }
            }
            return held;
        } catch (IOException | RuntimeException e) {
            held.close();
            throw e;
        }
    }

    /** Connections one round opened, all open until {@link #close()}. */
    public final class Held implements AutoCloseable {
        private final Shape shape;
        private final int connections;
        private final List<Socket> open;
        /** ASKING: the worker of each connection as the answer to what it asked on opening named it. */
        private final List<Integer> first;

        private Held(Shape shape, int connections) {
            this.shape = shape;
            this.connections = connections;
            this.open = new ArrayList<>(connections);
            this.first = new ArrayList<>(connections);
        }


        /** Asks {@code /pid} on every connection, in the order they were opened: the worker of each. */
        public List<Integer> workerOfEach() throws IOException {
            List<Integer> who = new ArrayList<>(open.size());
            for (Socket socket : open) {
                who.add(askWorker(socket));
            }
            return who;
        }

        /**
         * A client whose server process died: every connection that {@code workerOfEach} (as
         * asked before) placed on {@code lost} is closed and opened afresh in its place, as a
         * pool reconnects. Returns how many were reopened.
         */
        public int reopen(List<Integer> workerOfEach, int lost) throws IOException {
            int reopened = 0;
            for (int k = 0; k < open.size(); k++) {
                if (workerOfEach.get(k) != lost) {
                    continue;
                }
                open.get(k).close();
                Socket socket = new Socket();
                open.set(k, socket);
                socket.setTcpNoDelay(true);
                socket.setSoTimeout(timeoutMillis);
                socket.connect(server, timeoutMillis);
                reopened++;
            }
            return reopened;
        }

        /** Asks {@code /pid} on every connection now and counts per worker. */
        public Spread spread(int workers) throws IOException {
            return count(workerOfEach(), workers);
        }

        /**
         * Where the connections landed, counted per worker: ASKING's first answers, or for the
         * other shapes {@link #spread} (their first ask is now: "asked at once").
         */
        public Spread landedSpread(int workers) throws IOException {
            return shape.asksOnOpen() ? count(first, workers) : spread(workers);
        }

        private Spread count(List<Integer> workerOfEach, int workers) {
            Map<Integer, Integer> perWorker = new HashMap<>();
            for (int i = 0; i < workers; i++) {
                perWorker.put(i, 0);
            }
            for (int w : workerOfEach) {
                perWorker.merge(w, 1, Integer::sum);
            }
            return new Spread(shape, connections, perWorker);
        }

        @Override
        public void close() {
            for (Socket socket : open) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // closing a probe connection: nothing to save
                }
            }
        }
    }

    /** The worker that answers {@code GET /pid} on this connection, as this probe's key says. */
    int askWorker(Socket socket) throws IOException {
        return worker(askPidBody(socket));
    }

    /** The worker a {@code /pid} body names, as this probe's key says. */
    private int worker(String body) throws IOException {
        String[] fields = body.trim().split("\\s+");
        try {
            if (key == Key.PID) {
                long pid = Long.parseLong(fields[0]);
                synchronized (indexByPid) {
                    return indexByPid.computeIfAbsent(pid, p -> indexByPid.size());
                }
            }
            if (fields.length != 2) {
                throw new IOException("unexpected /pid body: '" + body.trim() + "'");
            }
            return Integer.parseInt(fields[1]);
        } catch (NumberFormatException e) {
            throw new IOException("unexpected /pid body: '" + body.trim() + "'", e);
        }
    }

    /** Sends {@code GET /pid} and returns the body ("{pid} {index}" from m0serve). */
    static String askPidBody(Socket socket) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(PID_REQUEST);
        out.flush();
        return readResponseBody(socket.getInputStream());
    }

    /** Sends {@code GET /pid} to m0serve and returns the worker index from the body "{pid} {index}". */
    static int askPid(Socket socket) throws IOException {
        String body = askPidBody(socket);
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
