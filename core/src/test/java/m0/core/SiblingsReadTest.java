package m0.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What {@link Siblings} reads off the page and what it answers: the scan order, the starting
 * marks, a pass's age, the pairing of a client with a worker. Each read stays inside the page
 * of its worker count (a bounds-checked page throws past its end).
 */
class SiblingsReadTest {

    private static final long T0 = Fixture.T0;

    private static Siblings siblings(Page page, int workers) {
        return new Siblings(page, new FakeClock(T0), workers);
    }

    private static void state(Page page, int i, long state) {
        page.setVolatile(PageLayout.stateWord(i), state);
    }

    private static void mark(Page page, int workers, int i) {
        int word = PageLayout.startingWord(workers, i);
        page.setVolatile(word, page.getVolatile(word) | PageLayout.startingBit(i));
    }

    @Test
    void theScanOfASelfVisitsEveryOtherIndexOnceAndNeverSelf() {
        for (int n = 2; n <= 6; n++) {
            Siblings s = siblings(AtomicLongArrayPage.forWorkers(n), n);
            for (int self = 0; self < n; self++) {
                for (int first = 0; first < n - 1; first++) {
                    boolean[] seen = new boolean[n];
                    for (int k = 0; k < n - 1; k++) {
                        int i = s.sibling(self, first, k);
                        assertNotEquals(self, i, "n " + n + " self " + self + " first " + first + " k " + k);
                        assertFalse(seen[i], "visited twice: " + i);
                        seen[i] = true;
                    }
                }
            }
        }
    }

    @Test
    void equalSiblingsTakeTurnsInScanOrderFromTheRotation() {
        Page page = AtomicLongArrayPage.forWorkers(4);
        for (int i = 0; i < 4; i++) {
            state(page, i, PageLayout.PARKED);
        }
        Siblings s = siblings(page, 4);
        List<Integer> chosen = new ArrayList<>();
        for (int k = 0; k < 6; k++) {
            chosen.add(s.leastLoadedLive(0, new boolean[4]));
        }
        // rotation 0..5: the scan starts at sibling rotation % 3 of w0, and equals go to the first
        assertEquals(List.of(1, 2, 3, 1, 2, 3), chosen);
    }

    @Test
    void theLeastLoadedWinsWhereverTheScanMeetsIt() {
        Page page = AtomicLongArrayPage.forWorkers(3);
        for (int i = 0; i < 3; i++) {
            state(page, i, PageLayout.PARKED);
        }
        page.setVolatile(PageLayout.countsWord(1), Counts.of(0, 0, 5));
        Siblings s = siblings(page, 3);
        // w2 excluded: rotation 0 scans w0 (load 0) then w1 (load 5); rotation 1, w1 then w0
        assertEquals(0, s.leastLoadedLive(2, new boolean[3]), "met first");
        assertEquals(0, s.leastLoadedLive(2, new boolean[3]), "met last");
        page.setVolatile(PageLayout.countsWord(0), Counts.of(0, 0, 7));
        assertEquals(1, s.leastLoadedLive(2, new boolean[3]), "met first");
        assertEquals(1, s.leastLoadedLive(2, new boolean[3]), "met last");
    }

    @Test
    void aSiblingInASlowPassIsChosenOnlyWhenNoOtherIsLive() {
        FakeClock clock = new FakeClock(T0);
        Page page = AtomicLongArrayPage.forWorkers(3);
        Siblings s = new Siblings(page, clock, 3);
        state(page, 2, PageLayout.PARKED);
        page.setVolatile(PageLayout.countsWord(2), Counts.of(0, 0, 9));
        state(page, 0, T0 - PageLayout.SLOW_PASS_NANOS - 1); // slow, and idle
        for (int k = 0; k < 2; k++) { // both scan orders: w0 first, then w2 first
            assertEquals(2, s.leastLoadedLive(1, new boolean[3]), "the busier but answering sibling");
        }
        boolean[] refused = new boolean[3];
        refused[2] = true;
        assertEquals(0, s.leastLoadedLive(1, refused), "the slow one, when it is the only one");
        // Both slow: the lighter, wherever it is met.
        state(page, 2, T0 - PageLayout.SLOW_PASS_NANOS - 1);
        for (int k = 0; k < 2; k++) {
            assertEquals(0, s.leastLoadedLive(1, new boolean[3]));
        }
    }

    @Test
    void onlyAPassOverTwoMillisecondsIsSlow() {
        assertFalse(Siblings.slowPass(T0, T0 + PageLayout.SLOW_PASS_NANOS), "exactly 2 ms: not over");
        assertTrue(Siblings.slowPass(T0, T0 + PageLayout.SLOW_PASS_NANOS + 1));
        assertFalse(Siblings.slowPass(PageLayout.PARKED, T0 + PageLayout.SLOW_PASS_NANOS + 1));
        assertFalse(Siblings.slowPass(PageLayout.NOT_STARTED, T0), "not started: in no pass at all");
    }

    @Test
    void aOneWorkerPageHasNobodyToForwardTo() {
        Page page = AtomicLongArrayPage.forWorkers(1);
        state(page, 0, PageLayout.PARKED);
        assertEquals(-1, siblings(page, 1).leastLoadedLive(0, new boolean[1]));
    }

    @Test
    void startingReadsOnlyTheIndexsOwnMark() {
        Page page = AtomicLongArrayPage.forWorkers(3);
        Siblings s = siblings(page, 3);
        assertFalse(s.starting(1), "a fresh page: nobody starting");
        mark(page, 3, 2);
        assertFalse(s.starting(1), "another index's mark");
        assertTrue(s.starting(2));
    }

    @Test
    void aWorkersOwnStartingMarkIsNeverItsSibling() {
        Page page = AtomicLongArrayPage.forWorkers(2);
        Siblings s = siblings(page, 2);
        mark(page, 2, 0); // w0 leaves before the supervisor saw it start; w1 is gone too
        state(page, 1, PageLayout.LEFT);
        assertFalse(s.anyLiveOrStarting(0));
        assertTrue(s.anyLiveOrStarting(1), "for w1, w0 is a starting sibling");
    }

    @Test
    void startingMarksPastTheFirst64IndicesAreReadInTheirOwnWord() {
        int n = 65;
        Page page = AtomicLongArrayPage.forWorkers(n);
        Siblings s = siblings(page, n);
        assertFalse(s.anyLiveOrStarting(64), "nobody live or starting");
        mark(page, n, 0);
        assertTrue(s.anyLiveOrStarting(64), "w64's own bit is bit 0 of the second word, not w0's");
        assertFalse(s.anyLiveOrStarting(0));
        mark(page, n, 64);
        assertTrue(s.anyLiveOrStarting(0));
    }

    @Test
    void aPageOf64WorkersIsReadNoFurtherThanItsOneStartingWord() {
        int n = 64;
        Page page = AtomicLongArrayPage.forWorkers(n); // throws on a word past its end
        Siblings s = siblings(page, n);
        assertFalse(s.anyLiveOrStarting(3));
        mark(page, n, 63);
        assertTrue(s.anyLiveOrStarting(3));
        for (int i = 0; i < n; i++) {
            state(page, i, i == 5 ? PageLayout.NOT_STARTED : PageLayout.PARKED);
            page.setVolatile(PageLayout.busyWord(i), 1);
        }
        assertTrue(s.everyLiveSiblingShows(0, 1), "w5 not started, w63 starting: neither is read");
    }

    @Test
    void everyLiveSiblingShowsReadsTheSiblingsAlone() {
        int n = 3;
        Page page = AtomicLongArrayPage.forWorkers(n); // the STARTING word follows the last line
        Siblings s = siblings(page, n);
        mark(page, n, 2);
        state(page, 1, PageLayout.PARKED);
        page.setVolatile(PageLayout.busyWord(1), 4);
        assertTrue(s.everyLiveSiblingShows(0, 4));
        assertFalse(s.everyLiveSiblingShows(0, 2));
    }

    @Test
    void pendingIsTheCountsPendingField() {
        Page page = AtomicLongArrayPage.forWorkers(2);
        page.setVolatile(PageLayout.countsWord(1), Counts.of(3, 1, 4));
        assertEquals(3, siblings(page, 2).pending(1));
    }

    @Test
    void aClientPairsOnlyWithOneOfTheFirst64Workers() {
        int n = 66;
        Page page = AtomicLongArrayPage.forWorkers(n);
        for (int i = 0; i < n; i++) {
            state(page, i, PageLayout.PARKED);
        }
        Siblings s = siblings(page, n);
        assertEquals(0, s.pairedWorker(5, 64), "rank 64 of 64 in range: w0; w64 and w65 are past it");
        assertEquals(63, s.pairedWorker(65, 63));
        for (int i = 0; i < 64; i++) {
            state(page, i, PageLayout.LEFT);
        }
        assertEquals(65, s.pairedWorker(65, 7), "none in range live: itself, not w64");
        assertEquals(64, s.pairedWorker(64, 7));
    }

    @Test
    void aStartingMarkNeverCountsAsALiveWorkerForPairing() {
        int n = 3;
        Page page = AtomicLongArrayPage.forWorkers(n);
        state(page, 0, PageLayout.PARKED);
        state(page, 1, PageLayout.PARKED);
        mark(page, n, 2); // w2 spawned, not started: its STARTING word follows the last line
        Siblings s = siblings(page, n);
        assertEquals(0, s.pairedWorker(1, 2), "rank 2 of two live: w0");
        assertEquals(1, s.pairedWorker(0, 3));
    }
}
