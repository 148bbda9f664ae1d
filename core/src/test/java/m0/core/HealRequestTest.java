package m0.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@link Heal}: when a request stands and when it is over. */
class HealRequestTest {

    @Test
    void aHealAskedWithNothingInFlightIsOverAtOnce() {
        Fixture f = new Fixture(2).started();
        Heal<String> heal = new Heal<>(f.page, f.channel, 1, 2);
        heal.ask(); // a replacement's start, say: nothing was left in flight
        assertNull(heal.atEagain());
        assertFalse(heal.requested(), "nothing to heal: no request stands");
        assertEquals(0, f.pending(1));
    }

    @Test
    void aRequestStandsWhileAHandOffToTheIndexIsUnderWay() {
        Fixture f = new Fixture(3).started();
        f.midHandOff(0, 1); // w0's raise against w1, its datagram not queued yet
        f.put(PageLayout.countsWord(1), Counts.requestHeal(f.get(PageLayout.countsWord(1))));
        Heal<String> heal = new Heal<>(f.page, f.channel, 1, 3);
        assertTrue(heal.due(), "the reap's request, read off the counts");
        assertNull(heal.atEagain());
        assertTrue(heal.requested(), "w0's hand-off is under way: nothing to take off, not complete yet");
        assertEquals(1, f.pending(1), "the live raise stays counted");
        assertTrue(Counts.healRequested(f.get(PageLayout.countsWord(1))));
        f.landed(0, 1, "c");
        assertEquals("c", f.channel.receive(1));
        f.put(PageLayout.countsWord(1), f.get(PageLayout.countsWord(1)) + Counts.RECEIPT);
        assertNull(heal.atEagain());
        assertFalse(heal.requested(), "no sender names w1 now: complete");
        assertFalse(Counts.healRequested(f.get(PageLayout.countsWord(1))), "the request is cleared");
        assertEquals(1, f.pending(1), "the receipt stays until its retire");
        assertEquals(1, f.taken(1));
    }
}
