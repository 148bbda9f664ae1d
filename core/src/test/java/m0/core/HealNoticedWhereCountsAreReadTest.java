package m0.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A heal request is noticed in every counts word the receiver reads or changes anyway (ADR
 * 0024): its start's read, each receipt's add, a pass end's add, a leave step. Noticed
 * there, the heal runs at the very next EAGAIN of the receive, in the same pass, instead of
 * waiting for the loop's idle look ({@code healDue}, one more read of the word). Each test sets
 * the bit just before the one access it is about, and asks {@code healRequested()}, which reads
 * no page word, so only that access can have noticed it.
 */
class HealNoticedWhereCountsAreReadTest {

    private static void requestHeal(Fixture f, int index) {
        int word = PageLayout.countsWord(index);
        f.put(word, Counts.requestHeal(f.get(word)));
    }

    @Test
    void aStartNoticesARequestInTheCountsItTakesOver() {
        Fixture f = new Fixture(2);
        requestHeal(f, 1); // the reap of a sender to index 1, before index 1's replacement starts
        f.started();
        assertTrue(f.w(1).healRequested(), "start read the counts word holding the request");
        assertFalse(f.w(0).healRequested(), "index 0 was not asked");
    }

    @Test
    void aReceiptNoticesARequestInTheWordItsAddReturns() {
        Fixture f = new Fixture(2).started();
        f.midHandOff(0, 1);
        f.landed(0, 1, "c1");
        requestHeal(f, 1);
        f.w(1).passStart();
        assertEquals("c1", f.w(1).receive());
        assertTrue(f.w(1).healRequested(), "the receipt's add returned the word holding the request");
    }

    @Test
    void aPassEndNoticesARequestInTheWordItsAddReturns() {
        Fixture f = new Fixture(2).started();
        f.midHandOff(0, 1);
        f.landed(0, 1, "c1");
        f.w(1).passStart();
        assertEquals("c1", f.w(1).receive());
        assertFalse(f.w(1).healRequested());
        requestHeal(f, 1); // after the receipt: only the pass end's retire can see it
        f.w(1).passEnd(1);
        assertTrue(f.w(1).healRequested(), "the pass end's add returned the word holding the request");
    }

    @Test
    void aLeaveStepNoticesARequestThatCameWhileItAdmitted() {
        Fixture f = new Fixture(2).started();
        f.put(PageLayout.stateWord(0), PageLayout.LEFT); // no live sibling: the leaver admits what arrives
        f.midHandOff(0, 1);
        f.landed(0, 1, "c1");
        f.w(1).leave();
        List<String> admitted = new ArrayList<>();
        f.w(1).leaveStep(c -> {
            admitted.add(c);
            requestHeal(f, 1); // after the receipt's add: the step's retire and its last read see it
        });
        assertEquals(List.of("c1"), admitted);
        assertTrue(f.w(1).healRequested(), "the step ends with the word holding the request read");
    }
}
