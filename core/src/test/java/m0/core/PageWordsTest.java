package m0.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Where each word of a line lies (inside its own line, one word each), which indices an AFFINE
 * word can name, the page size round trip for every worker count, and the bounds of a
 * {@link ByteBufferPage} and what an {@link AtomicLongArrayPage} prints.
 */
class PageWordsTest {

    @Test
    void eachWordOfALineIsItsOwnAndInsideTheLine() {
        for (int i = 0; i < 3; i++) {
            int line = PageLayout.lineOf(i);
            int[] words = {PageLayout.stateWord(i), PageLayout.affineWord(i), PageLayout.countsWord(i),
                PageLayout.sendingWord(i), PageLayout.busyWord(i), PageLayout.sentWord(i),
                PageLayout.receivedWord(i), PageLayout.forwardedWord(i)};
            Set<Integer> seen = new HashSet<>();
            for (int k = 0; k < words.length; k++) {
                assertEquals(line + k, words[k], "worker " + i + ", word " + k + " of its line");
                assertTrue(seen.add(words[k]));
            }
        }
    }

    @Test
    void anAffineWordNamesTheFirst64WorkersOnly() {
        assertEquals(1L, PageLayout.affineBit(0));
        assertEquals(1L << 63, PageLayout.affineBit(63));
        assertEquals(0L, PageLayout.affineBit(64), "not bit 0 again: worker 64 is never named");
        assertEquals(0L, PageLayout.affineBit(100));
    }

    @Test
    void everyPageSizeNamesItsWorkerCountAndNoOtherSizeNamesOne() {
        for (int n = 1; n <= PageLayout.MAX_WORKERS; n++) {
            int words = PageLayout.slots(n);
            assertEquals(n, PageLayout.workersOf(words), n + " workers");
            assertEquals(-1, PageLayout.workersOf(words + 1), words + 1 + " words");
        }
    }

    @Test
    void aByteBufferPageReadsEveryWordOfItsOwnAndNoneBeyond() {
        ByteBuffer buffer = ByteBuffer.allocateDirect(128); // room for 16 words; the page holds 7
        Page page = new ByteBufferPage(buffer, 8, 7);
        page.setVolatile(0, 11);
        page.setVolatile(6, 17);
        assertEquals(11, page.getVolatile(0));
        assertEquals(17, page.getVolatile(6));
        assertThrows(IndexOutOfBoundsException.class, () -> page.getVolatile(7), "the buffer goes on; the page does not");
        assertThrows(IndexOutOfBoundsException.class, () -> page.setVolatile(-1, 1));
        Page one = new ByteBufferPage(ByteBuffer.allocateDirect(8), 0, 1);
        one.setVolatile(0, 5);
        assertEquals(5, one.getVolatile(0), "a page of one word is a page");
        assertThrows(IllegalArgumentException.class, () -> new ByteBufferPage(ByteBuffer.allocateDirect(8), 0, 0));
    }

    @Test
    void anAtomicLongArrayPagePrintsItsWords() {
        AtomicLongArrayPage page = new AtomicLongArrayPage(3);
        page.setVolatile(1, 42);
        assertEquals("AtomicLongArrayPage[0, 42, 0]", page.toString());
        assertFalse(page.toString().isEmpty());
    }
}
