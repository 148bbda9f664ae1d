package m0.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import m0.core.AcceptPolicy;
import m0.core.AcceptShare;
import m0.core.Channel;
import m0.core.Counts;
import m0.core.Page;
import m0.jcstress.page.Pages;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * The heal's ordering (ADR 0024): a sender publishes its hand-off (SENDING = target + 1) BEFORE
 * it raises the target's pending, and a heal reads the counts, THEN every SENDING. A heal that
 * sees the raise must see it published, or it reads a live sender's raise as orphaned and takes
 * it off: pending below what is in flight.
 *
 * <p>The sender is worker 1's real {@link AcceptShare#sendWith} to worker 0, killed at its
 * {@code sendmsg} (the channel throws an Error, the checkers' death: nothing more is written),
 * so its SENDING stays published. The healer reads worker 0's counts word, then worker 1's
 * SENDING: {@code r1} = pending, {@code r2} = SENDING. (1, 0) is FORBIDDEN. Message passing, so
 * this holds by the order of the two writes and of the two reads; the mutant raises first.
 */
public final class HealOrder {

    private HealOrder() {
    }

    /** What a kill at sendmsg looks like to the core: an Error, never caught by it. */
    static final class Killed extends Error {
        static final Killed AT_SENDMSG = new Killed();

        private Killed() {
            super("killed at sendmsg", null, false, false);
        }
    }

    static final Channel<Boolean> DIES_AT_SENDMSG = new Channel<>() {
        @Override
        public boolean send(int target, Boolean connection) {
            throw Killed.AT_SENDMSG;
        }

        @Override
        public Boolean receive(int index) {
            return null;
        }
    };

    static final class Line {
        final Page page;
        final AcceptShare<Boolean> sender;

        Line(Page page) {
            this.page = page;
            AcceptShare<Boolean> target = new AcceptShare<>(page, DIES_AT_SENDMSG, () -> 1L, AcceptPolicy.share(), 2, 0);
            this.sender = new AcceptShare<>(page, DIES_AT_SENDMSG, () -> 1L, AcceptPolicy.share(), 2, 1);
            target.bind();
            target.start();
            sender.bind();
            sender.start();
        }

        void send() {
            try {
                sender.sendWith(0, Boolean.TRUE);
            } catch (Killed dead) {
                // stops where it stood: published, raised
            }
        }

        void heal(JJ_Result r) {
            r.r1 = Words.pending(page);
            r.r2 = page.getVolatile(Words.SENDING_1);
        }
    }

    @JCStressTest
    @Description("Heal: SENDING published before the raise, the counts read before SENDING, AtomicLongArrayPage")
    @Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "the heal read before the hand-off began")
    @Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "published, not raised yet: counted as in flight, nothing to take off")
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "raised and published: counted as in flight")
    @Outcome(id = "1, 0", expect = FORBIDDEN, desc = "a live raise read as an orphan: the heal would take it off")
    @Outcome(expect = FORBIDDEN, desc = "a value no actor wrote")
    @State
    public static class ArrayPage {
        final Line line = new Line(Pages.array(2));

        @Actor
        public void sender() {
            line.send();
        }

        @Actor
        public void healer(JJ_Result r) {
            line.heal(r);
        }
    }

    @JCStressTest
    @Description("Heal: SENDING published before the raise, the counts read before SENDING, ByteBufferPage over a mapped file")
    @Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "the heal read before the hand-off began")
    @Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "published, not raised yet: counted as in flight, nothing to take off")
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "raised and published: counted as in flight")
    @Outcome(id = "1, 0", expect = FORBIDDEN, desc = "a live raise read as an orphan: the heal would take it off")
    @Outcome(expect = FORBIDDEN, desc = "a value no actor wrote")
    @State
    public static class MappedPage {
        final Line line = new Line(Pages.mapped(2));

        @Actor
        public void sender() {
            line.send();
        }

        @Actor
        public void healer(JJ_Result r) {
            line.heal(r);
        }
    }

    @JCStressTest
    @Description("Heal with the raise before SENDING (mutant): the heal reads a live raise as orphaned")
    @Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "the heal read before the hand-off began")
    @Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "the counts read before the raise, SENDING after it was published")
    @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "raised and published")
    @Outcome(id = "1, 0", expect = ACCEPTABLE_INTERESTING, desc = "raised, not yet published: why SENDING goes first")
    @Outcome(expect = FORBIDDEN, desc = "a value no actor wrote")
    @State
    public static class RaiseFirstArray {
        final Page page = new Line(Pages.array(2)).page;

        @Actor
        public void sender() {
            page.getAndAdd(Words.COUNTS, Counts.RAISE);
            page.setVolatile(Words.SENDING_1, 1);
        }

        @Actor
        public void healer(JJ_Result r) {
            r.r1 = Words.pending(page);
            r.r2 = page.getVolatile(Words.SENDING_1);
        }
    }
}
