package m0.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class PageLayoutTest {

    @Test
    void slotsAreEightPlusEightPerWorkerAndAStartingWordPer64() {
        assertEquals(17, PageLayout.slots(1));
        assertEquals(25, PageLayout.slots(2));
        assertEquals(8 + 8 * 64 + 1, PageLayout.slots(64));
        assertEquals(8 + 8 * 65 + 2, PageLayout.slots(65));
        assertEquals(PageLayout.lineOf(65) + 1, PageLayout.startingWord(65, 64), "index 64: the region's second word");
        assertEquals(1L << 63, PageLayout.startingBit(63));
        assertEquals(1L, PageLayout.startingBit(64));
        for (int n : new int[] {1, 2, 5, 63, 64, 65, 128, 129, 4096}) {
            assertEquals(n, PageLayout.workersOf(PageLayout.slots(n)), n + " workers");
        }
        assertEquals(-1, PageLayout.workersOf(16), "8 + 8, without the STARTING word");
        assertEquals(-1, PageLayout.workersOf(7));
        assertThrows(IllegalArgumentException.class, () -> PageLayout.slots(0));
    }

    @Test
    void eachWorkerOwnsOneCacheLineAfterTheHeader() {
        assertEquals(8, PageLayout.stateWord(0));
        assertEquals(10, PageLayout.countsWord(0));
        assertEquals(11, PageLayout.sendingWord(0));
        assertEquals(12, PageLayout.busyWord(0));
        assertEquals(16, PageLayout.stateWord(1));
        assertEquals(64, PageLayout.LINE_WORDS * Long.BYTES, "one 64-byte cache line a worker");
        assertEquals(18, PageLayout.countsWord(1));
    }

    @Test
    void aFreshPageReadsNotStartedForEveryWorker() {
        Page page = AtomicLongArrayPage.forWorkers(3);
        for (int i = 0; i < 3; i++) {
            assertEquals(PageLayout.NOT_STARTED, page.getVolatile(PageLayout.stateWord(i)));
        }
    }

    @Test
    void stateNamesAreReadable() {
        assertEquals("NOT_STARTED", PageLayout.stateName(0));
        assertEquals("LEFT", PageLayout.stateName(-1));
        assertEquals("PARKED", PageLayout.stateName(-2));
        assertEquals("IN_PASS@5", PageLayout.stateName(5));
    }
}
