package m0.sim;

import java.util.function.Consumer;
import m0.core.AcceptPolicy;
import m0.core.AcceptShare;
import m0.core.GiveUp;
import m0.core.Rebalance;
import m0.core.SupervisorShare;

/** Makes each process's protocol objects over the simulated ports. */
public interface Protocol {

    String name();

    WorkerOps<Conn> worker(Ports ports, int self);

    SupervisorOps<Conn> supervisor(Ports ports);

    /**
     * How the workers register the listener in their epoll: {@code registered} is what the
     * scenario's server does; a mutant may register it wrongly (test code only).
     */
    default ListenerWake listenerWake(ListenerWake registered) {
        return registered;
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
        public WorkerOps<Conn> worker(Ports p, int self) {
            return worker(p, self, AcceptPolicy.share());
        }

        /** The core with another pick policy (a mutant's pick). */
        public static WorkerOps<Conn> worker(Ports p, int self, AcceptPolicy policy) {
            return worker(p, self, policy, new Rebalance(AcceptShare.REBALANCE_DEAD_BAND,
                    AcceptShare.REBALANCE_INTERVAL_NANOS));
        }

        /** The core with other rebalance rules (a mutant's thresholds). */
        public static WorkerOps<Conn> worker(Ports p, int self, AcceptPolicy policy, Rebalance rebalance) {
            AcceptShare<Conn> share = new AcceptShare<>(p.page, p.channel, p.clock, policy, p.workers, self,
                    AcceptShare.LEAVE_DRAIN_NANOS, rebalance);
            return new WorkerOps<>() {
                @Override
                public void bind() {
                    share.bind();
                }

                @Override
                public void start() {
                    share.start();
                }

                @Override
                public void passStart() {
                    share.passStart();
                }

                @Override
                public void work() {
                    share.work();
                }

                @Override
                public void passEnd(long open) {
                    share.passEnd(open);
                }

                @Override
                public int pick(long open) {
                    return share.pick(open);
                }

                @Override
                public boolean sendWith(int target, Conn connection) {
                    return share.sendWith(target, connection);
                }

                @Override
                public Conn receive() {
                    return share.receive();
                }

                @Override
                public void leave() {
                    share.leave();
                }

                @Override
                public boolean leaveStep(Consumer<? super Conn> admit) {
                    return share.leaveStep(admit);
                }

                @Override
                public void sample(long busyNanosTotal) {
                    share.sample(busyNanosTotal);
                }

                @Override
                public boolean takeListener(boolean readable) {
                    return share.takeListener(readable);
                }

                @Override
                public long listenDeadline() {
                    return share.listenDeadline();
                }

                @Override
                public int rebalancePick(long open) {
                    return share.rebalancePick(open);
                }

                @Override
                public boolean rebalance(int target, Conn connection) {
                    return share.rebalance(target, connection);
                }

                @Override
                public boolean handOver(Conn connection) {
                    return share.handOver(connection);
                }

                @Override
                public boolean healDue() {
                    return share.healDue();
                }

                @Override
                public boolean healRequested() {
                    return share.healRequested();
                }
            };
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
