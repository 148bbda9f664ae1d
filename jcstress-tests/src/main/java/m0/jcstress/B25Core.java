package m0.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import m0.core.AcceptPolicy;
import m0.core.AcceptShare;
import m0.core.Page;
import m0.jcstress.page.Pages;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZ_Result;

/**
 * B25 through the core's own code: worker 1 passes a connection to worker 0 with
 * {@link AcceptShare#sendWith} while worker 0 runs {@link AcceptShare#leave} and the first
 * {@link AcceptShare#leaveStep} of its drain, before the datagram has arrived.
 *
 * <p>Result: {@code r1} = the send went through (the connection is now in worker 0's channel),
 * {@code r2} = the leaver's drain goes on (it counts a connection still in flight).
 * "true, false" strands the connection: queued to a leaver that has stopped draining.
 */
public final class B25Core {

    private B25Core() {
    }

    /** Two started workers over {@code page}, sharing; worker 0 leaves, worker 1 sends. */
    static final class Pair {
        final Page page;
        final AcceptShare<Boolean> leaver;
        final AcceptShare<Boolean> sender;

        Pair(Page page) {
            this.page = page;
            StubChannel channel = new StubChannel();
            // A frozen clock: the 250 ms bound never passes, so only the handshake decides.
            this.leaver = new AcceptShare<>(page, channel, () -> 1L, AcceptPolicy.share(), 2, 0);
            this.sender = new AcceptShare<>(page, channel, () -> 1L, AcceptPolicy.share(), 2, 1);
            leaver.bind();
            sender.bind();
            leaver.start();
            sender.start();
        }

        boolean send() {
            return sender.sendWith(0, Boolean.TRUE);
        }

        /** LEFT, then one drain step: true while it counts a connection in flight. */
        boolean leave() {
            leaver.leave();
            return leaver.leaveStep(connection -> {
                throw new AssertionError("the stub channel delivers nothing to a drain");
            });
        }
    }

    @JCStressTest
    @Description("B25 via AcceptShare.sendWith vs leave + leaveStep, on AtomicLongArrayPage")
    @Outcome(id = "true, true", expect = ACCEPTABLE, desc = "sent; the leaver drains until it arrives")
    @Outcome(id = "false, false", expect = ACCEPTABLE, desc = "sender read LEFT and keeps it; the leaver is done")
    @Outcome(id = "false, true", expect = ACCEPTABLE, desc = "sender keeps it; the leaver saw the raise before its take-back")
    @Outcome(id = "true, false", expect = FORBIDDEN, desc = "B25: queued to a leaver that stopped draining")
    @State
    public static class ArrayPage {
        final Pair pair = new Pair(Pages.array(2));

        @Actor
        public void sender(ZZ_Result r) {
            r.r1 = pair.send();
        }

        @Actor
        public void leaver(ZZ_Result r) {
            r.r2 = pair.leave();
        }
    }

    @JCStressTest
    @Description("B25 via AcceptShare.sendWith vs leave + leaveStep, on ByteBufferPage over a mapped file")
    @Outcome(id = "true, true", expect = ACCEPTABLE, desc = "sent; the leaver drains until it arrives")
    @Outcome(id = "false, false", expect = ACCEPTABLE, desc = "sender read LEFT and keeps it; the leaver is done")
    @Outcome(id = "false, true", expect = ACCEPTABLE, desc = "sender keeps it; the leaver saw the raise before its take-back")
    @Outcome(id = "true, false", expect = FORBIDDEN, desc = "B25: queued to a leaver that stopped draining")
    @State
    public static class MappedPage {
        final Pair pair = new Pair(Pages.mapped(2));

        @Actor
        public void sender(ZZ_Result r) {
            r.r1 = pair.send();
        }

        @Actor
        public void leaver(ZZ_Result r) {
            r.r2 = pair.leave();
        }
    }

    @JCStressTest
    @Description("B25 via the real AcceptShare on a release/acquire long[] page (mutant): the core strands a hand-off")
    @Outcome(id = "true, true", expect = ACCEPTABLE, desc = "sent; the leaver drains until it arrives")
    @Outcome(id = "false, false", expect = ACCEPTABLE, desc = "sender read LEFT and keeps it; the leaver is done")
    @Outcome(id = "false, true", expect = ACCEPTABLE, desc = "sender keeps it; the leaver saw the raise before its take-back")
    @Outcome(id = "true, false", expect = ACCEPTABLE_INTERESTING, desc = "B25 lost on a release/acquire page: stranded")
    @State
    public static class AcquireReleaseArray {
        final Pair pair = new Pair(Pages.acquireReleaseArray(2));

        @Actor
        public void sender(ZZ_Result r) {
            r.r1 = pair.send();
        }

        @Actor
        public void leaver(ZZ_Result r) {
            r.r2 = pair.leave();
        }
    }
}
