package m0.server.jdkhttp;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Plays one {@link ConformanceCorpus.Case} over one socket to 127.0.0.1 and parses what comes
 * back, exactly as sent: status line, headers in order with repeats, interim 1xx, bodies framed
 * by the request's method, the status, Transfer-Encoding, Content-Length or the close.
 *
 * <p>It never hangs: every read is bounded by {@link #READ_MILLIS} and by the case's deadline,
 * and writes run on a helper thread so a server that stops reading cannot block the caller (the
 * socket's close in the end unblocks the write).
 */
final class RawHttpClient {

    static final int READ_MILLIS = 2_000;
    static final int CONTINUE_MILLIS = 1_000;
    /** How long a connection must stay silent after the last response to count as kept open. */
    static final int PROBE_MILLIS = 300;
    static final int CASE_MILLIS = 10_000;

    /** One response as read; {@code end} is complete, eof (closed or reset early) or timeout. */
    record RawResponse(String statusLine, List<Map.Entry<String, String>> headers, String framing,
                       byte[] body, String end, List<RawResponse> interim) {
        int status() {
            return statusOf(statusLine);
        }
    }

    /** The responses in order, and what the connection did after the last: closed, open or extra bytes. */
    record Result(List<RawResponse> responses, String after) {
    }

    private record Head(String statusLine, List<Map.Entry<String, String>> headers) {
        int status() {
            return statusOf(statusLine);
        }

        String last(String name) {
            String v = null;
            for (Map.Entry<String, String> h : headers) {
                if (h.getKey().equalsIgnoreCase(name)) {
                    v = h.getValue();
                }
            }
            return v;
        }
    }

    /** The code of "HTTP/1.1 200 OK"; 0 when there is none. */
    static int statusOf(String statusLine) {
        String[] parts = statusLine.split(" ", 3);
        try {
            return parts.length >= 2 ? Integer.parseInt(parts[1]) : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Thrown by a read when the server closed (FIN or RST: which of the two is timing, not behaviour). */
    private static final class Eof extends IOException {
        Eof() {
            super("closed");
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final long deadline;
    private final ExecutorService writer;
    private byte[] buf = new byte[16 << 10];
    private int start;
    private int end;

    private RawHttpClient(int port, long deadline) throws IOException {
        this.deadline = deadline;
        socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), READ_MILLIS);
        socket.setTcpNoDelay(true);
        in = socket.getInputStream();
        out = socket.getOutputStream();
        writer = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "raw-http-writer");
            t.setDaemon(true);
            return t;
        });
    }

    static Result run(int port, ConformanceCorpus.Case c) throws IOException {
        RawHttpClient client = new RawHttpClient(port, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CASE_MILLIS));
        try {
            return client.play(c);
        } finally {
            client.socket.close();
            client.writer.shutdownNow();
        }
    }

    private Result play(ConformanceCorpus.Case c) throws IOException {
        List<RawResponse> responses = new ArrayList<>();
        List<RawResponse> interim = new ArrayList<>();
        Head early = null; // a final head that came while the client waited for 100 Continue
        boolean sending = true;
        int next = 0;
        for (ConformanceCorpus.Step step : c.steps()) {
            if (step instanceof ConformanceCorpus.Send s) {
                sending = sending && write(s.bytes());
            } else if (step instanceof ConformanceCorpus.Pause p) {
                sleep(p.millis());
            } else if (step instanceof ConformanceCorpus.AwaitContinue) {
                Head h;
                try {
                    h = readHead(CONTINUE_MILLIS);
                } catch (SocketTimeoutException e) {
                    continue; // RFC 9110 10.1.1: a client need not wait forever; send the body
                } catch (Eof e) {
                    responses.add(closedEarly());
                    return new Result(responses, "closed");
                }
                if (isInterim(h.status())) {
                    interim.add(new RawResponse(h.statusLine(), h.headers(), "none", new byte[0], "complete", List.of()));
                } else {
                    early = h;
                    sending = false; // the server decided without the body: do not send it
                }
            } else if (step instanceof ConformanceCorpus.AwaitResponse) {
                RawResponse r = readResponse(c.methods().get(next++), early, interim);
                early = null;
                interim = new ArrayList<>();
                responses.add(r);
                if (!r.end().equals("complete")) {
                    return new Result(responses, after(r));
                }
            }
        }
        while (next < c.methods().size()) {
            RawResponse r = readResponse(c.methods().get(next++), early, interim);
            early = null;
            interim = new ArrayList<>();
            responses.add(r);
            if (!r.end().equals("complete")) {
                return new Result(responses, after(r));
            }
        }
        RawResponse last = responses.isEmpty() ? null : responses.get(responses.size() - 1);
        return new Result(responses, last != null && last.framing().equals("close") ? "closed" : probe());
    }

    private String after(RawResponse r) throws IOException {
        return r.end().equals("eof") ? "closed" : probe();
    }

    private static boolean isInterim(int status) {
        return status >= 100 && status < 200 && status != 101;
    }

    /** The bytes on the writer thread, bounded by the deadline; false when they did not all go. */
    private boolean write(byte[] bytes) {
        Future<?> f = writer.submit(() -> {
            out.write(bytes);
            out.flush();
            return null;
        });
        try {
            f.get(remainingMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException | ExecutionException e) {
            return false; // the server stopped reading or closed: what it answered still gets read
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private RawResponse readResponse(String method, Head early, List<RawResponse> interim) throws IOException {
        List<RawResponse> interims = new ArrayList<>(interim);
        Head h = early;
        try {
            while (true) {
                if (h == null) {
                    h = readHead(READ_MILLIS);
                }
                if (!isInterim(h.status())) {
                    break;
                }
                interims.add(new RawResponse(h.statusLine(), h.headers(), "none", new byte[0], "complete", List.of()));
                h = null;
            }
        } catch (Eof e) {
            return closedEarly(interims);
        } catch (SocketTimeoutException e) {
            return new RawResponse("", List.of(), "none", leftover(), "timeout", interims);
        }
        return readBody(method, h, interims);
    }

    private RawResponse closedEarly() {
        return closedEarly(List.of());
    }

    private RawResponse closedEarly(List<RawResponse> interims) {
        return new RawResponse("", List.of(), "none", leftover(), "eof", interims);
    }

    private byte[] leftover() {
        byte[] b = Arrays.copyOfRange(buf, start, end);
        start = end;
        return b;
    }

    private RawResponse readBody(String method, Head h, List<RawResponse> interims) throws IOException {
        int status = h.status();
        String te = h.last("Transfer-Encoding");
        String cl = h.last("Content-Length");
        String framing;
        if (method.equals("HEAD") || status == 204 || status == 304) {
            framing = "none";
        } else if (te != null) {
            String[] codings = te.split(",");
            framing = codings[codings.length - 1].trim().equalsIgnoreCase("chunked") ? "chunked" : "close";
        } else if (cl != null) {
            framing = "length";
        } else {
            framing = "close";
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        String ended = "complete";
        try {
            switch (framing) {
                case "length" -> readExactly(Long.parseLong(cl.trim()), body);
                case "chunked" -> readChunked(body);
                case "close" -> readToEof(body);
                default -> { }
            }
        } catch (Eof e) {
            body.write(buf, start, end - start);
            start = end;
            ended = "eof";
        } catch (SocketTimeoutException e) {
            body.write(buf, start, end - start);
            start = end;
            ended = "timeout";
        } catch (NumberFormatException e) {
            ended = "bad-framing";
        }
        return new RawResponse(h.statusLine(), h.headers(), framing, body.toByteArray(), ended, interims);
    }

    private void readExactly(long n, ByteArrayOutputStream body) throws IOException {
        while (n > 0) {
            if (start == end) {
                fill(READ_MILLIS);
            }
            int take = (int) Math.min(n, end - start);
            body.write(buf, start, take);
            start += take;
            n -= take;
        }
    }

    /** Chunk sizes and extensions are consumed, trailers read and dropped; the data is the body. */
    private void readChunked(ByteArrayOutputStream body) throws IOException {
        while (true) {
            String line = readLine();
            int semi = line.indexOf(';');
            long size = Long.parseLong((semi >= 0 ? line.substring(0, semi) : line).trim(), 16);
            if (size == 0) {
                while (!readLine().isEmpty()) {
                    // trailer field: ignored
                }
                return;
            }
            readExactly(size, body);
            if (!readLine().isEmpty()) {
                throw new NumberFormatException("chunk data not followed by CRLF");
            }
        }
    }

    private void readToEof(ByteArrayOutputStream body) throws IOException {
        try {
            while (true) {
                body.write(buf, start, end - start);
                start = end;
                fill(READ_MILLIS);
            }
        } catch (Eof e) {
            // the close is the end of this body
        }
    }

    private String readLine() throws IOException {
        int at;
        while ((at = indexOf(CRLF, start)) < 0) {
            fill(READ_MILLIS);
        }
        String line = new String(buf, start, at - start, StandardCharsets.ISO_8859_1);
        start = at + 2;
        return line;
    }

    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] HEAD_END = {'\r', '\n', '\r', '\n'};

    /** Whole head in the buffer first, parsed after: a timeout mid-head loses nothing. */
    private Head readHead(int millis) throws IOException {
        int at;
        while ((at = indexOf(HEAD_END, start)) < 0) {
            fill(millis);
        }
        String[] lines = new String(buf, start, at - start, StandardCharsets.ISO_8859_1).split("\r\n", -1);
        start = at + 4;
        List<Map.Entry<String, String>> headers = new ArrayList<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon < 0) {
                headers.add(Map.entry("<malformed>", lines[i]));
            } else {
                headers.add(Map.entry(lines[i].substring(0, colon), lines[i].substring(colon + 1).trim()));
            }
        }
        return new Head(lines[0], headers);
    }

    private int indexOf(byte[] pattern, int from) {
        outer:
        for (int i = from; i + pattern.length <= end; i++) {
            for (int j = 0; j < pattern.length; j++) {
                if (buf[i + j] != pattern[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /** One bounded read into the buffer; Eof on FIN or RST, SocketTimeoutException past a bound. */
    private void fill(int millis) throws IOException {
        long left = remainingMillis();
        if (left <= 0) {
            throw new SocketTimeoutException("case deadline");
        }
        if (start > 0 && start == end) {
            start = end = 0;
        }
        if (end == buf.length) {
            if (start > buf.length / 2) {
                System.arraycopy(buf, start, buf, 0, end - start);
                end -= start;
                start = 0;
            } else {
                buf = Arrays.copyOf(buf, buf.length * 2);
            }
        }
        socket.setSoTimeout((int) Math.max(1, Math.min(millis, left)));
        int n;
        try {
            n = in.read(buf, end, buf.length - end);
        } catch (SocketTimeoutException e) {
            throw e;
        } catch (IOException e) {
            if (socket.isClosed()) {
                throw e;
            }
            throw new Eof(); // reset by peer
        }
        if (n < 0) {
            throw new Eof();
        }
        end += n;
    }

    /** After the last response: closed (EOF or RST), open (silent for PROBE_MILLIS), or bytes nobody asked for. */
    private String probe() throws IOException {
        if (start == end) {
            try {
                fill(PROBE_MILLIS);
            } catch (Eof e) {
                return "closed";
            } catch (SocketTimeoutException e) {
                return "open";
            }
        }
        byte[] extra = leftover();
        return "extra " + extra.length + " bytes: " + Normalizer.escape(extra, 80);
    }

    private long remainingMillis() {
        return TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
    }

    private static void sleep(int millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
