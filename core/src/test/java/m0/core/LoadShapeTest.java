package m0.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Share's gate (ADR 0041): when arrivals are worth balancing, judged once a window, with hysteresis. */
class LoadShapeTest {

    private static final long W = LoadShape.WINDOW_NANOS;

    /** Feeds {@code windows} windows of {@code shortPerWindow} short closes and {@code reusePerWindow} reuses. */
    private static final class Feed {
        final LoadShape shape;
        long now = 1_000;
        long shortCloses;
        long reuses;

        Feed(LoadShape shape) {
            this.shape = shape;
            shape.observe(now, 0, 0);
        }

        void windows(int windows, long shortPerWindow, long reusePerWindow) {
            for (int k = 0; k < windows; k++) {
                // Readings inside the window may enter keeping early (ADR 0044), never leave it.
                for (int q = 1; q < 4; q++) {
                    if (shape.observe(now + q * W / 4, shortCloses + q * shortPerWindow / 4,
                            reuses + q * reusePerWindow / 4)) {
                        assertTrue(shape.keeping(), "only an entry is judged inside a window");
                    }
                }
                now += W;
                shortCloses += shortPerWindow;
                reuses += reusePerWindow;
                shape.observe(now, shortCloses, reuses);
            }
        }
    }

    @Test
    void aColdStartBalances() {
        LoadShape shape = new LoadShape();
        assertFalse(shape.keeping());
        assertFalse(shape.observe(0, 0, 0));
        assertFalse(shape.keeping(), "no history: balance");
    }

    @Test
    void churnTurnsItToKeepingAtTheFirstWindowEndAndKeepAliveTurnsItBack() {
        Feed f = new Feed(new LoadShape());
        f.windows(1, 1_000, 0);
        assertTrue(f.shape.keeping(), "1 000 closes after one request each, no reuse: keep");
        f.windows(1, 1_000, 300);
        assertFalse(f.shape.keeping(), "30 % of arrivals reused: balance again");
        assertEquals(2, f.shape.switches());
    }

    @Test
    void churnKeepsAsSoonAsAWindowsWorthOfShortClosesIsIn() {
        LoadShape shape = new LoadShape();
        shape.observe(0, 0, 0);
        long ms = 1_000_000;
        assertFalse(shape.observe(4 * ms, LoadShape.KEEP_MIN_SHORT - 1, 0), "one short of the evidence");
        assertTrue(shape.observe(5 * ms, LoadShape.KEEP_MIN_SHORT, 0), "32 short closes in 5 ms: keep now");
        assertTrue(shape.keeping());
        // Leaving waits for a window's end, however much keep-alive arrives meanwhile.
        assertFalse(shape.observe(5 * ms + W / 2, LoadShape.KEEP_MIN_SHORT, 1_000));
        assertTrue(shape.keeping(), "left only at a window's end");
        assertTrue(shape.observe(5 * ms + W, LoadShape.KEEP_MIN_SHORT, 1_000));
        assertFalse(shape.keeping());
    }

    @Test
    void aBurstOfShortClosesWithReusesDoesNotKeepEarly() {
        LoadShape shape = new LoadShape();
        shape.observe(0, 0, 0);
        assertFalse(shape.observe(1_000_000, 100, 11), "11 reuses per 100: over the entry ratio");
        assertFalse(shape.keeping());
    }

    @Test
    void aTrickleOfShortClosesIsNotChurn() {
        Feed f = new Feed(new LoadShape());
        f.windows(8, LoadShape.KEEP_MIN_SHORT - 1, 0);
        assertFalse(f.shape.keeping(), "below 128 a second: a hand-off is cheap enough, balance");
    }

    @Test
    void anIdleWorkerStopsKeepingAtItsNextLookHoweverLateItComes() {
        Feed f = new Feed(new LoadShape());
        f.windows(2, 1_000, 0);
        assertTrue(f.shape.keeping());
        // Idle for 10 s, then a burst wakes it: the window it judges is the idle time.
        assertTrue(f.shape.observe(f.now + 10_000_000_000L, f.shortCloses + 100, f.reuses));
        assertFalse(f.shape.keeping(), "100 closes over 10 s is a trickle: balance the burst");
    }

    @Test
    void aLongWindowIsJudgedAsARateNotACount() {
        Feed f = new Feed(new LoadShape());
        // 40 closes over 4 windows' time: more than the 32 one window needs, a quarter of the rate.
        assertFalse(f.shape.observe(f.now + 4 * W, 40, 0));
        assertFalse(f.shape.keeping());
    }

    @Test
    void aLoadAtTheThresholdStaysInItsMode() {
        // Alternate windows just inside and just outside the entry ratio (1 reuse per 10 short
        // closes): it enters once and stays, since leaving needs 1 reuse per 4.
        Feed f = new Feed(new LoadShape());
        for (int k = 0; k < 10; k++) {
            f.windows(1, 1_000, 99);
            f.windows(1, 1_000, 101);
        }
        assertTrue(f.shape.keeping());
        assertEquals(1, f.shape.switches(), "no flapping at the threshold");
        // Its rate likewise: 20 short closes a window is under the entry rate and over half of it.
        f.windows(6, 20, 0);
        assertTrue(f.shape.keeping(), "half the entry rate or more: still keeping");
        f.windows(1, 15, 0);
        assertFalse(f.shape.keeping(), "under half: balance");
    }

    @Test
    void withoutHysteresisTheSameLoadFlaps() {
        // The mutant's thresholds (exit ratio = entry ratio): the test above would see it flap.
        Feed f = new Feed(new LoadShape(W, LoadShape.KEEP_MIN_SHORT, 10, 10));
        for (int k = 0; k < 10; k++) {
            f.windows(1, 1_000, 99);
            f.windows(1, 1_000, 101);
        }
        assertEquals(20, f.shape.switches());
    }

    @Test
    void aKeepingWorkerAsksToLookAtTheWindowsEnd() {
        Feed f = new Feed(new LoadShape());
        f.windows(1, 1_000, 0);
        assertEquals(f.now + W, f.shape.nextJudgement());
    }
}
