package m0.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Fountain's rules at their edges: a worker keeps what it accepts whatever its index, its looks
 * read the workers' lines and nothing past the last, a restart forgets the estimate and the
 * stuck marks, and the next look is at the earlier of one look and the head's pass turning slow.
 */
class FountainBoundsTest {

    private static final long MS = 1_000_000L;
    private static final long T0 = 1_000 * MS;

    private final FakeClock clock = new FakeClock(T0);
    private final AtomicLongArrayPage page = AtomicLongArrayPage.forWorkers(2);
    private final Siblings siblings = new Siblings(page, clock, 2);

    /** Worker {@code i} live and idle, as after its start. */
    private void parked(int i) {
        page.setVolatile(PageLayout.stateWord(i), PageLayout.PARKED);
    }

    /** Nine accepts at once into an idle worker: the surge makes it full. */
    private static void turnFull(FountainPolicy p, Siblings siblings, int self) {
        for (int k = 0; k < 9; k++) {
            p.pick(siblings, self, k);
        }
        assertTrue(p.estimator().full());
    }

    @Test
    void aFountainWorkerKeepsWhatItAcceptsWhateverItsIndex() {
        parked(0);
        parked(1);
        FountainPolicy p = new FountainPolicy(new BusyEstimator());
        assertEquals(1, p.pick(siblings, 1, 0));
        assertEquals(BusyEstimator.SURGE_PER_MILLE, p.estimator().surge(), "and counts it for the surge");
    }

    /**
     * The last worker, full, looks for a later worker that is taking: there is none, and the
     * word after its line (the STARTING bits) is no worker's state.
     */
    @Test
    void theLastWorkersLooksReadNoLinePastTheLastWorker() {
        Fixture f = new Fixture(2, AcceptPolicy::fountain).started();
        f.put(PageLayout.busyWord(0), 900 | BusyEstimator.FULL_BIT); // w0 full: nobody before w1 takes
        for (int k = 0; k < 9; k++) {
            f.w(1).passOn("c" + k, k);
        }
        assertTrue(BusyEstimator.full(f.get(PageLayout.busyWord(1))));
        f.log.clear();
        assertEquals(AcceptPolicy.GO_ON, f.w(1).endBatch(), "every worker full: go on");
        assertTrue(f.w(1).takeListener(true), "full, nobody before or after it taking: it listens");
        assertTrue(f.log.stream().noneMatch(e -> e.contains("[2]")), "read past the last line: " + f.log);
        assertTrue(f.log.stream().anyMatch(e -> e.startsWith("get state[0]")), "and it did read w0's: " + f.log);
    }

    @Test
    void aRestartForgetsTheEstimateAndPublishesAFreeWord() {
        parked(0);
        parked(1);
        FountainPolicy p = new FountainPolicy(new BusyEstimator());
        turnFull(p, siblings, 0);
        assertTrue(BusyEstimator.full(page.getVolatile(PageLayout.busyWord(0))));
        p.started(siblings, 0);
        assertFalse(p.estimator().full(), "a fresh incarnation starts free");
        assertEquals(0, p.estimator().estimate(), "at 0");
        assertEquals(0, page.getVolatile(PageLayout.busyWord(0)), "and says so on its line");
    }

    @Test
    void aRestartForgetsTheStuckMarks() {
        parked(0);
        parked(1);
        FountainPolicy p = new FountainPolicy(new BusyEstimator());
        assertFalse(p.takeListener(siblings, 1, true), "w0 is the head");
        clock.advance(MS);
        assertTrue(p.takeListener(siblings, 1, true), "w0 unmoved a look later: marked stuck, taken");
        assertTrue(p.takeListener(siblings, 1, true), "still marked");
        p.started(siblings, 1);
        assertFalse(p.takeListener(siblings, 1, true), "after a restart w0 is the head again, its first look");
        assertEquals(clock.nanoTime() + FountainPolicy.LOOK_NANOS, p.listenDeadline());
    }

    /**
     * The head in a pass begun {@code d} before the look: the next look is at the earlier of one
     * look from now and the first instant its pass reads slow (over 2 ms: begin + 2 ms + 1 ns).
     */
    @Test
    void theNextLookIsAtTheEarlierOfOneLookAndTheHeadsPassTurningSlow() {
        parked(1);
        long look = FountainPolicy.LOOK_NANOS;
        long slow = PageLayout.SLOW_PASS_NANOS;
        long[] ago = {0, 1, look / 2, look - 1, look, look + 1, look + 2, 3 * look / 2, slow - 1, slow};
        for (long d : ago) {
            long now = clock.nanoTime();
            long begun = now - d;
            page.setVolatile(PageLayout.stateWord(0), begun);
            FountainPolicy p = new FountainPolicy(new BusyEstimator());
            assertFalse(p.takeListener(siblings, 1, false), "w0 in a pass for " + d + " ns is the head");
            assertEquals(Math.min(now + look, begun + slow + 1), p.listenDeadline(), "pass begun " + d + " ns ago");
            clock.advance(10 * MS);
        }
    }
}
