package m0.sim;

import java.util.Arrays;
import m0.core.ForwardingWorkerShare;
import m0.core.WorkerShare;

/**
 * A worker's protocol object as the simulator hands it to the loop: every operation is the
 * protocol's own (the real core, or a mutant), and the ones an oracle judges are watched on the
 * way: a pick (NS, RP and SLOW, on what it read), rebalance's look and move, a look at the listener
 * (FILL), the leave and the start (the oracles' view of the worker's life).
 *
 * <p>{@link #passOn} is not overridden: the interface's own composition of {@link #pick},
 * {@link #sendPicked} (or {@link #sendWith}) and {@link #keptIfUnchanged} (or {@link #kept})
 * runs, as it does in m0serve, so that a mutant changes one of its parts and the pick oracle
 * sees every pick.
 */
final class ObservedShare extends ForwardingWorkerShare<Conn> {

    private final Sim sim;
    private final Worker w;
    private final WorkerShare<Conn> inner;

    ObservedShare(Sim sim, Worker w, WorkerShare<Conn> inner) {
        super(inner);
        this.sim = sim;
        this.w = w;
        this.inner = inner;
    }

    /** When this pass's first pick was made (SLOW judges a pick's target as of then); -1: none yet. */
    private long batchBegan = -1;

    @Override
    public int pick(long open) {
        Actor me = sim.me();
        Arrays.fill(me.stateReadStep, -1);
        if (batchBegan < 0) {
            batchBegan = sim.now();
        }
        int target = inner.pick(open);
        sim.trace(me, "pick(open=" + open + ") -> w" + target);
        if (target != w.index) {
            Oracles.checkPick(sim, me, target, batchBegan);
        }
        return target;
    }

    @Override
    public void passEnd(long open) {
        inner.passEnd(open);
        batchBegan = -1;
    }

    /** A send whose target's counts moved since the pick: traced, so that a trace shows the pick again. */
    @Override
    public int sendPicked(int target, Conn c) {
        int sent = inner.sendPicked(target, c);
        if (sent == m0.core.HandOff.MOVED) {
            sim.trace(sim.me(), "sendPicked(w" + target + ", " + c + ") -> moved: pick again");
        }
        return sent;
    }

    /** Share's gate: each change of mode is counted (SHAPE-FLAP) and traced. */
    @Override
    public void shape(long now, long shortCloses, long reuses) {
        boolean before = inner.policy().balancing();
        inner.shape(now, shortCloses, reuses);
        boolean after = inner.policy().balancing();
        if (after != before) {
            w.shapeSwitches++;
            sim.trace(sim.me(), (after ? "balancing" : "keeping") + " (short closes " + shortCloses + ", reuses "
                    + reuses + ")");
        }
    }

    @Override
    public int rebalancePick(long open, long settled, long affinities) {
        Actor me = sim.me();
        Arrays.fill(me.stateReadStep, -1);
        long lookAt = sim.now(); // rebalance judges a pass as of its look's clock read, its first step
        int target = inner.rebalancePick(open, settled, affinities);
        sim.trace(me, "rebalancePick(open=" + open + ", settled=" + settled
                + (affinities == 0 ? "" : ", affinities=" + Long.toBinaryString(affinities))
                + ") -> w" + target + (inner.settledOnly() ? " (keeping: settled only)" : ""));
        if (target != w.index) {
            Oracles.checkPick(sim, me, target, lookAt);
        }
        return target;
    }

    @Override
    public boolean rebalance(int target, Conn c) {
        boolean moved = inner.rebalance(target, c);
        if (moved) {
            sim.moves++;
        }
        sim.trace(sim.me(), "rebalance(w" + target + ", " + c + ") -> " + (moved ? "moved" : "kept"));
        return moved;
    }

    @Override
    public boolean takeListener(boolean readable) {
        sim.listener.lookStep[w.index] = sim.step;
        boolean take = inner.takeListener(readable);
        if (!take) {
            sim.trace(sim.me(), "leaves the listener until " + Sim.ms(inner.listenDeadline()));
        }
        return take;
    }

    @Override
    public void start() {
        inner.start();
        w.started = true;
        w.startedStep = sim.step;
        w.sampledAt = sim.now;
    }

    /** The loop hands the core its busy time (SAMPLE judges how old the last one is). */
    @Override
    public void sample(long busyNanosTotal, long poolBusyNanosTotal, int poolThreads) {
        inner.sample(busyNanosTotal, poolBusyNanosTotal, poolThreads);
        w.sampledAt = sim.now;
    }

    /** The loop publishes its settled count: what it accepted until now is in it (SETTLED-SEEN). */
    @Override
    public void publishSettled(long settled) {
        inner.publishSettled(settled);
        w.acceptedSincePublish.clear();
    }

    /** A leaver's hand-over: its scan of the siblings begins now (CONN judges its close from here). */
    @Override
    public boolean handOver(Conn connection) {
        w.handOverStep = sim.step;
        return inner.handOver(connection);
    }

    @Override
    public void leave() {
        inner.leave();
        if (!w.left) {
            w.left = true;
            w.leftAt = sim.now;
        }
    }

    @Override
    public void kept(long open) {
        inner.kept(open);
        sim.me().deciding = null; // decided: it is served here from now on (ACTIVE)
    }

    /** A keep whose own counts moved since the pick: traced, so that a trace shows the pick again. */
    @Override
    public boolean keptIfUnchanged(long open) {
        boolean kept = inner.keptIfUnchanged(open);
        if (kept) {
            sim.me().deciding = null;
        } else {
            sim.trace(sim.me(), "keptIfUnchanged -> moved: pick again");
        }
        return kept;
    }
}
