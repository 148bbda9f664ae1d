package m0.server.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The bytes a connection holds, in its loop's scratch while it can and in its own array when it must. */
class HeldBytesTest {
    private static final int SIZE = 64;

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String held(HeldBytes h) {
        return new String(h.bytes, h.rd, h.size(), StandardCharsets.ISO_8859_1);
    }

    @Test
    void bytesGoIntoTheScratchAndHoldingNothingGivesItBack() {
        Scratch s = new Scratch(SIZE);
        HeldBytes a = new HeldBytes(s);
        assertEquals(0, a.bytes.length, "holding nothing, it holds no array");
        a.put(ascii("GET / HTTP/1.1\r\n"));
        assertSame(s.bytes, a.bytes, "no array of its own for bytes that fit the scratch");
        assertTrue(a.borrowsScratch());
        assertTrue(s.lentTo(a));
        a.rd = a.wr; // all used
        a.holdNothing();
        assertFalse(a.borrowsScratch());
        assertFalse(s.lentTo(a), "the scratch is free for the next holder");
        assertEquals(0, a.bytes.length);
        assertNull(a.buffer());
        a.put(ascii("next"));
        assertSame(s.bytes, a.bytes, "the next bytes borrow it again");
    }

    @Test
    void lendingTheScratchToAnotherMakesTheHolderCopyWhatItStillHolds() {
        Scratch s = new Scratch(SIZE);
        HeldBytes a = new HeldBytes(s);
        HeldBytes b = new HeldBytes(s);
        a.put(ascii("xxPOST /a HTTP/1.1\r\nContent-Le"));
        a.rd += 2; // some used already: only [rd, wr) moves
        b.put(ascii("GET /b HTTP/1.1\r\n\r\n"));
        assertTrue(b.borrowsScratch() && s.lentTo(b));
        assertFalse(a.borrowsScratch(), "a moved out before b's bytes went in");
        assertNotSame(s.bytes, a.bytes);
        assertEquals("POST /a HTTP/1.1\r\nContent-Le", held(a), "a's bytes survive b's, which overwrote the scratch");
        assertEquals("GET /b HTTP/1.1\r\n\r\n", held(b));
        a.put(ascii("ngth: 0\r\n\r\n"));
        assertEquals("POST /a HTTP/1.1\r\nContent-Length: 0\r\n\r\n", held(a), "a goes on in its own array");
        assertTrue(b.borrowsScratch(), "and leaves b's scratch alone");
    }

    @Test
    void aHolderThatGaveItBackHasNothingToCopyWhenAnotherBorrows() {
        Scratch s = new Scratch(SIZE);
        HeldBytes a = new HeldBytes(s);
        HeldBytes b = new HeldBytes(s);
        a.put(ascii("abc"));
        a.rd = a.wr;
        a.holdNothing();
        b.put(ascii("def"));
        assertEquals(0, a.bytes.length, "a was not made to own an array for nothing");
        assertEquals("def", held(b));
    }

    @Test
    void bytesThatOutgrowTheScratchMoveToAnArrayOfTheirOwn() {
        Scratch s = new Scratch(SIZE);
        HeldBytes a = new HeldBytes(s);
        HeldBytes b = new HeldBytes(s);
        byte[] first = ascii("0123456789".repeat(5));
        a.put(first);
        a.rd += 10;
        byte[] more = ascii("abcdefghij".repeat(3));
        a.put(more);
        assertFalse(a.borrowsScratch());
        assertFalse(s.lentTo(a), "gave the scratch back on the way out");
        assertTrue(a.bytes.length >= HeldBytes.INITIAL);
        assertEquals("0123456789".repeat(4) + "abcdefghij".repeat(3), held(a));
        b.put(ascii("b"));
        assertEquals("0123456789".repeat(4) + "abcdefghij".repeat(3), held(a), "b's borrow does not touch a");
        byte[] big = new byte[SIZE + 1];
        HeldBytes c = new HeldBytes(s);
        c.put(big);
        assertFalse(c.borrowsScratch(), "more than the scratch holds never borrows it");
        assertTrue(b.borrowsScratch());
    }

    @Test
    void theBufferIsTheHeldBytesWhereverTheyLive() {
        Scratch s = new Scratch(SIZE);
        HeldBytes a = new HeldBytes(s);
        a.put(ascii("hello world"));
        a.rd = 6;
        ByteBuffer v = a.buffer();
        assertSame(s.view, v);
        assertEquals(6, v.position());
        assertEquals(11, v.limit());
        new HeldBytes(s).put(ascii("steal"));
        v = a.buffer();
        assertNotSame(s.view, v);
        byte[] got = new byte[v.remaining()];
        v.get(got);
        assertArrayEquals(ascii("world"), got);
    }

    @Test
    void withoutAScratchItGrowsCompactsAndShrinks() {
        HeldBytes a = new HeldBytes(null);
        assertEquals(HeldBytes.INITIAL, a.bytes.length);
        byte[] chunk = new byte[HeldBytes.INITIAL - 1];
        chunk[0] = 'x';
        a.put(chunk);
        a.rd = 1;
        byte[] array = a.bytes;
        a.put(new byte[1]);
        a.put(new byte[1]);
        assertSame(array, a.bytes, "what was used is compacted away before the array grows");
        assertEquals(0, a.rd);
        a.put(new byte[3 * HeldBytes.SHRINK_ABOVE]);
        assertTrue(a.bytes.length > HeldBytes.SHRINK_ABOVE);
        assertEquals(HeldBytes.INITIAL + 3 * HeldBytes.SHRINK_ABOVE, a.size());
        a.holdNothing();
        assertEquals(HeldBytes.INITIAL, a.bytes.length, "a big array is not kept while holding nothing");
        assertNull(a.buffer());
    }
}
