package m0.sim;

import m0.core.AcceptPolicy;
import m0.core.loop.Channels;
import m0.core.loop.Listener;
import m0.core.loop.WorkerLoop;

/**
 * The worker loop's own decisions undone (issue 45), test code only. The loop is core's final
 * class and runs unmodified; each mutant changes what one decision acts on, at the port the loop
 * reads it from (the core's answer, the listener's or the channel's report, the limits), so that
 * the loop does what it would with that decision removed or inverted. The source-level versions
 * of the same and of the rest run against the simulator's tests in {@code sim/loop-mutants.py}.
 */
final class LoopMutants {

    private LoopMutants() {
    }

    /** The real core under fountain, its loop's ports and limits as the mutant gives them. */
    private abstract static class Fountain implements Protocol {
        private final String name;

        Fountain(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public m0.core.WorkerShare<Conn> worker(Ports p, int self) {
            return Protocol.Core.worker(p, self, AcceptPolicy.fountain());
        }

        @Override
        public SupervisorOps<Conn> supervisor(Ports p) {
            return Protocol.core().supervisor(p);
        }
    }

    /**
     * The batch end ignored where the core says END_BATCH (WorkerLoop's {@code next != GO_ON}
     * written {@code next > GO_ON}): a full worker ends its batch only when it has a sibling to
     * nudge, and otherwise takes the rest of its batch from a sibling that is taking.
     */
    static final Protocol BATCH_PAST_END = Mutants.worker("mutant-batch-past-end",
            (p, self) -> new Mutants.WorkerMutant(p, self, Protocol.Core.worker(p, self, AcceptPolicy.fountain())) {
                @Override
                public int endBatch() {
                    int next = real.endBatch();
                    return next > AcceptPolicy.GO_ON ? next : AcceptPolicy.GO_ON;
                }
            });

    /** The batch ends where the core names a sibling, but the nudge is never sent. */
    static final Protocol NO_NUDGE = Mutants.worker("mutant-no-nudge",
            (p, self) -> new Mutants.WorkerMutant(p, self, Protocol.Core.worker(p, self, AcceptPolicy.fountain())) {
                @Override
                public int endBatch() {
                    int next = real.endBatch();
                    return next >= 0 ? AcceptPolicy.END_BATCH : next;
                }
            });

    /** The drain swallows a nudge and makes no look due: the nudged worker waits for its look. */
    static final Protocol NUDGE_UNSEEN = new Fountain("mutant-nudge-unseen") {
        @Override
        public Channels channels(Channels port) {
            return new Channels() {
                @Override
                public void nudge(int target) {
                    port.nudge(target);
                }

                @Override
                public boolean nudged() {
                    port.nudged(); // taken off the channel, and not acted on
                    return false;
                }

                @Override
                public void stopWatching() {
                    port.stopWatching();
                }
            };
        }
    };

    /** No connection cap: the loop accepts whatever it holds. */
    static final Protocol NO_CAP = new Fountain("mutant-no-cap") {
        @Override
        public WorkerLoop.Limits limits(WorkerLoop.Limits world) {
            return new WorkerLoop.Limits(world.acceptBatch(), Long.MAX_VALUE, world.graceNanos());
        }
    };

    /**
     * EMFILE taken for a per-connection error (ECONNABORTED): no back-off, the listener stays
     * in, and the HELD mark is never published.
     */
    static final Protocol NO_BACKOFF = new Fountain("mutant-no-backoff") {
        @Override
        public Listener<Conn> listener(Listener<Conn> port) {
            return new Listener<>() {
                @Override
                public Conn accept() {
                    return port.accept();
                }

                @Override
                public boolean outOfDescriptors(RuntimeException failure) {
                    return false;
                }

                @Override
                public boolean readable() {
                    return port.readable();
                }

                @Override
                public void listen(boolean in) {
                    port.listen(in);
                }

                @Override
                public void deferAccept(boolean on) {
                    port.deferAccept(on);
                }

                @Override
                public void close() {
                    port.close();
                }
            };
        }
    };

    /**
     * No heal look while sharing and idle (WorkerLoop's {@code HEAL_LOOK_NANOS}, both in the
     * wait's cap and as its only timer): the loop reads {@code sharing()} in {@code timeout()}
     * alone once it has started, so the core answers it no there and only there (the constructor,
     * before the start, still reads yes: the shape and the sample are the loop's as before).
     */
    static final Protocol NO_HEAL_LOOK = Mutants.worker("mutant-no-heal-look",
            (p, self) -> new Mutants.WorkerMutant(p, self) {
                private boolean started;

                @Override
                public void start() {
                    real.start();
                    started = true;
                }

                @Override
                public boolean sharing() {
                    return !started && real.sharing();
                }
            });

    /**
     * The settled count published after the pass end's retire (ADR 0059 undone): the loop's two
     * calls reach the core in the other order, so a moved connection leaves pending before the
     * receiver's count says it is there.
     */
    static final Protocol SETTLED_AFTER_RETIRE = Mutants.worker("mutant-settled-after-retire",
            (p, self) -> new Mutants.WorkerMutant(p, self) {
                private long settled = -1;

                @Override
                public void publishSettled(long n) {
                    settled = n; // held until the retire has run
                }

                @Override
                public void passEnd(long open) {
                    real.passEnd(open);
                    if (settled >= 0) {
                        real.publishSettled(settled);
                        settled = -1;
                    }
                }
            });
}
