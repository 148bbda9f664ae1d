package m0.core;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The estimator's thresholds a checker may give: a period of 0 (a sample at every reading) and no band. */
class BusyEstimatorEdgesTest {

    @Test
    void aZeroPeriodSamplesEveryReadingAndEqualThresholdsMakeNoBand() {
        BusyEstimator e = new BusyEstimator(0, 500, 500);
        assertFalse(e.sample(10, 0), "the baseline");
        assertTrue(e.sample(11, 1), "1 ns later: a sample (1000 per mille, smoothed to 500)");
        assertTrue(e.full(), "full from 500");
        assertTrue(e.sample(12, 1), "idle for 1 ns: 250");
        assertFalse(e.full(), "free below 500: no band between");
        assertThrows(IllegalArgumentException.class, () -> new BusyEstimator(-1, 850, 700));
        assertThrows(IllegalArgumentException.class, () -> new BusyEstimator(0, 700, 701), "free-below over full-from");
    }
}
