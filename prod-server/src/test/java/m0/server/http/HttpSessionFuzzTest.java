package m0.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Seeded random streams (any split gives the same answers; garbage never throws) and a Jazzer
 * {@code @FuzzTest} over any byte stream, split and interleaving: its regression corpus under
 * src/test/resources/m0/server/http/HttpSessionFuzzTestInputs runs in every {@code mvn test};
 * {@code JAZZER_FUZZ=1 mvn test -Dtest=HttpSessionFuzzTest#anyStream} fuzzes.
 */
class HttpSessionFuzzTest {
    private static final String[] TOKENS = {"GET", "POST", "HEAD", "PUT", "OPTIONS", "X", " ", "/", "HTTP/1.1",
        "HTTP/1.0", "\r\n", "\n", "\r", ":", "Content-Length: ", "Transfer-Encoding: chunked", "0", "5", "ff",
        "Connection: close", "Host: h", ";ext=1", "\t", "\u0000", "\u00ff", "abc", "\r\n\r\n"};

    @Test
    void randomValidStreamsGiveTheSameResponsesUnderRandomSplits() {
        Random rnd = new Random(20261130);
        for (int round = 0; round < 200; round++) {
            StringBuilder stream = new StringBuilder();
            List<String> expected = new ArrayList<>();
            int n = 1 + rnd.nextInt(6);
            for (int i = 0; i < n; i++) {
                String body = "b".repeat(rnd.nextInt(3)) + i + "x".repeat(rnd.nextInt(40));
                switch (rnd.nextInt(4)) {
                    case 0 -> {
                        stream.append("GET /r").append(i).append(" HTTP/1.1\r\nHost: h\r\n\r\n");
                        expected.add("GET /r" + i);
                    }
                    case 1 -> {
                        stream.append("POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: ").append(body.length())
                                .append("\r\n\r\n").append(body);
                        expected.add("POST /echo [" + body + "]");
                    }
                    case 2 -> {
                        stream.append("POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n");
                        int p = 0;
                        while (p < body.length()) {
                            int k = Math.min(body.length() - p, 1 + rnd.nextInt(9));
                            stream.append(Integer.toHexString(k)).append(rnd.nextBoolean() ? ";e=v" : "").append("\r\n")
                                    .append(body, p, p + k).append("\r\n");
                            p += k;
                        }
                        stream.append("0\r\n").append(rnd.nextBoolean() ? "T: x\r\n" : "").append("\r\n");
                        expected.add("POST /echo [" + body + "]");
                    }
                    default -> {
                        stream.append("HEAD /h").append(i).append(" HTTP/1.1\r\nHost: h\r\n\r\n");
                        expected.add(""); // no body on the wire
                    }
                }
            }
            byte[] bytes = stream.toString().getBytes(StandardCharsets.ISO_8859_1);
            Wire w = Wire.of(new TestApp());
            int p = 0;
            StringBuilder wire = new StringBuilder();
            while (p < bytes.length) {
                int k = Math.min(bytes.length - p, 1 + rnd.nextInt(25));
                w.feed(Arrays.copyOfRange(bytes, p, p + k));
                p += k;
                if (rnd.nextBoolean()) wire.append(w.drain());
            }
            wire.append(w.drain());
            List<String> got = bodies(wire.toString(), expected);
            assertEquals(expected, got, "round " + round);
            assertTrue(w.session.idle());
        }
    }

    /** Response bodies in order; a HEAD answer (expected "") is read without a body. */
    private static List<String> bodies(String wire, List<String> expected) {
        List<String> out = new ArrayList<>();
        int p = 0;
        for (String e : expected) {
            int end = wire.indexOf("\r\n\r\n", p);
            if (end < 0) break;
            String head = wire.substring(p, end + 2);
            p = end + 4;
            int cl = head.indexOf("Content-Length: ");
            int len = Integer.parseInt(head.substring(cl + 16, head.indexOf("\r\n", cl)));
            if (e.isEmpty()) {
                out.add(""); // HEAD: the length of a GET, no bytes
            } else {
                out.add(wire.substring(p, Math.min(wire.length(), p + len)));
                p += len;
            }
        }
        assertEquals(wire.length(), p, "nothing extra on the wire");
        return out;
    }

    @Test
    void garbageNeverThrowsAndEndsInAnErrorOrSilence() {
        Random rnd = new Random(5);
        HttpConfig small = new HttpConfig(256, 64, 5_000_000_000L, 10_000_000_000L);
        int errors = 0;
        for (int round = 0; round < 3000; round++) {
            StringBuilder sb = new StringBuilder();
            int n = rnd.nextInt(30);
            for (int i = 0; i < n; i++) {
                sb.append(rnd.nextInt(6) == 0 ? String.valueOf((char) rnd.nextInt(256)) : TOKENS[rnd.nextInt(TOKENS.length)]);
            }
            byte[] bytes = sb.toString().getBytes(StandardCharsets.ISO_8859_1);
            Wire w = new Wire(small, new TestApp(), rnd.nextBoolean());
            int p = 0;
            while (p < bytes.length) {
                int k = Math.min(bytes.length - p, 1 + rnd.nextInt(8));
                w.feed(Arrays.copyOfRange(bytes, p, p + k));
                p += k;
            }
            if (w.pool != null) {
                for (int i = 0; i < w.pool.submitted(); i++) w.pool.run(i);
                w.session.pollCompletions(w.now);
            }
            w.session.onEof(w.now);
            String out = w.drain();
            for (Wire.Resp r : Wire.parse(out)) {
                int s = r.status();
                assertTrue(s == 200 || s == 400 || s == 413 || s == 431 || s == 100, "status " + s + " for " + sb);
                if (s >= 400) {
                    errors++;
                    assertEquals("close", r.header("Connection"));
                }
            }
            assertTrue(w.session.closeAfterFlush(), "EOF ends every session");
            assertTrue(w.session.output() == null);
        }
        assertTrue(errors > 500, "the garbage was mostly rejected: " + errors);
    }

    // ---- coverage-guided: any stream, any split into reads, any interleaving of the loop's calls ----

    private static final int MAX_HEAD = 256;
    private static final int MAX_READ = 64;
    private static final Set<Integer> STATUSES = Set.of(100, 200, 204, 400, 408, 413, 431, 500, 501, 503);
    /** Statuses only the session makes up (never the app below): the connection's last answer. */
    private static final Set<Integer> SESSION_ERRORS = Set.of(400, 408, 413, 431, 501);
    private static final byte[] SEED = ("GET / HTTP/1.1\r\nHost: h\r\n\r\nPOST /block HTTP/1.1\r\nHost: h\r\n"
            + "Transfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n3;x\r\nabc\r\n0\r\nT: 1\r\n\r\n"
            + "HEAD /throw HTTP/1.0\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nab").getBytes(StandardCharsets.ISO_8859_1);

    /** HEAD → 204 (bodyless, so the wire parses without knowing the method); /block runs on the pool. */
    private static final class FuzzApp implements App {
        @Override
        public boolean blocking(Request request) {
            return request.path().startsWith("/block");
        }

        @Override
        public Response handle(Request request) {
            if (request.method().equals("HEAD")) return Response.status(204);
            if (request.path().equals("/throw")) throw new IllegalStateException("app bug");
            if (request.path().equals("/null")) return null;
            return Response.text(200, request.method() + " " + request.target() + " " + request.body().length);
        }
    }

    /**
     * Drives one session the way the worker's loop does, with the fuzzer choosing every read's
     * bytes and size, partial writes, pool completions (in any order, or a full pool) and clock
     * jumps. Holds: nothing throws; the loop reads only while the session wants input and then
     * buffered input stays under the header limit plus one read; what was written parses as
     * well-formed responses whose errors close the connection and come last; EOF ends it.
     */
    @FuzzTest(maxDuration = "10m")
    void anyStream(FuzzedDataProvider data) {
        HttpConfig config = new HttpConfig(MAX_HEAD, 128, 5_000_000_000L, 10_000_000_000L, 3_000_000_000L);
        Wire w = new Wire(config, new FuzzApp(), data.consumeBoolean());
        byte[] seed = data.consumeBoolean() ? SEED : new byte[0];
        int seedAt = 0;
        StringBuilder wire = new StringBuilder();
        int steps = 0;
        boolean cut = false;
        while (data.remainingBytes() > 0 && steps++ < 200) {
            switch (data.consumeInt(0, 7)) {
                case 0, 1, 2, 3 -> {
                    if (!w.session.wantsInput()) break; // the loop does not read such a session
                    int n = data.consumeInt(1, MAX_READ);
                    byte[] read;
                    if (seedAt < seed.length && data.consumeBoolean()) {
                        read = Arrays.copyOfRange(seed, seedAt, Math.min(seed.length, seedAt + n));
                        seedAt += read.length;
                    } else {
                        read = data.consumeBytes(n);
                    }
                    if (read.length == 0) break;
                    w.feed(read);
                    assertTrue(w.session.bufferedInput() <= MAX_HEAD + MAX_READ, "buffered " + w.session.bufferedInput());
                }
                case 4 -> {
                    java.nio.ByteBuffer o = w.session.output();
                    if (o == null) break;
                    int n = data.consumeInt(0, o.remaining());
                    byte[] chunk = new byte[n];
                    o.get(chunk);
                    wire.append(new String(chunk, StandardCharsets.ISO_8859_1));
                    w.session.written(n);
                }
                case 5 -> {
                    if (w.pool == null || w.pool.submitted() == 0) break;
                    int i = data.consumeInt(0, w.pool.submitted() - 1);
                    if (w.pool.tasks.get(i) != null) w.pool.run(i);
                    w.session.pollCompletions(w.now);
                }
                case 6 -> {
                    w.now += data.consumeLong(0, 12_000_000_000L);
                    if (w.now - w.session.deadline() >= 0) w.session.onTimeout(w.now);
                    // A stalled flush given up on: the unwritten rest of a response is dropped.
                    cut = w.session.closeAfterFlush() && w.session.output() == null;
                }
                default -> {
                    if (w.pool != null) w.pool.reject = data.consumeBoolean();
                }
            }
            if (w.session.closeAfterFlush() && w.session.output() == null) break; // the loop closes it now
        }
        if (w.pool != null) {
            w.pool.reject = false;
            for (int i = 0; i < w.pool.submitted(); i++) {
                if (w.pool.tasks.get(i) != null) w.pool.run(i);
            }
            w.session.pollCompletions(w.now);
        }
        wire.append(w.drain());
        w.session.onEof(w.now);
        wire.append(w.drain());
        // The remaining pipelined requests answered after EOF may have been queued to the pool.
        for (int round = 0; w.pool != null && round < 64 && !w.session.closeAfterFlush(); round++) {
            for (int i = 0; i < w.pool.submitted(); i++) {
                if (w.pool.tasks.get(i) != null) w.pool.run(i);
            }
            w.session.pollCompletions(w.now);
            wire.append(w.drain());
        }
        assertTrue(w.session.closeAfterFlush(), "EOF ends every session");
        String all = wire.toString();
        if (cut && all.lastIndexOf("HTTP/1.1 ") > 0) all = all.substring(0, all.lastIndexOf("HTTP/1.1 ")); // cut mid-response
        else if (cut) all = "";
        List<Wire.Resp> rs = Wire.parse(all);
        for (int i = 0; i < rs.size(); i++) {
            Wire.Resp r = rs.get(i);
            assertTrue(STATUSES.contains(r.status()), "status " + r.status());
            if (SESSION_ERRORS.contains(r.status())) {
                assertEquals("close", r.header("Connection"), "an error closes");
                assertEquals(rs.size() - 1, i, "nothing after an error");
            }
        }
    }
}
