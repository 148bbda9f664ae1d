package m0.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * While a streamed body flows, its output keeps an array of its own instead of the loop's
 * scratch: a write that stopped short leaves its bytes there, and another connection that
 * borrows the scratch then copies nothing out (without it, those bytes are copied into a fresh
 * array at every borrow). The array goes once the body has ended and nothing is held.
 */
class StreamingOutputTest {

    private static final int SCRATCH = 64 * 1024;

    /** {@code h} holds {@code n} bytes of value 7 and has written none of them. */
    private static void hold(HeldBytes h, int n) {
        h.reserve(n);
        Arrays.fill(h.bytes, h.wr, h.wr + n, (byte) 7);
        h.wr += n;
    }

    @Test
    void aStreamingOutputLeftShortIsNotCopiedWhenAnotherConnectionBorrowsTheScratch() {
        Scratch scratch = new Scratch(SCRATCH);
        HeldBytes streaming = new HeldBytes(scratch);
        HeldBytes other = new HeldBytes(scratch);
        streaming.streaming(true);
        hold(streaming, 40_000);
        streaming.rd += 1_000; // the socket took 1000 bytes and would block
        byte[] before = streaming.bytes;
        assertFalse(streaming.borrowsScratch());
        hold(other, 100);
        assertTrue(other.borrowsScratch());
        assertSame(before, streaming.bytes, "the streaming output's bytes stayed where they were");
        assertEquals(39_000, streaming.size());
        streaming.rd = streaming.wr; // written at last
        streaming.holdNothing();
        hold(streaming, SCRATCH);
        assertSame(before, streaming.bytes, "the next batch goes into the same kept array");
        streaming.rd = streaming.wr;
        streaming.holdNothing();
        streaming.streaming(false);
        assertEquals(0, streaming.bytes.length, "the body has ended: no array is held");
    }

    @Test
    void withoutItTheBorrowCopiesTheBytesLeftInTheScratch() {
        Scratch scratch = new Scratch(SCRATCH);
        HeldBytes plain = new HeldBytes(scratch);
        HeldBytes other = new HeldBytes(scratch);
        hold(plain, 40_000);
        plain.rd += 1_000;
        assertTrue(plain.borrowsScratch());
        hold(other, 100);
        assertNotSame(scratch.bytes, plain.bytes, "the borrow copied the 39000 bytes into an array of their own");
        assertEquals(39_000, plain.size());
    }
}
