package m0.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

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
 * B25, the handshake itself, word for word through the {@link Page} API.
 *
 * <p>The sender raises the target's {@code pending}, then reads its {@code state} again; the
 * leaver stores LEFT in its {@code state}, then reads its {@code pending}. Each writes its own
 * word, then reads the other's (Dekker). Result: {@code r1} = the state the sender read,
 * {@code r2} = the pending the leaver read. "-2, 0" is the bug: the sender reads PARKED and
 * queues the connection, the leaver reads no raise and stops draining, and the connection waits
 * in a channel nothing will read again.
 *
 * <p>With the real pages' volatile accesses that outcome is FORBIDDEN. With release/acquire or
 * opaque accesses it is allowed, and the results show it: a store followed by a load of
 * another word may be reordered (the store buffer, on x86), which is why the page is volatile.
 */
public final class B25Handshake {

    private B25Handshake() {
    }

    /** A page of one worker, parked: the leaver and the sender's target. */
    static Page parked(Page page) {
        page.setVolatile(Words.STATE, PageLayout.PARKED);
        return page;
    }

    /** The sender: raise pending (R5), then read state again (B25). */
    static long raiseThenReadState(Page page) {
        page.getAndAdd(Words.COUNTS, m0.core.Counts.RAISE);
        return page.getVolatile(Words.STATE);
    }

    /** The leaver: LEFT first, then read pending. */
    static long leaveThenReadPending(Page page) {
        page.setVolatile(Words.STATE, PageLayout.LEFT);
        return Words.pending(page);
    }

    @JCStressTest
    @Description("B25 on AtomicLongArrayPage: volatile raise/read vs store/read")
    @Outcome(id = "-2, 1", expect = ACCEPTABLE, desc = "sender sends; the leaver saw the raise and drains it")
    @Outcome(id = "-1, 0", expect = ACCEPTABLE, desc = "sender reads LEFT and keeps it; the leaver saw nothing")
    @Outcome(id = "-1, 1", expect = ACCEPTABLE, desc = "each saw the other: sender keeps it, leaver drains a step more")
    @Outcome(id = "-2, 0", expect = FORBIDDEN, desc = "B25: sent to a leaver that stopped draining")
    @Outcome(expect = FORBIDDEN, desc = "a value no actor wrote")
    @State
    public static class VolatileArrayPage {
        final Page page = parked(Pages.array(1));

        @Actor
        public void sender(JJ_Result r) {
            r.r1 = raiseThenReadState(page);
        }

        @Actor
        public void leaver(JJ_Result r) {
            r.r2 = leaveThenReadPending(page);
        }
    }

    @JCStressTest
    @Description("B25 on ByteBufferPage over a mapped file: volatile raise/read vs store/read")
    @Outcome(id = "-2, 1", expect = ACCEPTABLE, desc = "sender sends; the leaver saw the raise and drains it")
    @Outcome(id = "-1, 0", expect = ACCEPTABLE, desc = "sender reads LEFT and keeps it; the leaver saw nothing")
    @Outcome(id = "-1, 1", expect = ACCEPTABLE, desc = "each saw the other: sender keeps it, leaver drains a step more")
    @Outcome(id = "-2, 0", expect = FORBIDDEN, desc = "B25: sent to a leaver that stopped draining")
    @Outcome(expect = FORBIDDEN, desc = "a value no actor wrote")
    @State
    public static class VolatileMappedPage {
        final Page page = parked(Pages.mapped(1));

        @Actor
        public void sender(JJ_Result r) {
            r.r1 = raiseThenReadState(page);
        }

        @Actor
        public void leaver(JJ_Result r) {
            r.r2 = leaveThenReadPending(page);
        }
    }

    @JCStressTest
    @Description("B25 on a release/acquire long[] page (mutant): the handshake fails")
    @Outcome(id = "-2, 1", expect = ACCEPTABLE, desc = "sender sends; the leaver saw the raise and drains it")
    @Outcome(id = "-1, 0", expect = ACCEPTABLE, desc = "sender reads LEFT and keeps it; the leaver saw nothing")
    @Outcome(id = "-1, 1", expect = ACCEPTABLE, desc = "each saw the other: sender keeps it, leaver drains a step more")
    @Outcome(id = "-2, 0", expect = ACCEPTABLE_INTERESTING, desc = "B25 lost: release/acquire lets both miss the other")
    @Outcome(expect = FORBIDDEN, desc = "a value no actor wrote")
    @State
    public static class AcquireReleaseArray {
        final Page page = parked(Pages.acquireReleaseArray(1));

        @Actor
        public void sender(JJ_Result r) {
            r.r1 = raiseThenReadState(page);
        }

        @Actor
        public void leaver(JJ_Result r) {
            r.r2 = leaveThenReadPending(page);
        }
    }

    @JCStressTest
    @Description("B25 on a release/acquire mapped page (mutant): the handshake fails")
    @Outcome(id = "-2, 1", expect = ACCEPTABLE, desc = "sender sends; the leaver saw the raise and drains it")
    @Outcome(id = "-1, 0", expect = ACCEPTABLE, desc = "sender reads LEFT and keeps it; the leaver saw nothing")
    @Outcome(id = "-1, 1", expect = ACCEPTABLE, desc = "each saw the other: sender keeps it, leaver drains a step more")
    @Outcome(id = "-2, 0", expect = ACCEPTABLE_INTERESTING, desc = "B25 lost: release/acquire lets both miss the other")
    @Outcome(expect = FORBIDDEN, desc = "a value no actor wrote")
    @State
    public static class AcquireReleaseMapped {
        final Page page = parked(Pages.acquireReleaseMapped(1));

        @Actor
        public void sender(JJ_Result r) {
            r.r1 = raiseThenReadState(page);
        }

        @Actor
        public void leaver(JJ_Result r) {
            r.r2 = leaveThenReadPending(page);
        }
    }

    @JCStressTest
    @Description("B25 on an opaque long[] page (mutant): the handshake fails")
    @Outcome(id = "-2, 1", expect = ACCEPTABLE, desc = "sender sends; the leaver saw the raise and drains it")
    @Outcome(id = "-1, 0", expect = ACCEPTABLE, desc = "sender reads LEFT and keeps it; the leaver saw nothing")
    @Outcome(id = "-1, 1", expect = ACCEPTABLE, desc = "each saw the other: sender keeps it, leaver drains a step more")
    @Outcome(id = "-2, 0", expect = ACCEPTABLE_INTERESTING, desc = "B25 lost: opaque accesses let both miss the other")
    @Outcome(expect = FORBIDDEN, desc = "a value no actor wrote")
    @State
    public static class OpaqueArray {
        final Page page = parked(Pages.opaqueArray(1));

        @Actor
        public void sender(JJ_Result r) {
            r.r1 = raiseThenReadState(page);
        }

        @Actor
        public void leaver(JJ_Result r) {
            r.r2 = leaveThenReadPending(page);
        }
    }

    @JCStressTest
    @Description("B25 on an opaque mapped page (mutant): the handshake fails")
    @Outcome(id = "-2, 1", expect = ACCEPTABLE, desc = "sender sends; the leaver saw the raise and drains it")
    @Outcome(id = "-1, 0", expect = ACCEPTABLE, desc = "sender reads LEFT and keeps it; the leaver saw nothing")
    @Outcome(id = "-1, 1", expect = ACCEPTABLE, desc = "each saw the other: sender keeps it, leaver drains a step more")
    @Outcome(id = "-2, 0", expect = ACCEPTABLE_INTERESTING, desc = "B25 lost: opaque accesses let both miss the other")
    @Outcome(expect = FORBIDDEN, desc = "a value no actor wrote")
    @State
    public static class OpaqueMapped {
        final Page page = parked(Pages.opaqueMapped(1));

        @Actor
        public void sender(JJ_Result r) {
            r.r1 = raiseThenReadState(page);
        }

        @Actor
        public void leaver(JJ_Result r) {
            r.r2 = leaveThenReadPending(page);
        }
    }
}
