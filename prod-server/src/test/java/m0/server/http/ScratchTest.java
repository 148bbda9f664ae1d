package m0.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The loop's scratch (docs/adr/0036): sessions parse and encode in one shared array while they
 * hold bytes, and whatever order the loop calls them in, each sees its own bytes only.
 */
class ScratchTest {
    private static final int SIZE = 1024;

    /** A session of the loop whose scratches are {@code in} and {@code out}, inline, default limits. */
    private static Wire wire(Scratch in, Scratch out) {
        return new Wire(HttpConfig.defaults(), new TestApp(), false, in, out);
    }

    @Test
    void aRequestReadWholeAndAnsweredWholeHoldsNoArrayAfterwards() {
        Scratch in = new Scratch(SIZE);
        Scratch out = new Scratch(SIZE);
        Wire w = wire(in, out);
        w.feed("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
        assertFalse(w.session.borrowsScratch(false), "the whole request was parsed where it landed, and let go");
        assertTrue(w.session.borrowsScratch(true), "its response waits in the output scratch");
        assertTrue(out.lentTo(w.session.held(true)));
        String wire = w.drain();
        assertTrue(wire.startsWith("HTTP/1.1 200 ") && wire.endsWith("hello\n"), wire);
        assertFalse(w.session.borrowsScratch(true), "written whole: the output scratch is given back");
        assertFalse(out.lentTo(w.session.held(true)));
        assertNull(w.session.output());
    }

    @Test
    void anotherConnectionTakingTheScratchLeavesThePartOneHeldIntact() {
        Scratch in = new Scratch(SIZE);
        Scratch out = new Scratch(SIZE);
        Wire a = wire(in, out);
        Wire b = wire(in, out);
        a.feed("POST /echo HTTP/1.1\r\nHost: h\r\nContent-Le");
        assertTrue(a.session.borrowsScratch(false), "a partial head stays in the scratch");
        b.feed("POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nbbb");
        assertFalse(a.session.borrowsScratch(false), "b's read took the scratch: a's part moved to its own array");
        a.feed("ngth: 3\r\n\r\naaa");
        // Both responses are waiting; a's is half written when b's is encoded.
        ByteBuffer o = a.session.output();
        byte[] first = new byte[10];
        o.get(first);
        a.session.written(first.length);
        b.feed("GET /echo?again HTTP/1.1\r\nHost: h\r\n\r\n");
        String aWire = new String(first, StandardCharsets.ISO_8859_1) + a.drain();
        String bWire = b.drain();
        assertEquals(List.of("POST /echo [aaa]"), bodies(aWire));
        assertEquals(List.of("POST /echo [bbb]", "GET /echo?again []"), bodies(bWire));
    }

    @Test
    void aClosedConnectionLetsGoOfWhatItHeldWithoutCopying() {
        Scratch in = new Scratch(SIZE);
        Scratch out = new Scratch(SIZE);
        Wire a = wire(in, out);
        a.feed("GET / HTTP/1.1\r\nHost: h\r\n\r\nGET /next HTTP/1.1\r\nHo");
        assertTrue(a.session.borrowsScratch(false) && a.session.borrowsScratch(true), "a partial head and a response held");
        a.session.closed();
        assertFalse(a.session.borrowsScratch(false) || a.session.borrowsScratch(true));
        assertFalse(in.lentTo(a.session.held(false)) || out.lentTo(a.session.held(true)));
        assertNull(a.session.output(), "nothing is written after the close");
        Wire b = wire(in, out);
        b.feed("GET /b HTTP/1.1\r\nHost: h\r\n\r\n");
        assertEquals(List.of("GET /b"), bodies(b.drain()));
    }

    /**
     * Three connections of one loop, fed the same random reads and partial writes in a random
     * interleaving, once sharing small scratches (so every path that outgrows one, or is made to
     * give it up, runs) and once with arrays of their own: every connection's responses are the
     * same.
     */
    @Test
    void sharedScratchesGiveEveryConnectionTheResponsesItsOwnArraysGive() {
        Random rnd = new Random(20261202);
        int steals = 0;
        for (int round = 0; round < 300; round++) {
            int size = 16 + rnd.nextInt(200);
            List<byte[]> streams = new ArrayList<>();
            for (int c = 0; c < 3; c++) {
                streams.add(stream(rnd, c));
            }
            long seed = rnd.nextLong();
            Scratch in = new Scratch(size);
            Scratch out = new Scratch(size);
            Run shared = run(streams, seed, in, out);
            Run own = run(streams, seed, null, null);
            steals += shared.steals;
            for (int c = 0; c < 3; c++) {
                assertEquals(bodies(own.wires[c]), bodies(shared.wires[c]), "round " + round + " connection " + c);
                assertEquals(statuses(own.wires[c]), statuses(shared.wires[c]), "round " + round + " connection " + c);
            }
        }
        assertTrue(steals > 100, "the scratches changed hands while held: " + steals);
    }

    private record Run(String[] wires, int steals) {
    }

    private static Run run(List<byte[]> streams, long seed, Scratch in, Scratch out) {
        Random rnd = new Random(seed);
        Wire[] w = new Wire[streams.size()];
        StringBuilder[] wire = new StringBuilder[w.length];
        int[] at = new int[w.length];
        for (int c = 0; c < w.length; c++) {
            w[c] = wire(in, out);
            wire[c] = new StringBuilder();
        }
        int steals = 0;
        for (int step = 0; step < 400; step++) {
            int c = rnd.nextInt(w.length);
            boolean read = rnd.nextBoolean();
            int n = 1 + rnd.nextInt(90);
            boolean[][] held = holders(w);
            if (read && at[c] < streams.get(c).length && w[c].session.wantsInput()) {
                int k = Math.min(n, streams.get(c).length - at[c]);
                byte[] part = new byte[k];
                System.arraycopy(streams.get(c), at[c], part, 0, k);
                at[c] += k;
                w[c].feed(part);
            } else if (!read) {
                ByteBuffer o = w[c].session.output();
                if (o != null) {
                    byte[] chunk = new byte[Math.min(n, o.remaining())];
                    o.get(chunk);
                    wire[c].append(new String(chunk, StandardCharsets.ISO_8859_1));
                    w[c].session.written(chunk.length);
                }
            }
            boolean[][] now = holders(w);
            for (int d = 0; d < w.length; d++) {
                for (int k = 0; k < 2; k++) {
                    if (d != c && held[d][k] && !now[d][k]) {
                        steals++; // only c ran: it took the scratch d held, and d copied its bytes out
                    }
                }
            }
        }
        String[] wires = new String[w.length];
        for (int c = 0; c < w.length; c++) {
            if (at[c] < streams.get(c).length) {
                byte[] rest = new byte[streams.get(c).length - at[c]];
                System.arraycopy(streams.get(c), at[c], rest, 0, rest.length);
                w[c].feed(rest);
            }
            wire[c].append(w[c].drain());
            wires[c] = wire[c].toString();
        }
        return new Run(wires, steals);
    }

    /** Per connection: does its parser, and its output, hold a scratch now. */
    private static boolean[][] holders(Wire[] w) {
        boolean[][] h = new boolean[w.length][2];
        for (int d = 0; d < w.length; d++) {
            h[d][0] = w[d].session.borrowsScratch(false);
            h[d][1] = w[d].session.borrowsScratch(true);
        }
        return h;
    }

    /** A connection's requests: GETs and POSTs with bodies (by length or chunked) that name it. */
    private static byte[] stream(Random rnd, int c) {
        StringBuilder s = new StringBuilder();
        for (int i = 0, n = 1 + rnd.nextInt(5); i < n; i++) {
            String body = "c" + c + "r" + i + "x".repeat(rnd.nextInt(300));
            switch (rnd.nextInt(3)) {
                case 0 -> s.append("GET /c").append(c).append("/").append(i).append(" HTTP/1.1\r\nHost: h\r\n")
                        .append("X-Pad: ").append("p".repeat(rnd.nextInt(400))).append("\r\n\r\n");
                case 1 -> s.append("POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: ").append(body.length())
                        .append("\r\n\r\n").append(body);
                default -> s.append("POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n")
                        .append(Integer.toHexString(body.length())).append("\r\n").append(body).append("\r\n0\r\n\r\n");
            }
        }
        return s.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    private static List<String> bodies(String wire) {
        List<String> out = new ArrayList<>();
        for (Wire.Resp r : Wire.parse(wire)) {
            out.add(r.body());
        }
        return out;
    }

    private static List<Integer> statuses(String wire) {
        List<Integer> out = new ArrayList<>();
        for (Wire.Resp r : Wire.parse(wire)) {
            out.add(r.status());
        }
        return out;
    }
}
