package m0.server.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A body whose writes gather ({@link ExchangeApp#gathersWrites}, the JDK's API under --main):
 * after the first write, writes wait in the buffer until a flush, a full buffer or the end, and
 * a full buffer reaches the loop as one chunk, where each 16 KiB write was a chunk of its own.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class GatheredBodyTest {

    private PipedExchange exchange(boolean gathers) {
        return new PipedExchange(Request.of("GET", "/", new byte[0]), () -> { }, null, gathers);
    }

    /** Everything the loop can take now, as a string. */
    private static String take(PipedExchange x) {
        HeldBytes out = new HeldBytes(null);
        x.moveTo(out, 1 << 20);
        String s = new String(out.bytes, out.rd, out.size(), StandardCharsets.ISO_8859_1);
        out.holdNothing();
        return s;
    }

    @Test
    void smallWritesAfterTheFirstWaitForAFlushThenGoAsOneChunk() throws IOException {
        PipedExchange x = exchange(true);
        x.sendHead(200, Exchange.CHUNKED);
        OutputStream body = x.body();
        body.write("first".getBytes(StandardCharsets.ISO_8859_1));
        assertEquals("5\r\nfirst\r\n", take(x), "a body's first write goes as written");
        body.write("ab".getBytes(StandardCharsets.ISO_8859_1));
        body.write('c');
        assertEquals("", take(x), "later writes wait for a flush, as under the JDK's server");
        body.flush();
        assertEquals("3\r\nabc\r\n", take(x), "a flush sends what gathered, one chunk");
        body.write("de".getBytes(StandardCharsets.ISO_8859_1));
        x.finish();
        assertEquals("2\r\nde\r\n0\r\n\r\n", take(x), "the end sends what gathered, then the last chunk");
    }

    @Test
    void withoutGatheringEachWriteGoesAsWritten() throws IOException {
        PipedExchange x = exchange(false);
        x.sendHead(200, Exchange.CHUNKED);
        x.body().write("first".getBytes(StandardCharsets.ISO_8859_1));
        x.body().write("ab".getBytes(StandardCharsets.ISO_8859_1));
        assertEquals("5\r\nfirst\r\n2\r\nab\r\n", take(x), "an App's stream is written as produced");
    }

    @Test
    void aFixedLengthBodyIsCheckedAtEachWriteAndSentWholeAtTheEnd() throws IOException {
        PipedExchange x = exchange(true);
        x.sendHead(200, 6);
        x.body().write("ab".getBytes(StandardCharsets.ISO_8859_1));
        x.body().write("cd".getBytes(StandardCharsets.ISO_8859_1));
        assertThrows(IOException.class, () -> x.body().write("efg".getBytes(StandardCharsets.ISO_8859_1)),
                "a write past the length fails at the write, not at the flush");
        x.body().write("ef".getBytes(StandardCharsets.ISO_8859_1));
        x.finish();
        assertEquals("abcdef", take(x));
        assertFalse(x.broken());
    }

    @Test
    void sixtyFourSixteenKibWritesReachTheLoopAsSixteenLentChunks() throws Exception {
        byte[] mib = new byte[1 << 20];
        new Random(7).nextBytes(mib);
        PipedExchange x = exchange(true);
        x.sendHead(200, Exchange.CHUNKED);
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            try (OutputStream body = x.body()) {
                for (int at = 0; at < mib.length; at += 16 * 1024) {
                    body.write(mib, at, 16 * 1024);
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        HeldBytes out = new HeldBytes(null);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        boolean complete = false;
        while (!complete) {
            assertTrue(System.nanoTime() - until < 0, "the body never completed");
            complete = x.moveTo(out, 256 * 1024); // as the loop takes; polled, bounded
            wire.write(out.bytes, out.rd, out.size());
            out.holdNothing();
            Thread.onSpinWait();
        }
        writer.get(10, TimeUnit.SECONDS);
        byte[] got = dechunk(wire.toByteArray());
        assertArrayEquals(mib, got);
        // The first write as written, then 15 full buffers of 64 KiB and one of 48 KiB at the end.
        assertEquals(1 + 16, chunks, "chunks on the wire");
    }

    private int chunks;

    /** The body of a chunked message, counting its chunks. */
    private byte[] dechunk(byte[] wire) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        int at = 0;
        while (true) {
            int eol = at;
            while (wire[eol] != '\r') {
                eol++;
            }
            int size = Integer.parseInt(new String(wire, at, eol - at, StandardCharsets.ISO_8859_1), 16);
            at = eol + 2;
            if (size == 0) {
                assertEquals(at + 2, wire.length, "nothing after the last chunk");
                return body.toByteArray();
            }
            chunks++;
            body.write(wire, at, size);
            at += size;
            assertEquals('\r', wire[at]);
            assertEquals('\n', wire[at + 1]);
            at += 2;
        }
    }
}
