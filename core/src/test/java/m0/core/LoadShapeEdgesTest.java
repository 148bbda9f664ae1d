package m0.core;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Share's gate exactly at its thresholds: a window ends at exactly its length; entry needs the
 * rate and the ratio reached (equal counts), exit needs them crossed (equal counts stay); and
 * the thresholds a checker may give are the ones the hysteresis allows.
 */
class LoadShapeEdgesTest {

    private static final long W = LoadShape.WINDOW_NANOS;
    private static final long K = LoadShape.KEEP_MIN_SHORT;

    /** A gate that entered keeping early in a window begun at 0; the window ends at W. */
    private static LoadShape keepingSinceZero() {
        LoadShape shape = new LoadShape();
        shape.observe(0, 0, 0);
        assertTrue(shape.observe(1, K, 0));
        return shape;
    }

    @Test
    void aWindowEndsAtExactlyItsLength() {
        LoadShape shape = keepingSinceZero();
        assertFalse(shape.observe(W, K, 0), "judged at W exactly: the window held the rate, keeping");
        assertTrue(shape.observe(2 * W, K, 0), "idle since: judged at 2 W exactly, and the rate is gone");
        assertFalse(shape.keeping());
    }

    @Test
    void entryAtAWindowsEndNeedsTheRateAndTheRatioReachedNotExceeded() {
        LoadShape atRate = new LoadShape();
        atRate.observe(0, 0, 0);
        assertTrue(atRate.observe(W, K, 0), "32 short closes in exactly one window: keep");
        LoadShape twoWindows = new LoadShape();
        twoWindows.observe(0, 0, 0);
        assertTrue(twoWindows.observe(2 * W, 2 * K, 0), "64 in two windows: the same rate");
        LoadShape atRatio = new LoadShape();
        atRatio.observe(0, 0, 0);
        long shortN = 10 * LoadShape.KEEP_SHORT_PER_REUSE;
        assertTrue(atRatio.observe(W, shortN, shortN / LoadShape.KEEP_SHORT_PER_REUSE), "one reuse per 10 short closes: keep");
        LoadShape reused = new LoadShape();
        reused.observe(0, 0, 0);
        assertFalse(reused.observe(W, 40, 5), "the rate, but 5 reuses per 40: over the entry ratio, balance");
        LoadShape under = new LoadShape();
        under.observe(0, 0, 0);
        assertFalse(under.observe(W, K - 1, 0), "one short of the rate: balance");
    }

    @Test
    void earlyEntryAtExactlyTheEntryRatio() {
        LoadShape shape = new LoadShape();
        shape.observe(0, 0, 0);
        assertFalse(shape.observe(1, 41, 5), "5 reuses per 41: over the ratio, no early entry");
        assertTrue(shape.observe(2, 50, 5), "5 reuses per 50, one in 10 exactly: keep now");
    }

    @Test
    void exitNeedsTheRateOrTheRatioCrossedNotMerelyReached() {
        LoadShape halfRate = keepingSinceZero();
        assertFalse(halfRate.observe(W, K / 2, 0), "exactly half the entry rate: still keeping");
        assertTrue(halfRate.keeping());
        LoadShape atRatio = keepingSinceZero();
        long shortN = 10 * LoadShape.BALANCE_SHORT_PER_REUSE;
        assertFalse(atRatio.observe(W, shortN, shortN / LoadShape.BALANCE_SHORT_PER_REUSE),
                "one reuse per 4 short closes: still keeping");
        assertTrue(atRatio.keeping());
        assertTrue(atRatio.observe(2 * W, 2 * shortN, shortN / LoadShape.BALANCE_SHORT_PER_REUSE + 11),
                "11 reuses per 40: balance");
    }

    @Test
    void theThresholdsMayBeAtTheirLeastAndTheExitRatioAtTheEntryRatio() {
        LoadShape least = new LoadShape(1, 1, 1, 1);
        least.observe(0, 0, 0);
        assertTrue(least.observe(1, 1, 0), "one short close a nanosecond: keep");
        assertThrows(IllegalArgumentException.class, () -> new LoadShape(0, 1, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new LoadShape(1, 0, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new LoadShape(1, 1, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new LoadShape(1, 1, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new LoadShape(1, 1, 4, 5), "exit ratio over the entry ratio");
        new LoadShape(W, K, 10, 10); // equal ratios: the checkers' no-hysteresis mutant
    }
}
