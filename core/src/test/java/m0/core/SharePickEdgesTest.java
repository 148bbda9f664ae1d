package m0.core;

import static m0.core.AcceptShare.KEEPING_BIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Share's pick and gate at their edges: a keeping worker keeps whatever its index, a pick reads
 * the workers' lines and nothing past the last, and the BUSY word is rewritten only when the
 * gate's mode changes.
 */
class SharePickEdgesTest {

    @Test
    void aKeepingWorkerKeepsWhatItAcceptsWhateverItsIndex() {
        Fixture f = new Fixture(3).started();
        LoadShape shape = new LoadShape();
        shape.observe(0, 0, 0);
        shape.observe(1, LoadShape.KEEP_MIN_SHORT, 0);
        assertTrue(shape.keeping());
        SharePolicy p = new SharePolicy(shape);
        Siblings siblings = new Siblings(f.page, f.clock, 3);
        assertEquals(2, p.pick(siblings, 2, 40), "40 open against two idle siblings, and kept");
        assertEquals(AcceptPolicy.END_BATCH, p.endBatch(siblings, 2), "one accept a wake-up");
    }

    @Test
    void aPickReadsNoLinePastTheLastWorker() {
        Fixture f = new Fixture(2).started();
        SharePolicy p = new SharePolicy();
        Siblings siblings = new Siblings(f.page, f.clock, 2);
        f.log.clear();
        assertEquals(1, p.pick(siblings, 0, 5));
        assertTrue(f.log.stream().anyMatch(e -> e.startsWith("get state[1]")), "it read w1's line: " + f.log);
        assertTrue(f.log.stream().noneMatch(e -> e.contains("[2]")), "read past the last line: " + f.log);
    }

    @Test
    void theBusyWordIsWrittenOnlyWhenTheModeChanges() {
        Fixture f = new Fixture(2).started();
        long now = f.clock.nanoTime();
        f.log.clear();
        f.w(0).shape(now, 0, 0);
        f.w(0).shape(now + 1, 1, 0);
        f.w(0).shape(now + LoadShape.WINDOW_NANOS, 2, 1);
        assertTrue(f.log.stream().noneMatch(e -> e.contains("busy[0]")), "the mode never changed: " + f.log);
        f.w(0).shape(now + LoadShape.WINDOW_NANOS + 1, 2 + LoadShape.KEEP_MIN_SHORT, 1);
        assertEquals(1, f.log.stream().filter(e -> e.startsWith("set busy[0]")).count(), "keeping: published once: " + f.log);
        assertEquals(KEEPING_BIT, f.get(PageLayout.busyWord(0)));
    }
}
