package m0.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import m0.core.AcceptPolicy;
import m0.core.AcceptShare;
import m0.core.Page;
import m0.jcstress.page.Pages;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJ_Result;

/**
 * R5 through the core's own code: worker 1's {@link AcceptShare#sendWith} (one send refused
 * and taken back, one sent) races worker 0's {@link AcceptShare#passEnd}, which retires the
 * connection worker 0 received earlier.
 *
 * <p>Result: {@code r1}, {@code r2} = what the two sends returned (refused, sent), then the
 * arbiter's {@code r3} = pending and {@code r4} = taken of worker 0. Only "0, 1, 1, 0" keeps
 * R5's invariant: pending counts the one connection in flight, taken nothing.
 */
public final class R5Core {

    private R5Core() {
    }

    static final class Pair {
        final Page page;
        final AcceptShare<Boolean> receiver;
        final AcceptShare<Boolean> sender;

        Pair(Page page) {
            this.page = page;
            StubChannel channel = new StubChannel();
            this.receiver = new AcceptShare<>(page, channel, () -> 1L, AcceptPolicy.share(), 2, 0);
            this.sender = new AcceptShare<>(page, channel, () -> 1L, AcceptPolicy.share(), 2, 1);
            receiver.bind();
            sender.bind();
            receiver.start();
            sender.start();
            // Before the race: one connection sent to worker 0 and received, not yet retired.
            if (!sender.sendWith(0, Boolean.TRUE)) {
                throw new IllegalStateException("setup: the first send was refused");
            }
            channel.ready = 1;
            receiver.passStart();
            if (receiver.receive() == null || receiver.receive() != null) {
                throw new IllegalStateException("setup: expected exactly one connection");
            }
        }

        void send(JJJJ_Result r) {
            r.r1 = sender.sendWith(0, Boolean.FALSE) ? 1 : 0; // the channel is full: taken back
            r.r2 = sender.sendWith(0, Boolean.TRUE) ? 1 : 0;
        }

        void retire() {
            receiver.passEnd(1);
        }

        void settle(JJJJ_Result r) {
            long counts = page.getVolatile(Words.COUNTS);
            r.r3 = m0.core.Counts.pending(counts);
            r.r4 = m0.core.Counts.taken(counts);
        }
    }

    @JCStressTest
    @Description("R5 via AcceptShare.sendWith vs passEnd's retire, on AtomicLongArrayPage")
    @Outcome(id = "0, 1, 1, 0", expect = ACCEPTABLE, desc = "nothing lost: pending is the one in flight")
    @Outcome(expect = FORBIDDEN, desc = "a lost update, or a send that went the wrong way")
    @State
    public static class ArrayPage {
        final Pair pair = new Pair(Pages.array(2));

        @Actor
        public void sender(JJJJ_Result r) {
            pair.send(r);
        }

        @Actor
        public void receiver() {
            pair.retire();
        }

        @Arbiter
        public void arbiter(JJJJ_Result r) {
            pair.settle(r);
        }
    }

    @JCStressTest
    @Description("R5 via AcceptShare.sendWith vs passEnd's retire, on ByteBufferPage over a mapped file")
    @Outcome(id = "0, 1, 1, 0", expect = ACCEPTABLE, desc = "nothing lost: pending is the one in flight")
    @Outcome(expect = FORBIDDEN, desc = "a lost update, or a send that went the wrong way")
    @State
    public static class MappedPage {
        final Pair pair = new Pair(Pages.mapped(2));

        @Actor
        public void sender(JJJJ_Result r) {
            pair.send(r);
        }

        @Actor
        public void receiver() {
            pair.retire();
        }

        @Arbiter
        public void arbiter(JJJJ_Result r) {
            pair.settle(r);
        }
    }
}
