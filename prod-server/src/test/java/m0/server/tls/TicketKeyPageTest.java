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
}
