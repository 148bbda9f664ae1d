package m0.lincheck;

import m0.core.AcceptPolicy;
import m0.core.AcceptShare;
import m0.core.AtomicLongArrayPage;
import m0.core.Clock;
import m0.core.Counts;
import m0.core.HandOff;
import m0.core.PageLayout;
import m0.core.Siblings;
import org.jetbrains.lincheck.LincheckAssertionError;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The page's counters as a data structure, checked by Lincheck's operation API: senders
 * (any thread) hand connections to worker 1 through the core's sendWith into a channel of 2,
 * worker 1 (one thread: its loop) runs passes that receive and retire them, worker 0 picks
 * (reading the counters as they move, and taking the rotation).
 *
 * <p>A validation function, not a sequential specification, is the check: a pass drains while
 * senders refill the channel and a pick reads a raise that a refused send will take back, so
 * no atomic model fits the operations' results (the protocol tolerates exactly that
 * transient). What must hold at every quiescent point is the accounting: pending equals what
 * is queued, taken is 0, and every connection a sender let go is served or queued.
 */
public class PageCountersTest {

    private static final int CAPACITY = 2;
    private static final Clock CLOCK = () -> 1_000_000_000L;

    final AtomicLongArrayPage page = AtomicLongArrayPage.forWorkers(2);
    final RingChannel<Object> channel = new RingChannel<>(2, CAPACITY);
    private final Siblings siblings = new Siblings(page, CLOCK, 2);
    private final AcceptShare<Object> worker0 = new AcceptShare<>(page, channel, CLOCK, AcceptPolicy.share(), 2, 0);
    private final AcceptShare<Object> worker1 = new AcceptShare<>(page, channel, CLOCK, AcceptPolicy.share(), 2, 1);
    private long open1;
    private final java.util.concurrent.atomic.AtomicLong sent = new java.util.concurrent.atomic.AtomicLong();

    public PageCountersTest() {
        worker0.start();
        worker1.start();
    }

    /** A sibling's sendWith (each sender owns its HandOff); refused, the sender keeps it. */
    @Operation
    public void handOff() {
        if (send(new Object())) {
            sent.incrementAndGet();
        }
    }

    /** The core's sendWith; {@link R5Mutant} overrides it with the historical order. */
    boolean send(Object connection) {
        // Senders on any thread share one SENDING word: nothing reads it here (no reap, no heal).
        return new HandOff<>(page, channel, siblings, PageLayout.SUPERVISOR_SENDING_WORD).sendWith(1, connection);
    }

    /** One pass of worker 1's loop: receive to EAGAIN, admit, retire at the end. */
    @Operation(nonParallelGroup = "worker1")
    public void pass() {
        worker1.passStart();
        int n = 0;
        while (worker1.receive() != null) {
            n++;
            // R5 at the page: only this loop moves taken[1], and a sender lowers pending[1]
            // only to take back its own raise, so pending >= taken + queued >= taken holds
            // whenever this thread looks.
            long counts = page.getVolatile(PageLayout.countsWord(1));
            long pending = Counts.pending(counts);
            long taken = Counts.taken(counts);
            if (pending < taken) {
                throw new IllegalStateException("IN-FLIGHT: worker 1 holds " + taken
                        + " taken but pending is " + pending);
            }
        }
        open1 += n;
        worker1.passEnd(open1);
    }

    /** Worker 0 picks for a fresh accept: it reads worker 1's counters while they move. */
    @Operation(nonParallelGroup = "worker0")
    public void pick() {
        int target = worker0.pick(1);
        if (target != 0 && target != 1) {
            throw new IllegalStateException("picked " + target);
        }
    }

    /** Quiescent: pending - taken is exactly what is queued; every pass retired what it took. */
    @Validate
    public void countersAccountForTheChannel() {
        long counts = page.getVolatile(PageLayout.countsWord(1));
        long pending = Counts.pending(counts);
        long taken = Counts.taken(counts);
        int queued = channel.queued(1);
        if (taken != 0 || pending != queued) {
            throw new IllegalStateException("worker 1: pending " + pending + ", taken " + taken
                    + ", queued " + queued);
        }
        if (open1 + queued != sent.get()) {
            throw new IllegalStateException("worker 1 served " + open1 + " and has " + queued
                    + " queued, but senders let go of " + sent.get());
        }
        if (page.getVolatile(PageLayout.countsWord(0)) != 0) {
            throw new IllegalStateException("worker 0 was handed nothing, yet its counters moved");
        }
    }

    /** R5 reverted: the send first, pending raised only after it succeeded. */
    public static class R5Mutant extends PageCountersTest {
        @Override
        boolean send(Object connection) {
            if (!channel.send(1, connection)) {
                return false;
            }
            page.getAndAdd(PageLayout.countsWord(1), Counts.RAISE);
            return true;
        }
    }

    private static ModelCheckingOptions options() {
        return new ModelCheckingOptions()
                .iterations(Integer.getInteger("lincheck.operationIterations", 10))
                .invocationsPerIteration(Integer.getInteger("lincheck.operationInvocations", 200))
                .threads(3)
                .actorsPerThread(2)
                .actorsBefore(1)
                .actorsAfter(1);
    }

    @Test
    void countersBalanceUnderPickSendWithAndRetire() {
        long t0 = System.nanoTime();
        options().check(PageCountersTest.class);
        System.out.printf("[lincheck] @Operation page counters: %d scenarios x %d invocations, balanced, %.1f s%n",
                Integer.getInteger("lincheck.operationIterations", 10),
                Integer.getInteger("lincheck.operationInvocations", 200), (System.nanoTime() - t0) / 1e9);
    }

    @Test
    void r5MutantIsCaughtByTheOperationTest() {
        long t0 = System.nanoTime();
        LincheckAssertionError caught = assertThrows(LincheckAssertionError.class,
                () -> options().check(R5Mutant.class),
                "the R5 mutant's hand-off passed the @Operation test");
        String report = caught.getMessage();
        assertTrue(report.contains("IN-FLIGHT"), "caught for another reason: " + report);
        Traces.save("R5-operation-mutant", report);
        int cut = report.indexOf("Detailed trace:");
        System.out.printf("[lincheck] @Operation R5 mutant caught in %.1f s:%n%s%n",
                (System.nanoTime() - t0) / 1e9, cut > 0 ? report.substring(0, cut).strip() : report);
    }
}
