package m0.core.loop;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import m0.core.AcceptPolicy;
import m0.core.AcceptShare;
import m0.core.AtomicLongArrayPage;
import m0.core.Channel;
import m0.core.FakeClock;
import m0.core.QueueChannel;
import m0.core.WorkerShare;
import m0.core.loop.FakePorts.FakeChannels;
import m0.core.loop.FakePorts.FakeConnections;
import m0.core.loop.FakePorts.FakeListener;

/**
 * Workers over one page, one channel and one backlog, each with its real core, fake ports and
 * its loop, started: what the loop's tests arrange.
 */
final class LoopRig {

    static final long MS = 1_000_000L;

    final FakeClock clock;
    /** Run before each accept takes a connection from the backlog: lets a test read the page at that point. */
    Runnable onAccept = () -> { };
    final ArrayDeque<String> backlog = new ArrayDeque<>() {
        @Override
        public String poll() {
            if (!isEmpty()) {
                onAccept.run();
            }
            return super.poll();
        }
    };
    final List<String> failures = new ArrayList<>();
    final AtomicLongArrayPage page;
    final QueueChannel<String> channel;
    final List<Worker> workers = new ArrayList<>();
    private final int n;
    /** While set, every send throws, as a port does with an errno it does not turn into a refusal. */
    boolean sendThrows;
    /** Run before each send reaches the channel: lets a test read the page at that point. */
    Runnable onSend = () -> { };

    private final Channel<String> sends = new Channel<>() {
        @Override
        public boolean send(int target, String connection) {
            onSend.run();
            if (sendThrows) {
                throw new IllegalStateException("sendmsg: EBADF");
            }
            return channel.send(target, connection);
        }

        @Override
        public String receive(int index) {
            return channel.receive(index);
        }

        @Override
        public boolean lost(String received) {
            return channel.lost(received);
        }
    };

    /** One worker: its core, its ports and its loop. */
    final class Worker {
        final AcceptShare<String> share;
        final FakeListener listener = new FakeListener(backlog);
        final FakeConnections connections = new FakeConnections();
        final FakeChannels channels = new FakeChannels();
        final WorkerLoop<String> loop;

        Worker(int self, int n, String policy, WorkerLoop.Limits limits) {
            share = new AcceptShare<>(page, sends, clock, AcceptPolicy.named(policy), n, self);
            loop = new WorkerLoop<>(share, listener, connections, channels, clock, limits, failures::add);
        }

        /** One pass: the wait reported these, nothing else. */
        boolean pass(boolean channelReadable, boolean listenerReadable) {
            loop.begin();
            return loop.end(channelReadable, listenerReadable);
        }

        /** One pass in which the connections had work (a request answered). */
        boolean workPass() {
            loop.begin();
            loop.work();
            return loop.end(false, false);
        }

        /** A second loop over this worker's ports and {@code core} (a stand-in over its share), started. */
        WorkerLoop<String> loopOver(WorkerShare<String> core, WorkerLoop.Limits limits) {
            WorkerLoop<String> other = new WorkerLoop<>(core, listener, connections, channels, clock, limits,
                    failures::add);
            other.listen();
            other.start();
            return other;
        }
    }

    /** {@code n} workers of {@code policy}, bound, listening and started, at clock {@code t0}. */
    LoopRig(long t0, int n, String policy, WorkerLoop.Limits limits) {
        this(t0, n, 16, policy, limits);
    }

    /** The same with each worker's channel holding at most {@code capacity}. */
    LoopRig(long t0, int n, int capacity, String policy, WorkerLoop.Limits limits) {
        this(t0, n, capacity);
        startAll(policy, limits, false);
    }

    /** The page, channel and clock of {@code n} workers and no worker yet: a test makes its own ({@link #unstarted}). */
    LoopRig(long t0, int n, int capacity) {
        this.n = n;
        clock = new FakeClock(t0);
        page = AtomicLongArrayPage.forWorkers(n);
        channel = new QueueChannel<>(n, capacity);
    }

    /** As {@link #LoopRig(long, int, String, WorkerLoop.Limits)}, each loop told to defer on churn before it starts (ADR 0056). */
    static LoopRig deferring(long t0, int n, String policy, WorkerLoop.Limits limits) {
        LoopRig rig = new LoopRig(t0, n, 16);
        rig.startAll(policy, limits, true);
        return rig;
    }

    private void startAll(String policy, WorkerLoop.Limits limits, boolean deferOnChurn) {
        for (int i = 0; i < n; i++) {
            Worker w = unstarted(i, policy, limits);
            w.share.bind();
            w.loop.listen();
            if (deferOnChurn) {
                w.loop.deferOnChurn();
            }
            w.loop.start();
            workers.add(w);
        }
    }

    /** Worker {@code self} over this rig's page and channel: neither bound, listening nor started, nor in {@link #workers}. */
    Worker unstarted(int self, String policy, WorkerLoop.Limits limits) {
        return new Worker(self, n, policy, limits);
    }

    Worker worker(int i) {
        return workers.get(i);
    }

    static WorkerLoop.Limits limits(int batch, long cap) {
        return new WorkerLoop.Limits(batch, cap, 10_000 * MS);
    }

    void backlog(int n) {
        for (int k = 0; k < n; k++) {
            backlog.add("c" + (k + 1));
        }
    }
}
