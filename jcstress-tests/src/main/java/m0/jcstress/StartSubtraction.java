package m0.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import m0.core.AcceptPolicy;
import m0.core.AcceptShare;
import m0.core.Counts;
import m0.core.Page;
import m0.core.PageLayout;
import m0.jcstress.page.Pages;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * TAKEN, start's subtraction, against a reader of {@code pending - taken}.
 *
 * <p>Before: the predecessor of worker 0 took one connection and died before retiring it, and
 * one more hand-off is in flight: {@code pending 2, taken 1}. The replacement's real
 * {@link AcceptShare#start()} lowers both in ONE add to the counts word ({@code pending 1,
 * taken 0}). A reader reads the counts word, as a leaver's drain and the supervisor's give-up
 * do.
 *
 * <p>The core's invariant is {@code pending - taken >= in flight} (here 1) at every step. The
 * reader sees the line before (2, 1) or after (1, 0), never in between: there is no between
 * (ADR 0024; before it, a death between the two words left pending - taken one high for good).
 * The mutant does the subtraction in two adds, pending first (DESIGN's textual order), and the
 * reader sees (1, 1): {@code pending - taken = 0} with a connection in flight, which would end a
 * drain early.
 */
public final class StartSubtraction {

    private StartSubtraction() {
    }

    /** The line a dead predecessor left: one taken and not retired, one in flight. */
    static Page orphaned(Page page) {
        page.setVolatile(Words.STATE, PageLayout.LEFT); // reaped
        page.setVolatile(Words.COUNTS, Counts.of(2, 1));
        return page;
    }

    static void readCounts(Page page, JJ_Result r) {
        long counts = page.getVolatile(Words.COUNTS);
        r.r1 = Counts.pending(counts);
        r.r2 = Counts.taken(counts);
    }

    static final class Replacement {
        final Page page;
        final AcceptShare<Boolean> replacement;

        Replacement(Page page) {
            this.page = orphaned(page);
            this.replacement = new AcceptShare<>(page, new StubChannel(), () -> 1L,
                    AcceptPolicy.share(), 2, 0);
            replacement.bind();
        }
    }

    @JCStressTest
    @Description("TAKEN: AcceptShare.start's one-word subtraction vs a reader of the counts, AtomicLongArrayPage")
    @Outcome(id = "2, 1", expect = ACCEPTABLE, desc = "read before start")
    @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "read after start")
    @Outcome(id = "1, 1", expect = FORBIDDEN, desc = "pending - taken below what is in flight")
    @Outcome(expect = FORBIDDEN, desc = "a value no actor wrote")
    @State
    public static class ArrayPage {
        final Replacement line = new Replacement(Pages.array(2));

        @Actor
        public void start() {
            line.replacement.start();
        }

        @Actor
        public void reader(JJ_Result r) {
            readCounts(line.page, r);
        }
    }

    @JCStressTest
    @Description("TAKEN: AcceptShare.start's one-word subtraction vs a reader of the counts, ByteBufferPage over a mapped file")
    @Outcome(id = "2, 1", expect = ACCEPTABLE, desc = "read before start")
    @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "read after start")
    @Outcome(id = "1, 1", expect = FORBIDDEN, desc = "pending - taken below what is in flight")
    @Outcome(expect = FORBIDDEN, desc = "a value no actor wrote")
    @State
    public static class MappedPage {
        final Replacement line = new Replacement(Pages.mapped(2));

        @Actor
        public void start() {
            line.replacement.start();
        }

        @Actor
        public void reader(JJ_Result r) {
            readCounts(line.page, r);
        }
    }

    @JCStressTest
    @Description("TAKEN in two adds, pending before taken (mutant): the reader sees pending - taken too low")
    @Outcome(id = "2, 1", expect = ACCEPTABLE, desc = "read before the subtraction")
    @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "read after the subtraction")
    @Outcome(id = "1, 1", expect = ACCEPTABLE_INTERESTING, desc = "pending - taken below what is in flight: why it is one add")
    @Outcome(expect = FORBIDDEN, desc = "a value no actor wrote")
    @State
    public static class PendingFirstArray {
        final Page page = orphaned(Pages.array(2));

        @Actor
        public void start() {
            long taken = Counts.taken(page.getVolatile(Words.COUNTS));
            page.getAndAdd(Words.COUNTS, -taken * Counts.PENDING_ONE + Counts.VERSION_ONE);
            page.getAndAdd(Words.COUNTS, -taken * Counts.TAKEN_ONE + Counts.VERSION_ONE);
            page.setVolatile(Words.STATE, PageLayout.PARKED);
        }

        @Actor
        public void reader(JJ_Result r) {
            readCounts(page, r);
        }
    }
}
