package m0.core;

import static m0.core.BusyEstimator.SAMPLE_NANOS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The fountain's estimator, rule by rule, with the note's numbers (seed 004, ADR 0019). */
class BusyEstimatorTest {

    private static final long MS = 1_000_000L;
    private long now = 1_000 * MS;
    private long busy;
    private final BusyEstimator e = new BusyEstimator();

    /** 20 ms of wall time of which {@code perMille} was busy, then a reading. */
    private boolean window(int perMille) {
        now += SAMPLE_NANOS;
        busy += SAMPLE_NANOS * perMille / 1000;
        return e.sample(now, busy);
    }

    @Test
    void samplesEvery20msAndNoSooner() {
        assertFalse(e.sample(now, 0), "the first reading is the baseline");
        now += SAMPLE_NANOS - 1;
        busy += SAMPLE_NANOS - 1;
        assertFalse(e.sample(now, busy), "19.999999 ms: too soon");
        assertEquals(0, e.smoothed());
        now += 1;
        busy += 1;
        assertTrue(e.sample(now, busy), "20 ms: a sample");
        assertEquals(500, e.smoothed(), "(0 + 1000) / 2");
    }

    @Test
    void theShareIsBusyOverWallSmoothedOverAboutTwoSamples() {
        e.sample(now, 0);
        window(1000);
        assertEquals(500, e.smoothed());
        window(1000);
        assertEquals(750, e.smoothed());
        assertFalse(e.full(), "750: below 85 %");
        window(1000);
        assertEquals(875, e.smoothed());
        assertTrue(e.full(), "a loop that turns 100 % busy is full at its third sample (60 ms)");
        window(0);
        assertEquals(437, e.smoothed());
        assertFalse(e.full(), "idle again: free at the next sample");
    }

    @Test
    void aLongGapIsOneSampleOverTheWholeGap() {
        e.sample(now, 0);
        now += 100 * MS;
        busy += 30 * MS;
        assertTrue(e.sample(now, busy));
        assertEquals(150, e.smoothed(), "(0 + 300) / 2");
    }

    @Test
    void hysteresisFullFrom85FreeOnlyBelow70() {
        e.sample(now, 0);
        window(1000);
        window(1000);
        window(1000);
        assertTrue(e.full());
        window(525);
        assertEquals(700, e.smoothed());
        assertTrue(e.full(), "exactly 70 %: still full");
        window(698);
        assertEquals(699, e.smoothed());
        assertFalse(e.full(), "below 70 %: free");
        window(1000);
        assertEquals(849, e.smoothed());
        assertFalse(e.full(), "84.9 %: not yet full");
        window(851);
        assertEquals(850, e.smoothed());
        assertTrue(e.full(), "exactly 85 %: full");
    }

    @Test
    void eachAcceptBeyondThePreviousWindowsCountAdds10PercentUntilTheNextSample() {
        e.sample(now, 0);
        for (int k = 1; k <= 5; k++) {
            e.accepted();
            assertEquals(100 * k, e.surge());
        }
        window(0);
        assertEquals(0, e.surge(), "a sample ends the surge: its load is in the share now");
        for (int k = 0; k < 5; k++) {
            e.accepted();
        }
        assertEquals(0, e.surge(), "a steady stream (5 per window again) adds nothing");
        e.accepted();
        assertEquals(100, e.surge(), "the sixth is beyond the previous window's five");
    }

    @Test
    void sixtyFourAtOnceFillAnIdleWorkerAtTheNinth() {
        e.sample(now, 0);
        for (int k = 1; k <= 8; k++) {
            e.accepted();
            assertFalse(e.full(), k + " accepted: " + e.estimate());
        }
        e.accepted();
        assertTrue(e.full(), "9 x 10 % = 90 % >= 85 %: about nine per worker before the next starts");
    }

    @Test
    void aSurgeOnAMeasuredShareCrossesTheThresholdSooner() {
        e.sample(now, 0);
        window(100);
        assertEquals(50, e.smoothed());
        for (int k = 0; k < 8; k++) {
            e.accepted();
        }
        assertEquals(850, e.estimate());
        assertTrue(e.full(), "50 + 8 x 100 = 850");
        assertEquals(850 | BusyEstimator.FULL_BIT, e.word());
        window(100);
        assertFalse(e.full(), "the next sample measures 75: free (the surge never stays)");
    }

    @Test
    void theWordCarriesPerMilleAndTheFullFlag() {
        assertEquals(0, e.word());
        long w = 720 | BusyEstimator.FULL_BIT;
        assertTrue(BusyEstimator.full(w));
        assertEquals(720, BusyEstimator.perMille(w));
        assertFalse(BusyEstimator.full(720));
        for (int k = 0; k < 30; k++) {
            e.accepted();
        }
        assertEquals(1000, BusyEstimator.perMille(e.word()), "capped at 100 %");
    }

    @Test
    void otherPeriodsAndThresholdsAreForMutantsOnly() {
        BusyEstimator unsampled = new BusyEstimator(0, 850, 700);
        unsampled.sample(now, 0);
        assertTrue(unsampled.sample(now + 1, 1), "every reading a sample");
        assertFalse(unsampled.sample(now + 1, 1), "but never over no time at all");
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> new BusyEstimator(0, 700, 850));
    }

    @Test
    void resetStartsFreeAtZero() {
        e.sample(now, 0);
        for (int k = 0; k < 9; k++) {
            e.accepted();
        }
        assertTrue(e.full());
        e.reset();
        assertFalse(e.full());
        assertEquals(0, e.word());
        assertFalse(e.sample(now + SAMPLE_NANOS, busy), "a new baseline");
    }

    // The blocking pool (ADR 0029): the sample's share is max(loop share, pool share).

    private long poolBusy;

    /** 20 ms in which the loop was {@code loopPerMille} busy and {@code busyThreads} of 4 pool threads were occupied. */
    private boolean poolWindow(int loopPerMille, int busyThreads) {
        now += SAMPLE_NANOS;
        busy += SAMPLE_NANOS * loopPerMille / 1000;
        poolBusy += SAMPLE_NANOS * busyThreads;
        return e.sample(now, busy, poolBusy, 4);
    }

    @Test
    void aLoopAt10PercentWithItsPoolSaturatedIsFull() {
        e.sample(now, 0, 0, 4);
        poolWindow(100, 4);
        assertEquals(500, e.smoothed(), "max(100, 1000): the pool's share");
        poolWindow(100, 4);
        poolWindow(100, 4);
        assertEquals(875, e.smoothed());
        assertTrue(e.full(), "4 of 4 pool threads busy: full at the third sample, as a busy loop");
    }

    @Test
    void aPoolAtHalfIsNotFullAndTheSharesAreNotAdded() {
        e.sample(now, 0, 0, 4);
        for (int k = 0; k < 10; k++) {
            poolWindow(500, 2);
        }
        assertEquals(499, e.smoothed(), "max(500, 500) converges to 500, not the sum's 1000");
        assertFalse(e.full(), "a loop at 50 % and 2 of 4 pool threads: both have room");
    }

    @Test
    void theLoopStillCountsWhenThePoolIsIdle() {
        e.sample(now, 0, 0, 4);
        poolWindow(1000, 0);
        poolWindow(1000, 0);
        poolWindow(1000, 0);
        assertEquals(875, e.smoothed(), "max(1000, 0): the old rule");
        assertTrue(e.full());
    }

    @Test
    void thePoolShareIsOverWallTimesThreads() {
        e.sample(now, 0, 0, 4);
        now += SAMPLE_NANOS;
        poolBusy += 3 * SAMPLE_NANOS; // 3 of 4 threads busy the whole window: 75 %
        e.sample(now, 0, poolBusy, 4);
        assertEquals(375, e.smoothed(), "(0 + 750) / 2");
        now += SAMPLE_NANOS;
        poolBusy += 8 * SAMPLE_NANOS; // a counter that overstates (a torn sum) is capped at 100 %
        e.sample(now, 0, poolBusy, 4);
        assertEquals(687, e.smoothed(), "(375 + 1000) / 2");
    }

    @Test
    void noPoolReadsIdleWhateverItsCounterSays() {
        e.sample(now, 0, 0, 0);
        now += SAMPLE_NANOS;
        assertTrue(e.sample(now, SAMPLE_NANOS / 10, Long.MAX_VALUE / 2, 0));
        assertEquals(50, e.smoothed(), "0 threads: the loop's 100 alone");
        now += SAMPLE_NANOS;
        assertTrue(e.sample(now, 2 * SAMPLE_NANOS / 10, 0, 4), "a pool counter that went back reads 0");
        assertEquals(75, e.smoothed(), "(50 + 100) / 2");
    }

    @Test
    void theLoopOnlyReadingIsTheSameAsAnIdlePool() {
        BusyEstimator other = new BusyEstimator();
        e.sample(now, 0);
        other.sample(now, 0, 123, 4);
        for (int perMille : new int[] {1000, 300, 900, 1000, 0, 850}) {
            now += SAMPLE_NANOS;
            busy += SAMPLE_NANOS * perMille / 1000;
            e.sample(now, busy);
            other.sample(now, busy, 123, 4);
            assertEquals(e.word(), other.word(), "after a window at " + perMille);
        }
    }
}
