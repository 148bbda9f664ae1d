package m0.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import m0.core.AcceptPolicy;
import m0.core.AcceptShare;
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
 * {@link AcceptShare#start()} publishes {@code taken 0} and then {@code pending 1} (taken
 * first, the core's deliberate order). A reader reads {@code pending}, then {@code taken}, as a
 * leaver's drain and the supervisor's give-up do.
 *
 * <p>The core's invariant is {@code pending - taken >= in flight} (here 1) at every step. The
 * reader may see the line before (2, 1), between the two words (2, 0: high by one, an
 * orphaned-raise-like excess that only makes a drain wait), or after (1, 0). It must never see
 * (1, 1): {@code pending - taken = 0} with a connection in flight, which would end a drain
 * early. With taken written first and pending read first, seeing the new pending implies
 * seeing the new taken: message passing, which release/acquire would keep too, so this is a
 * matter of the order of the words, not of the page being volatile. DESIGN's textual order
 * (pending first) allows (1, 1) even without any reordering: the mutant shows it.
 */
public final class StartSubtraction {

    private StartSubtraction() {
    }

    /** The line a dead predecessor left: one taken and not retired, one in flight. */
    static Page orphaned(Page page) {
        page.setVolatile(Words.STATE, PageLayout.LEFT); // reaped
        page.setVolatile(Words.PENDING, 2);
        page.setVolatile(Words.TAKEN, 1);
        return page;
    }

    static void readPendingThenTaken(Page page, JJ_Result r) {
        r.r1 = page.getVolatile(Words.PENDING);
        r.r2 = page.getVolatile(Words.TAKEN);
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
    @Description("TAKEN: AcceptShare.start's subtraction vs a pending-then-taken reader, AtomicLongArrayPage")
    @Outcome(id = "2, 1", expect = ACCEPTABLE, desc = "read before start")
    @Outcome(id = "2, 0", expect = ACCEPTABLE, desc = "read between the words: pending - taken errs high")
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
            readPendingThenTaken(line.page, r);
        }
    }

    @JCStressTest
    @Description("TAKEN: AcceptShare.start's subtraction vs a pending-then-taken reader, ByteBufferPage over a mapped file")
    @Outcome(id = "2, 1", expect = ACCEPTABLE, desc = "read before start")
    @Outcome(id = "2, 0", expect = ACCEPTABLE, desc = "read between the words: pending - taken errs high")
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
            readPendingThenTaken(line.page, r);
        }
    }

    @JCStressTest
    @Description("TAKEN in DESIGN's textual order, pending before taken (mutant): the reader sees pending - taken too low")
    @Outcome(id = "2, 1", expect = ACCEPTABLE, desc = "read before the subtraction")
    @Outcome(id = "2, 0", expect = ACCEPTABLE, desc = "pending read before, taken after: errs high")
    @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "read after the subtraction")
    @Outcome(id = "1, 1", expect = ACCEPTABLE_INTERESTING, desc = "pending - taken below what is in flight: why taken goes first")
    @Outcome(expect = FORBIDDEN, desc = "a value no actor wrote")
    @State
    public static class PendingFirstArray {
        final Page page = orphaned(Pages.array(2));

        @Actor
        public void start() {
            long taken = page.getVolatile(Words.TAKEN);
            page.getAndAdd(Words.PENDING, -taken);
            page.getAndAdd(Words.TAKEN, -taken);
            page.setVolatile(Words.STATE, PageLayout.PARKED);
        }

        @Actor
        public void reader(JJ_Result r) {
            readPendingThenTaken(page, r);
        }
    }
}
