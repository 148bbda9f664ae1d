package m0.server.tls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import m0.core.ByteBufferPage;
import org.junit.jupiter.api.Test;

/** The supervisor's ticket keys and their page (ADR 0073): rotation keeps the newest, the page carries them whole. */
class TicketKeyPageTest {

    private final SecureRandom random = new SecureRandom();

    private static TicketKeyPage page() {
        return new TicketKeyPage(new ByteBufferPage(ByteBuffer.allocateDirect(8 * TicketKeyPage.WORDS), 0,
                TicketKeyPage.WORDS));
    }

    @Test
    void aRotationPutsANewKeyFirstAndKeepsTheNewestPreviousOnes() {
        TicketKeys a = TicketKeys.fresh(random);
        TicketKeys b = a.rotated(random);
        TicketKeys c = b.rotated(random);
        TicketKeys d = c.rotated(random);
        assertEquals(1, a.size());
        assertEquals(2, b.size());
        assertArrayEquals(a.key(0), b.key(1));
        assertEquals(TicketKeys.KEPT, d.size());
        assertArrayEquals(c.key(0), d.key(1));
        assertArrayEquals(b.key(0), d.key(2)); // a's key is gone: its tickets expired with it
        assertNotEquals(ByteBuffer.wrap(c.key(0)), ByteBuffer.wrap(d.key(0)));
    }

    @Test
    void aKeyIsANameAnHmacKeyAndAnAesKey() {
        TicketKeys k = TicketKeys.fresh(random);
        byte[] all = k.key(0);
        assertEquals(48, all.length);
        assertArrayEquals(java.util.Arrays.copyOfRange(all, 0, 16), k.part(0, 0));
        assertArrayEquals(java.util.Arrays.copyOfRange(all, 16, 32), k.part(0, 1));
        assertArrayEquals(java.util.Arrays.copyOfRange(all, 32, 48), k.part(0, 2));
        assertThrows(IllegalArgumentException.class, () -> TicketKeys.of(java.util.List.of(new byte[47])));
    }

    @Test
    void aWorkerReadsWhatTheSupervisorPublishedWithItsGeneration() {
        TicketKeyPage page = page();
        assertTrue(page.read().isEmpty(), "nothing published: no keys");
        TicketKeys first = TicketKeys.fresh(random);
        page.publish(first);
        TicketKeyPage.Read r1 = page.read().orElseThrow();
        assertEquals(2, r1.generation());
        assertArrayEquals(first.key(0), r1.keys().key(0));
        TicketKeys second = first.rotated(random);
        page.publish(second);
        TicketKeyPage.Read r2 = page.read().orElseThrow();
        assertEquals(4, r2.generation());
        assertEquals(page.generation(), r2.generation());
        assertEquals(2, r2.keys().size());
        assertArrayEquals(second.key(0), r2.keys().key(0));
        assertArrayEquals(first.key(0), r2.keys().key(1));
    }

    @Test
    void aReaderThatOnlyMeetsAWriteInProgressGetsNothing() {
        ByteBuffer b = ByteBuffer.allocateDirect(8 * TicketKeyPage.WORDS);
        ByteBufferPage words = new ByteBufferPage(b, 0, TicketKeyPage.WORDS);
        TicketKeyPage page = new TicketKeyPage(words);
        page.publish(TicketKeys.fresh(random));
        words.setVolatile(0, 3); // odd: the supervisor is writing
        assertTrue(page.read().isEmpty(), "a half-written set is never applied");
    }

    @Test
    void aSmallerSetLeavesNoOldKeyBytesInTheSlotsPastIt() {
        ByteBufferPage words = new ByteBufferPage(ByteBuffer.allocateDirect(8 * TicketKeyPage.WORDS), 0, TicketKeyPage.WORDS);
        TicketKeyPage page = new TicketKeyPage(words);
        java.util.List<byte[]> eight = new java.util.ArrayList<>();
        for (int k = 0; k < TicketKeys.MAX; k++) {
            eight.add(TicketKeys.fresh(random).key(0));
        }
        page.publish(TicketKeys.of(eight));
        page.publish(TicketKeys.fresh(random));
        int firstFree = 2 + TicketKeys.KEY_BYTES / 8; // past key 0
        for (int w = firstFree; w < TicketKeyPage.WORDS; w++) {
            assertEquals(0, words.getVolatile(w), "word " + w + " still holds a retired key's bytes");
        }
        assertEquals(1, page.read().orElseThrow().keys().size());
    }

    /**
     * The seqlock's reader: a publish that lands while it copies the keys (after {@code afterReads}
     * of the reader's loads) makes a set half old, half new; the generation read again at the end
     * differs, so the reader copies again and returns the new set whole.
     */
    @Test
    void aWriteThatCrossesAReadIsReadAgainNeverTorn() {
        ByteBufferPage words = new ByteBufferPage(ByteBuffer.allocateDirect(8 * TicketKeyPage.WORDS), 0, TicketKeyPage.WORDS);
        TicketKeyPage writer = new TicketKeyPage(words);
        TicketKeys first = TicketKeys.fresh(random);
        TicketKeys second = TicketKeys.fresh(random);
        writer.publish(first);
        CrossingPage crossing = new CrossingPage(words, 5, () -> writer.publish(second), false);

        TicketKeyPage.Read r = new TicketKeyPage(crossing).read().orElseThrow();

        assertTrue(crossing.crossed > 0, "the write landed mid-read");
        assertEquals(4, r.generation(), "the set of the generation after the write");
        assertArrayEquals(second.key(0), r.keys().key(0), "the new set whole, not half of each");
    }

    /** A write that crosses every try: the reader gives up for now rather than return a torn set. */
    @Test
    void aReaderThatEveryWriteCrossesGetsNothingRatherThanATornSet() {
        ByteBufferPage words = new ByteBufferPage(ByteBuffer.allocateDirect(8 * TicketKeyPage.WORDS), 0, TicketKeyPage.WORDS);
        TicketKeyPage writer = new TicketKeyPage(words);
        writer.publish(TicketKeys.fresh(random));
        CrossingPage crossing = new CrossingPage(words, 5, () -> writer.publish(TicketKeys.fresh(random)), true);

        assertTrue(new TicketKeyPage(crossing).read().isEmpty(), "no set: every copy was torn");
        assertTrue(crossing.crossed > 1, "it tried again: " + crossing.crossed);
    }

    /**
     * A reader's view of {@code words} on which {@code write} (the supervisor's publish) runs after
     * the reader's {@code afterReads}-th load of a key word: once, or on every try when {@code always}.
     */
    private static final class CrossingPage implements m0.core.Page {
        private final m0.core.Page words;
        private final int afterReads;
        private final Runnable write;
        private final boolean always;
        private int keyReads;
        int crossed;

        CrossingPage(m0.core.Page words, int afterReads, Runnable write, boolean always) {
            this.words = words;
            this.afterReads = afterReads;
            this.write = write;
            this.always = always;
        }

        @Override
        public int words() {
            return words.words();
        }

        @Override
        public long getVolatile(int word) {
            long v = words.getVolatile(word);
            if (word == 0) {
                keyReads = 0; // a try begins (or ends) at the generation
            } else if (word >= 2 && ++keyReads == afterReads && (always || crossed == 0)) {
                crossed++;
                write.run();
            }
            return v;
        }

        @Override
        public void setVolatile(int word, long value) {
            throw new UnsupportedOperationException("a reader's view");
        }

        @Override
        public long getAndAdd(int word, long delta) {
            throw new UnsupportedOperationException("a reader's view");
        }

        @Override
        public boolean compareAndSet(int word, long expected, long value) {
            throw new UnsupportedOperationException("a reader's view");
        }
    }
}
