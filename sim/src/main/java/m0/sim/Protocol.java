package m0.sim;

import java.util.function.Consumer;
import m0.core.AcceptPolicy;
import m0.core.AcceptShare;
import m0.core.GiveUp;
import m0.core.Rebalance;
import m0.core.SupervisorShare;
import m0.core.WorkerShare;

/** Makes each process's protocol objects over the simulated ports. */
public interface Protocol {

    String name();

    /** Worker {@code self}'s side of the protocol, which its loop (the core's WorkerLoop) drives. */
    WorkerShare<Conn> worker(Ports ports, int self);

    SupervisorOps<Conn> supervisor(Ports ports);

    /**
     * How the workers register the listener in their epoll: {@code registered} is what the
     * policy asks for ({@link AcceptPolicy#wakesOne()}); a mutant may register it wrongly (test
     * code only).
     */
    default ListenerWake listenerWake(ListenerWake registered) {
        return registered;
    }

    /**
     * The loop's ports and limits as the world gives them: a mutant may hand the loop a port
     * that misreports what the loop decides on (an EMFILE it does not call one, a nudge it
     * does not report) or limits it ignores, so that one of the loop's decisions is removed
     * without touching the loop (test code only, issue 45). The oracles judge the world's own.
     */
    default m0.core.loop.Listener<Conn> listener(m0.core.loop.Listener<Conn> port) {
        return port;
    }

    default m0.core.loop.Channels channels(m0.core.loop.Channels port) {
        return port;
    }

    default m0.core.loop.WorkerLoop.Limits limits(m0.core.loop.WorkerLoop.Limits world) {
        return world;
    }

    /** The real, unmodified core. */
    static Protocol core() {
        return Core.INSTANCE;
    }

    /** The real core, as mutants wrap it. */
    final class Core implements Protocol {
        static final Core INSTANCE = new Core();

        @Override
        public String name() {
            return "core";
        }

        @Override
        public WorkerShare<Conn> worker(Ports p, int self) {
            return worker(p, self, AcceptPolicy.share());
        }

        /** The core with another pick policy (a mutant's pick); rebalance as the world runs it. */
        public static WorkerShare<Conn> worker(Ports p, int self, AcceptPolicy policy) {
            return worker(p, self, policy, p.rebalance
                    ? new Rebalance(AcceptShare.REBALANCE_DEAD_BAND, AcceptShare.REBALANCE_INTERVAL_NANOS)
                    : Rebalance.off());
        }

        /** The core with other rebalance rules (a mutant's thresholds). */
        public static WorkerShare<Conn> worker(Ports p, int self, AcceptPolicy policy, Rebalance rebalance) {
            return new AcceptShare<>(p.page, p.channel, p.clock, policy, p.workers, self,
                    AcceptShare.LEAVE_DRAIN_NANOS, rebalance);
        }

        @Override
        public SupervisorOps<Conn> supervisor(Ports p) {
            SupervisorShare<Conn> share = new SupervisorShare<>(p.page, p.channel, p.clock, p.workers, true);
            return new SupervisorOps<>() {
                @Override
                public void markReaped(int index) {
                    share.markReaped(index);
                }

                @Override
                public void markReaped(int index, boolean replacing) {
                    share.markReaped(index, replacing);
                }

                @Override
                public void spawning(int index) {
                    share.spawning(index);
                }

                @Override
                public void started(int index) {
                    share.started(index);
                }

                @Override
                public boolean startSeen(int index) {
                    return share.startSeen(index);
                }

                @Override
                public Drain<Conn> giveUp(int index) {
                    GiveUp<Conn> g = share.giveUp(index);
                    return new Drain<>() {
                        @Override
                        public boolean step(Consumer<? super Conn> close) {
                            return g.step(close);
                        }

                        @Override
                        public int watch(Consumer<? super Conn> close) {
                            return g.watch(close);
                        }
                    };
                }
            };
        }
    }
}
