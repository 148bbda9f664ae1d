package m0.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Seeded random streams: any split gives the same answers; garbage never throws. */
class FuzzTest {
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
}
