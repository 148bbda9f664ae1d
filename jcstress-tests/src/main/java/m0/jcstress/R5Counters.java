package m0.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import m0.core.Counts;
import m0.core.Page;
import m0.jcstress.page.Pages;
import m0.jcstress.page.SplitAddPage;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * R5 at the memory level: one worker's counts word written by two actors at once loses
 * nothing.
 *
 * <p>Before: one connection was raised, received and not yet retired ({@code pending 1,
 * taken 1}). The sender raises for a send the channel refuses and takes it back, then raises
 * for a send that goes through; the receiver retires the one it had ({@code pending -= 1;
 * taken -= 1}, one add). After, whatever the interleaving: {@code pending 1} (the connection
 * now in flight), {@code taken 0}. The arbiter reads both, from one load.
 */
public final class R5Counters {

    private R5Counters() {
    }

    /** One connection received and not yet retired. */
    static Page oneTaken(Page page) {
        page.setVolatile(Words.COUNTS, Counts.of(1, 1));
        return page;
    }

    /** Raise, take back (refused), raise (sent): HandOff.sendWith's adds, twice. */
    static void raiseTakeBackRaise(Page page) {
        page.getAndAdd(Words.COUNTS, Counts.RAISE);
        page.getAndAdd(Words.COUNTS, Counts.TAKE_BACK);
        page.getAndAdd(Words.COUNTS, Counts.RAISE);
    }

    /** The receiver's retire of one: pending and taken in one add. */
    static void retireOne(Page page) {
        page.getAndAdd(Words.COUNTS, Counts.retire(1));
    }

    static void settle(Page page, JJ_Result r) {
        long counts = page.getVolatile(Words.COUNTS);
        r.r1 = Counts.pending(counts);
        r.r2 = Counts.taken(counts);
    }

    @JCStressTest
    @Description("R5: raise / take-back / retire on one pending, AtomicLongArrayPage")
    @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "nothing lost: pending is the one in flight")
    @Outcome(expect = FORBIDDEN, desc = "a lost update: pending no longer counts what is in flight")
    @State
    public static class ArrayPage {
        final Page page = oneTaken(Pages.array(1));

        @Actor
        public void sender() {
            raiseTakeBackRaise(page);
        }

        @Actor
        public void receiver() {
            retireOne(page);
        }

        @Arbiter
        public void arbiter(JJ_Result r) {
            settle(page, r);
        }
    }

    @JCStressTest
    @Description("R5: raise / take-back / retire on one pending, ByteBufferPage over a mapped file")
    @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "nothing lost: pending is the one in flight")
    @Outcome(expect = FORBIDDEN, desc = "a lost update: pending no longer counts what is in flight")
    @State
    public static class MappedPage {
        final Page page = oneTaken(Pages.mapped(1));

        @Actor
        public void sender() {
            raiseTakeBackRaise(page);
        }

        @Actor
        public void receiver() {
            retireOne(page);
        }

        @Arbiter
        public void arbiter(JJ_Result r) {
            settle(page, r);
        }
    }

    @JCStressTest
    @Description("R5 on a page whose getAndAdd is a load then a store (mutant): the arbiter sees updates lost")
    @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "nothing lost this time")
    @Outcome(id = "0, 0", expect = ACCEPTABLE_INTERESTING, desc = "the raise lost: pending below in flight")
    @Outcome(id = "2, 0", expect = ACCEPTABLE_INTERESTING, desc = "the retire lost: pending high for good")
    @Outcome(expect = ACCEPTABLE_INTERESTING, desc = "another lost update")
    @State
    public static class SplitAddArray {
        final Page page = oneTaken(new SplitAddPage(Pages.array(1)));

        @Actor
        public void sender() {
            raiseTakeBackRaise(page);
        }

        @Actor
        public void receiver() {
            retireOne(page);
        }

        @Arbiter
        public void arbiter(JJ_Result r) {
            settle(page, r);
        }
    }
}
