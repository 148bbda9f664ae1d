package m0.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;

/**
 * {@link Counts}: a word decodes to the fields it was built from over each field's whole signed
 * range, with or without the heal request, at any version; and every change moves the version
 * forward, so that a word seen twice has not changed in between (short of 4 096 changes).
 */
class CountsDecodeTest {

    private static final long[] PENDING_OR_TAKEN = {-(1L << 14), -(1L << 14) + 1, -3, -1, 0, 1, 2, 7, Counts.IN_FLIGHT_MAX};
    private static final long[] ACTIVE = {-(1L << 20), -5, -1, 0, 1, 3, Counts.ACTIVE_MAX};

    @Test
    void everyWordDecodesToTheFieldsItWasBuiltFrom() {
        for (long p : PENDING_OR_TAKEN) {
            for (long t : PENDING_OR_TAKEN) {
                for (long a : ACTIVE) {
                    for (long heal : new long[] {0, Counts.HEAL}) {
                        for (long version : new long[] {0, 1, 4095}) {
                            long w = Counts.of(p, t, a) + heal + version * Counts.VERSION_ONE;
                            String at = "p " + p + " t " + t + " a " + a + " heal " + heal + " v " + version;
                            assertEquals(t, Counts.taken(w), at);
                            assertEquals(p, Counts.pending(w), at);
                            assertEquals(a, Counts.active(w), at);
                            assertEquals(a + p, Counts.load(w), at);
                            assertEquals(p - t, Counts.inFlight(w), at);
                            assertEquals(heal != 0, Counts.healRequested(w), at);
                        }
                    }
                }
            }
        }
    }

    @Test
    void aSumOfDeltasDecodesToTheSumOfItsParts() {
        // A retire of 2 on top of a word that holds 1 taken: taken borrows from pending.
        long w = Counts.of(3, 1, 2) + Counts.retire(2) + Counts.activeBy(2);
        assertEquals(-1, Counts.taken(w));
        assertEquals(1, Counts.pending(w));
        assertEquals(4, Counts.active(w));
        assertEquals(5, Counts.load(w));
    }

    @Test
    void aHealRequestMovesTheVersionForwardLikeEveryOtherChange() {
        long w = Counts.requestHeal(Counts.of(1, 0, 2)); // a request already stands
        long before = w;
        // A second reap asks again, a raise and its take-back, and a third reap asks again: four
        // changes. The counts are as they were; the word must not be, or a heal that read it
        // before would take the orphans off from under them.
        w = Counts.requestHeal(w);
        w += Counts.RAISE;
        w += Counts.TAKE_BACK;
        w = Counts.requestHeal(w);
        assertEquals(Counts.pending(before), Counts.pending(w));
        assertNotEquals(before, w);
        assertEquals((before >>> 52) + 4, w >>> 52, "four changes, four steps of the version");
    }

    @Test
    void aCountsWordReadsAsItsFields() {
        assertEquals("active 2 pending 3 taken 1", Counts.toString(Counts.of(3, 1, 2)));
        assertEquals("active 0 pending 1 taken 0 heal", Counts.toString(Counts.requestHeal(Counts.of(1, 0))));
    }
}
