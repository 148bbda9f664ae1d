package m0.sim;

import java.util.function.Consumer;
import m0.core.AcceptPolicy;
import m0.core.AcceptShare;
import m0.core.PageLayout;
import m0.core.Rebalance;
import m0.core.Siblings;

/**
 * Each correction of the seed undone: a protocol that delegates everything to the real core
 * except one operation, reimplemented with the historical ordering through the same ports.
 * Test code only; the core is never touched.
 */
final class Mutants {

    private Mutants() {
    }

    /** Delegates every worker operation to the real core; a mutant overrides one. */
    abstract static class WorkerMutant implements WorkerOps<Conn> {
        final WorkerOps<Conn> real;
        final Ports p;
        final int self;

        WorkerMutant(Ports p, int self) {
            this(p, self, Protocol.Core.worker(p, self, AcceptPolicy.share()));
        }

        WorkerMutant(Ports p, int self, WorkerOps<Conn> real) {
            this.real = real;
            this.p = p;
            this.self = self;
        }

        @Override
        public void bind() {
            real.bind();
        }

        @Override
        public void start() {
            real.start();
        }

        @Override
        public void passStart() {
            real.passStart();
        }

        @Override
        public void work() {
            real.work();
        }

        @Override
        public void passEnd(long open) {
            real.passEnd(open);
        }

        @Override
        public int pick(long open) {
            return real.pick(open);
        }

        @Override
        public boolean sendWith(int target, Conn c) {
            return real.sendWith(target, c);
        }

        @Override
        public Conn receive() {
            return real.receive();
        }

        @Override
        public void leave() {
            real.leave();
        }

        @Override
        public boolean leaveStep(Consumer<? super Conn> admit) {
            return real.leaveStep(admit);
        }

        @Override
        public void sample(long busyNanosTotal) {
            real.sample(busyNanosTotal);
        }

        @Override
        public boolean takeListener(boolean readable) {
            return real.takeListener(readable);
        }

        @Override
        public long listenDeadline() {
            return real.listenDeadline();
        }

        @Override
        public int rebalancePick(long open) {
            return real.rebalancePick(open);
        }

        @Override
        public boolean rebalance(int target, Conn c) {
            return real.rebalance(target, c);
        }

        @Override
        public boolean handOver(Conn c) {
            return real.handOver(c);
        }
    }

    interface WorkerFactory {
        WorkerOps<Conn> make(Ports p, int self);
    }

    static Protocol worker(String name, WorkerFactory f) {
        return new Protocol() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public WorkerOps<Conn> worker(Ports p, int self) {
                return f.make(p, self);
            }

            @Override
            public SupervisorOps<Conn> supervisor(Ports p) {
                return Protocol.core().supervisor(p);
            }
        };
    }

    /** R5 undone: pending raised only after the datagram was queued (the pre-#434 send_fd). */
    static final Protocol R5 = worker("mutant-R5", (p, self) -> new WorkerMutant(p, self) {
        @Override
        public boolean sendWith(int target, Conn c) {
            if (!p.channel.send(target, c)) {
                return false;
            }
            p.page.getAndAdd(PageLayout.pendingWord(target), 1);
            return true;
        }
    });

    /** B25 send side undone: raise, then send without reading the target's state again. */
    static final Protocol B25_SEND = worker("mutant-B25-send", (p, self) -> new WorkerMutant(p, self) {
        @Override
        public boolean sendWith(int target, Conn c) {
            int pending = PageLayout.pendingWord(target);
            p.page.getAndAdd(pending, 1);
            if (!p.channel.send(target, c)) {
                p.page.getAndAdd(pending, -1);
                return false;
            }
            return true;
        }
    });

    /** B25 idle side undone: the leaver admits what its drain meets and closes it as idle. */
    static final Protocol B25_IDLE = worker("mutant-B25-idle", (p, self) -> new WorkerMutant(p, self) {
        private long deadline;

        @Override
        public boolean leaveStep(Consumer<? super Conn> admit) {
            if (deadline == 0) {
                deadline = p.clock.nanoTime() + m0.core.AcceptShare.LEAVE_DRAIN_NANOS;
            }
            int taken = PageLayout.takenWord(self);
            int pending = PageLayout.pendingWord(self);
            long n = 0;
            Conn c;
            while ((c = p.channel.receive(self)) != null) {
                p.page.getAndAdd(taken, 1);
                n++;
                p.closeIdle(c); // admitted, no first byte yet, and the leaver closes idle connections
            }
            if (n > 0) {
                p.page.getAndAdd(taken, -n);
                p.page.getAndAdd(pending, -n);
            }
            long inFlight = p.page.getVolatile(pending) - p.page.getVolatile(taken);
            return inFlight > 0 && p.clock.nanoTime() - deadline < 0;
        }
    });

    /** TAKEN undone: start forgets the predecessor's receipts instead of retiring them. */
    static final Protocol TAKEN = worker("mutant-TAKEN", (p, self) -> new WorkerMutant(p, self) {
        @Override
        public void start() {
            p.page.setVolatile(PageLayout.takenWord(self), 0);
            p.page.setVolatile(PageLayout.stateWord(self), PageLayout.PARKED);
        }
    });

    /**
     * The core's deliberate deviation undone: a retire lowers pending BEFORE taken (DESIGN's
     * textual order), so between the two words pending - taken drops below what is in flight.
     */
    static final Protocol RETIRE_ORDER = worker("mutant-retire-order", (p, self) -> new WorkerMutant(p, self) {
        private long received;
        private boolean left;

        @Override
        public Conn receive() {
            if (left) {
                return real.receive();
            }
            Conn c = p.channel.receive(self);
            if (c != null) {
                p.page.getAndAdd(PageLayout.takenWord(self), 1);
                received++;
            }
            return c;
        }

        @Override
        public void leave() {
            left = true;
            real.leave();
        }

        @Override
        public void passEnd(long open) {
            p.page.setVolatile(PageLayout.activeWord(self), open);
            p.page.setVolatile(PageLayout.stateWord(self), PageLayout.PARKED);
            long n = received;
            received = 0;
            if (n > 0) {
                p.page.getAndAdd(PageLayout.pendingWord(self), -n);
                p.page.getAndAdd(PageLayout.takenWord(self), -n);
            }
        }
    });

    /** NS undone: pick reads a sibling that has not started as parked (0 was parked). */
    static final Protocol NS = picking("mutant-NS", (siblings, me, open) -> {
        int workers = siblings.workers();
        int choice = me;
        long best = open + siblings.pending(me);
        int start = siblings.rotationStart();
        for (int k = 0; k < workers; k++) {
            int i = (start + k) % workers;
            if (i == me) {
                continue;
            }
            long state = siblings.state(i);
            if (state == PageLayout.LEFT) { // NOT_STARTED no longer skipped
                continue;
            }
            if (state > 0 && Siblings.slowPass(state, siblings.now())) {
                continue;
            }
            long load = siblings.load(i);
            if (load < best) {
                best = load;
                choice = i;
            }
        }
        return choice;
    });

    /** The pick of a mutant policy; everything else is the real core's. */
    interface Pick {
        int pick(Siblings siblings, int me, long open);
    }

    /** A sharing protocol whose pick is {@code pick}: the mutants of pick. */
    static Protocol picking(String name, Pick pick) {
        return worker(name, (p, self) -> Protocol.Core.worker(p, self, new AcceptPolicy() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public boolean shares() {
                return true;
            }

            @Override
            public int pick(Siblings siblings, int me, long open) {
                return pick.pick(siblings, me, open);
            }
        }));
    }

    static Protocol supervisor(String name, java.util.function.Function<Ports, SupervisorOps<Conn>> f) {
        return new Protocol() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public WorkerOps<Conn> worker(Ports p, int self) {
                return Protocol.core().worker(p, self);
            }

            @Override
            public SupervisorOps<Conn> supervisor(Ports p) {
                return f.apply(p);
            }
        };
    }

    /**
     * Delegates every supervisor operation to the real core; a mutant overrides one. A reap
     * that replaces goes to the core whole (it counts the replacement before its LEFT); one that
     * does not goes through {@link #markReaped(int)}, which the RP mutant overrides.
     */
    abstract static class SupervisorMutant implements SupervisorOps<Conn> {
        final SupervisorOps<Conn> real;

        SupervisorMutant(Ports p) {
            this.real = Protocol.core().supervisor(p);
        }

        @Override
        public void markReaped(int index) {
            real.markReaped(index);
        }

        @Override
        public void markReaped(int index, boolean replacing) {
            if (replacing) {
                real.markReaped(index, true);
            } else {
                markReaped(index);
            }
        }

        @Override
        public void spawning(int index) {
            real.spawning(index);
        }

        @Override
        public void started(int index) {
            real.started(index);
        }

        @Override
        public Drain<Conn> giveUp(int index) {
            return real.giveUp(index);
        }
    }

    /** RP undone: the supervisor reaps without marking the index LEFT. */
    static final Protocol RP = supervisor("mutant-RP", p -> new SupervisorMutant(p) {
        @Override
        public void markReaped(int index) {
            // the historical _remove_pid: nothing written
        }
    });

    /** RB undone: giving up on an index leaves what was queued to it in its channel. */
    static final Protocol RB = supervisor("mutant-RB", p -> new SupervisorMutant(p) {
        @Override
        public Drain<Conn> giveUp(int index) {
            return close -> false; // no drain: the queued hand-offs wait until the server stops
        }
    });

    /**
     * A supervisor that does not count the workers it spawns as starting (as before): a leaver
     * with no live sibling cannot tell that one is coming and closes what it holds unserved.
     */
    static final Protocol NO_STARTING_COUNT = supervisor("mutant-no-starting", p -> new SupervisorMutant(p) {
        @Override
        public void markReaped(int index, boolean replacing) {
            real.markReaped(index);
        }

        @Override
        public void spawning(int index) {
        }

        @Override
        public void started(int index) {
        }
    });

    /**
     * No watch: the supervisor stops reading a given-up channel once its drain is done, so a
     * send that stalled past the bound strands there (LATE-SEND).
     */
    static final Protocol NO_WATCH = supervisor("mutant-no-watch", p -> new SupervisorMutant(p) {
        @Override
        public Drain<Conn> giveUp(int index) {
            return real.giveUp(index)::step; // the drain, and no watch after it
        }
    });

    /**
     * A pick that ignores pending: a sibling's load is its published active count alone. Safe
     * (nothing is lost), and wrong: connections in flight to a sibling are not counted, so a
     * burst lands on it. Only a balance rule sees it.
     */
    static final Protocol PICK_IGNORES_PENDING = picking("mutant-no-pending", (siblings, me, open) -> {
        int best = me;
        long bestLoad = open;
        for (int i = 0; i < siblings.workers(); i++) {
            long state = siblings.state(i);
            if (i == me || state == PageLayout.LEFT || state == PageLayout.NOT_STARTED) {
                continue;
            }
            long load = siblings.active(i);
            if (load < bestLoad) {
                best = i;
                bestLoad = load;
            }
        }
        return best;
    });

    /** A pick that always keeps (the bare race under a share page): a burst stays where it lands. */
    static final Protocol KEEPS_EVERYTHING = worker("mutant-keeps-all",
            (p, self) -> Protocol.Core.worker(p, self, AcceptPolicy.race()));

    /**
     * The leaver's forward skips a sibling inside a slow pass, as pick does: with the only live
     * sibling slow, the leaver admits a fresh hand-off and closes it as idle (B25-idle).
     */
    static final Protocol FORWARD_SKIPS_SLOW = worker("mutant-fwd-skips-slow", (p, self) -> new WorkerMutant(p, self) {
        private final Siblings siblings = new Siblings(p.page, p.clock, p.workers);
        private final m0.core.HandOff<Conn> handOff = new m0.core.HandOff<>(p.page, p.channel, siblings);
        private long deadline;

        @Override
        public void leave() {
            real.leave();
            deadline = p.clock.nanoTime() + m0.core.AcceptShare.LEAVE_DRAIN_NANOS;
        }

        @Override
        public boolean leaveStep(Consumer<? super Conn> admit) {
            int taken = PageLayout.takenWord(self);
            int pending = PageLayout.pendingWord(self);
            long n = 0;
            Conn c;
            while ((c = p.channel.receive(self)) != null) {
                p.page.getAndAdd(taken, 1);
                n++;
                int target = fastLiveSibling();
                if (target < 0 || !handOff.sendWith(target, c)) {
                    admit.accept(c);
                }
            }
            if (n > 0) {
                p.page.getAndAdd(taken, -n);
                p.page.getAndAdd(pending, -n);
            }
            long inFlight = p.page.getVolatile(pending) - p.page.getVolatile(taken);
            return inFlight > 0 && p.clock.nanoTime() - deadline < 0;
        }

        private int fastLiveSibling() {
            for (int i = 0; i < p.workers; i++) {
                long state = siblings.state(i);
                if (i != self && Siblings.live(state) && !(state > 0 && Siblings.slowPass(state, siblings.now()))) {
                    return i;
                }
            }
            return -1;
        }
    });

    /**
     * Rebalance with no dead band: a move across a gap of one only swaps the two loads, and the
     * next look moves it back. Safe (each move is a hand-off), and a ping-pong.
     */
    static final Protocol REBALANCE_NO_DEAD_BAND = worker("mutant-no-dead-band", (p, self) -> Protocol.Core.worker(
            p, self, AcceptPolicy.share(), new Rebalance(0, AcceptShare.REBALANCE_INTERVAL_NANOS)));

    /** Rebalance's look names a replacement between bind and start: nothing reads its channel yet. */
    static final Protocol REBALANCE_TARGETS_NOT_STARTED = looking("mutant-rb-not-started", true, false);

    /**
     * Rebalance without "heaviest only": a worker two over the lightest moves though a sibling is
     * heavier, and the heaviest's moves are still needed after it: one move too many.
     */
    static final Protocol REBALANCE_ANY_SENDER = looking("mutant-rb-any-sender", false, true);

    /** The core's look, with one rule undone; the move is the core's. */
    private static Protocol looking(String name, boolean targetsNotStarted, boolean anySender) {
        return worker(name, (p, self) -> new WorkerMutant(p, self) {
            private final Siblings siblings = new Siblings(p.page, p.clock, p.workers);

            @Override
            public int rebalancePick(long open) {
                long own = open + siblings.pending(self) - siblings.taken(self);
                int lightest = self;
                long lightestLoad = Long.MAX_VALUE;
                for (int i = 0; i < p.workers; i++) {
                    long state = i == self ? 0 : siblings.state(i);
                    if (i == self || state == PageLayout.LEFT || (state == PageLayout.NOT_STARTED && !targetsNotStarted)) {
                        continue;
                    }
                    long load = siblings.load(i);
                    if (load > own && !anySender) {
                        return self;
                    }
                    if (state > 0 && Siblings.slowPass(state, siblings.now())) {
                        continue;
                    }
                    if (load < lightestLoad) {
                        lightestLoad = load;
                        lightest = i;
                    }
                }
                return lightest != self && own - lightestLoad > AcceptShare.REBALANCE_DEAD_BAND ? lightest : self;
            }
        });
    }
}
