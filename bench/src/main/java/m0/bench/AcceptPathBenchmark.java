package m0.bench;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import m0.core.AcceptPolicy;
import m0.core.AcceptShare;
import m0.core.AtomicLongArrayPage;
import m0.core.ByteBufferPage;
import m0.core.Channel;
import m0.core.Page;
import m0.core.PageLayout;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the core adds to one accept: a pass with one accepted connection through
 * {@code passStart, passOn, passEnd}, for the arms the server can run. The page is the
 * server's kind (a direct buffer) or the in-process one.
 *
 * <ul>
 *   <li>{@code race}: two workers, the bare race: every entry point one boolean check.
 *   <li>{@code oneWorker}: one worker, share policy: likewise.
 *   <li>{@code share}: two workers, share, the channel refusing so the connection stays home
 *       and nothing accumulates: pick (a rotation getAndAdd and a sibling's words), the hand-off
 *       published and raised, a state read, the refused send and its take-back, the pass's stores.
 *   <li>{@code handOff}: two workers, share, the send going through, and worker 1's pass that
 *       receives it (its receipt, the EAGAIN after it) and retires it: a whole hand-off in the
 *       core, both sides, with the syscalls replaced by a one-slot queue.
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class AcceptPathBenchmark {

    @Param({"race", "oneWorker", "share", "handOff"})
    public String arm;

    @Param({"buffer", "array"})
    public String page;

    private AcceptShare<Object> worker;
    private AcceptShare<Object> receiver;
    private final Object connection = new Object();

    /** One slot per worker: what was sent and not yet received. */
    private final Object[] slots = new Object[2];

    @Setup(Level.Trial)
    public void setUp() {
        int workers = arm.equals("oneWorker") ? 1 : 2;
        Page p = page.equals("buffer")
                ? new ByteBufferPage(ByteBuffer.allocateDirect(PageLayout.slots(workers) * 8))
                : AtomicLongArrayPage.forWorkers(workers);
        boolean sends = arm.equals("handOff");
        Channel<Object> channel = new Channel<>() {
            @Override
            public boolean send(int target, Object c) {
                if (!sends || slots[target] != null) {
                    return false;
                }
                slots[target] = c;
                return true;
            }

            @Override
            public Object receive(int index) {
                Object c = slots[index];
                slots[index] = null;
                return c;
            }
        };
        AcceptPolicy policy = arm.equals("race") ? AcceptPolicy.race() : AcceptPolicy.share();
        for (int i = workers - 1; i >= 0; i--) {
            worker = new AcceptShare<>(p, channel, System::nanoTime, policy, workers, i);
            worker.bind();
            worker.start();
            if (i == 1) {
                receiver = worker;
            }
        }
        // Worker 0 is the acceptor; with open = 1 the idle sibling is always the pick.
    }

    @Benchmark
    public boolean onePassOneAccept() {
        worker.passStart();
        boolean passed = worker.passOn(connection, 1);
        worker.passEnd(1);
        if (passed) {
            receiver.passStart();
            Object c = receiver.receive();
            if (c == null || receiver.receive() != null) {
                throw new IllegalStateException("the hand-off did not arrive once");
            }
            receiver.passEnd(0); // served and closed: worker 1 stays the lighter one
        }
        return passed;
    }
}
