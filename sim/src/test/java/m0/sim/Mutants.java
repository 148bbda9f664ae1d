package m0.sim;

import java.util.function.Consumer;
import m0.core.AcceptPolicy;
import m0.core.AcceptShare;
import m0.core.Counts;
import m0.core.ForwardingWorkerShare;
import m0.core.LoadShape;
import m0.core.Page;
import m0.core.PageLayout;
import m0.core.Rebalance;
import m0.core.Siblings;
import m0.core.WorkerShare;

/**
 * Each correction of the seed undone: a protocol that delegates everything to the real core
 * except one operation, reimplemented with the historical ordering through the same ports.
 * Test code only; the core is never touched.
 */
final class Mutants {

    private Mutants() {
    }

    /** Delegates every worker operation to the real core; a mutant overrides one. */
    abstract static class WorkerMutant extends ForwardingWorkerShare<Conn> {
        final WorkerShare<Conn> real;
        final Ports p;
        final int self;

        WorkerMutant(Ports p, int self) {
            this(p, self, Protocol.Core.worker(p, self, AcceptPolicy.share()));
        }

        WorkerMutant(Ports p, int self, WorkerShare<Conn> real) {
            super(real);
            this.real = real;
            this.p = p;
            this.self = self;
        }
    }

    /**
     * A mutant that rewrites {@link #sendWith}: the accept path's send is that same historical
     * send, raised unconditionally (the seed's protocol predates ADR 0043's compare-and-set).
     */
    abstract static class SendMutant extends WorkerMutant {
        SendMutant(Ports p, int self) {
            super(p, self);
        }

        @Override
        public abstract boolean sendWith(int target, Conn c);

        @Override
        public int sendPicked(int target, Conn c) {
            return sendWith(target, c) ? m0.core.HandOff.SENT : m0.core.HandOff.REFUSED;
        }
    }

    interface WorkerFactory {
        WorkerShare<Conn> make(Ports p, int self);
    }

    static Protocol worker(String name, WorkerFactory f) {
        return new Protocol() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public WorkerShare<Conn> worker(Ports p, int self) {
                return f.make(p, self);
            }

            @Override
            public SupervisorOps<Conn> supervisor(Ports p) {
                return Protocol.core().supervisor(p);
            }
        };
    }

    /** R5 undone: pending raised only after the datagram was queued (the pre-#434 send_fd). */
    static final Protocol R5 = worker("mutant-R5", (p, self) -> new SendMutant(p, self) {
        @Override
        public boolean sendWith(int target, Conn c) {
            p.page.setVolatile(PageLayout.sendingWord(self), target + 1);
            if (!p.channel.send(target, c)) {
                p.page.setVolatile(PageLayout.sendingWord(self), 0);
                return false;
            }
            p.page.getAndAdd(PageLayout.countsWord(target), Counts.RAISE);
            p.page.setVolatile(PageLayout.sendingWord(self), 0);
            return true;
        }
    });

    /**
     * ADR 0043 undone: the accept path raises blind, one add on whatever the target's counts
     * hold by then, as {@link WorkerShare#sendWith} does. Two acceptors of one burst land it two
     * off even (BURST: 1/3).
     */
    static final Protocol BLIND_RAISE = worker("mutant-blind-raise", (p, self) -> new WorkerMutant(p, self) {
        @Override
        public int sendPicked(int target, Conn c) {
            return real.sendWith(target, c) ? m0.core.HandOff.SENT : m0.core.HandOff.REFUSED;
        }
    });

    /**
     * ADR 0053 undone: the accept path's keep is published blind, one add on whatever this
     * worker's counts hold by then, as {@link WorkerShare#kept} does. A sibling's send decided on
     * the same reading of them lands too, and the third worker is left short (BURST-three: 1/2/0).
     */
    static final Protocol BLIND_KEEP = worker("mutant-blind-keep", (p, self) -> new WorkerMutant(p, self) {
        @Override
        public boolean keptIfUnchanged(long open) {
            real.kept(open);
            return true;
        }
    });

    /** B25 send side undone: raise, then send without reading the target's state again. */
    static final Protocol B25_SEND = worker("mutant-B25-send", (p, self) -> new SendMutant(p, self) {
        @Override
        public boolean sendWith(int target, Conn c) {
            int counts = PageLayout.countsWord(target);
            p.page.setVolatile(PageLayout.sendingWord(self), target + 1);
            p.page.getAndAdd(counts, Counts.RAISE);
            boolean sent = p.channel.send(target, c);
            if (!sent) {
                p.page.getAndAdd(counts, Counts.TAKE_BACK);
            }
            p.page.setVolatile(PageLayout.sendingWord(self), 0);
            return sent;
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
            int counts = PageLayout.countsWord(self);
            long n = 0;
            Conn c;
            while ((c = p.channel.receive(self)) != null) {
                p.page.getAndAdd(counts, Counts.RECEIPT);
                n++;
                p.closeIdle(c); // admitted, no first byte yet, and the leaver closes idle connections
            }
            if (n > 0) {
                p.page.getAndAdd(counts, Counts.retire(n));
            }
            long inFlight = Counts.inFlight(p.page.getVolatile(counts));
            return inFlight > 0 && p.clock.nanoTime() - deadline < 0;
        }
    });

    /** TAKEN undone: start forgets the predecessor's receipts instead of retiring them. */
    static final Protocol TAKEN = worker("mutant-TAKEN", (p, self) -> new WorkerMutant(p, self) {
        @Override
        public void start() {
            long w = p.page.getVolatile(PageLayout.countsWord(self));
            p.page.setVolatile(PageLayout.countsWord(self), Counts.of(Counts.pending(w), 0)); // taken forgotten
            p.page.setVolatile(PageLayout.stateWord(self), PageLayout.PARKED);
        }
    });

    /**
     * The retire in two steps again, pending lowered BEFORE taken (DESIGN's textual order), so
     * between the two pending - taken drops below what is in flight.
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
                p.page.getAndAdd(PageLayout.countsWord(self), Counts.RECEIPT);
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
            real.passEnd(open); // active and PARKED, as the core publishes them (it received nothing itself)
            long n = received;
            received = 0;
            if (n > 0) {
                p.page.getAndAdd(PageLayout.countsWord(self), -n * Counts.PENDING_ONE + Counts.VERSION_ONE);
                p.page.getAndAdd(PageLayout.countsWord(self), -n * Counts.TAKEN_ONE + Counts.VERSION_ONE);
            }
        }
    });

    /**
     * ADR 0040 undone: a pass end publishes active, then retires its receipts, in two adds on the
     * counts word (ADR 0012's two-word load, with the window between the two stores put back).
     * A sibling's pick between them counts every receipt of the pass twice and keeps what it
     * should pass on: only a balance rule with no slack for the tear sees it. The real core, over
     * a page that splits exactly that add; nothing else differs.
     */
    static final Protocol TWO_STEP_PASS_END = worker("mutant-two-step-pass-end", (p, self) -> new AcceptShare<>(
            splittingPassEnd(p.page, PageLayout.countsWord(self)), p.channel, p.clock, AcceptPolicy.share(),
            p.workers, self, AcceptShare.LEAVE_DRAIN_NANOS, p.rebalance
                    ? new Rebalance(AcceptShare.REBALANCE_DEAD_BAND, AcceptShare.REBALANCE_INTERVAL_NANOS)
                    : Rebalance.off()));

    private static Page splittingPassEnd(Page page, int countsWord) {
        return new PageView(page) {
            @Override
            public long getAndAdd(int word, long delta) {
                long active = Counts.activeBy(Counts.active(delta));
                if (word != countsWord || active == 0 || delta == active) {
                    return super.getAndAdd(word, delta);
                }
                long before = super.getAndAdd(word, active); // active published: the receipts now counted twice
                super.getAndAdd(word, delta - active); // ... until the retire
                return before;
            }
        };
    }

    /**
     * ADR 0041's timer undone: a keeping worker waits for its next event only, so one idle
     * since a spell of churn judges the whole idle time with the churn in it, and keeps a
     * keep-alive burst (SHAPE-after-churn: BALANCE).
     */
    static final Protocol SHAPE_NO_TIMER = worker("mutant-shape-no-timer",
            (p, self) -> new ForwardingWorkerShare<Conn>(Protocol.Core.worker(p, self, AcceptPolicy.share())) {
                @Override
                public long shapeDeadline() {
                    return Long.MAX_VALUE;
                }
            });

    /**
     * ADR 0041's hysteresis undone: one threshold both ways (leave keeping at the reuse ratio
     * that enters it), so a load at the threshold changes mode every window (SHAPE-flap).
     */
    static final Protocol SHAPE_NO_HYSTERESIS = worker("mutant-shape-no-hysteresis",
            (p, self) -> Protocol.Core.worker(p, self, AcceptPolicy.share(new LoadShape(LoadShape.WINDOW_NANOS,
                    LoadShape.KEEP_MIN_SHORT, LoadShape.KEEP_SHORT_PER_REUSE, LoadShape.KEEP_SHORT_PER_REUSE))));

    /**
     * ADR 0052 undone: share judges its siblings' passes at each pick (the seed's words read
     * literally), not once a batch. An acceptor whose own batch runs long reads the very sibling
     * its first hand-offs woke as 2 ms into one pass, and keeps the rest (BURST-slow: BALANCE).
     * The real share policy with its judgement forgotten before every pick.
     */
    static final Protocol JUDGES_EACH_PICK = worker("mutant-judges-each-pick",
            (p, self) -> Protocol.Core.worker(p, self, new JudgingEachPick(AcceptPolicy.share())));

    /**
     * The seed's 2 ms rule undone: every sibling's pass reads as PARKED to this worker, so pick
     * (and the leaver's forward, and rebalance) never passes a slow one over (PICK-slow: SLOW).
     */
    static final Protocol NEVER_SKIPS_SLOW = worker("mutant-never-skips-slow",
            (p, self) -> readingSiblingStates(p, self, v -> PageLayout.inPass(v) ? PageLayout.PARKED : v));

    /**
     * ADR 0052's second half undone: under share an accept or a receipt stamps the pass, as it
     * did before, so a worker descheduled in a pass that only admitted reads as a slow inline
     * view and its sibling keeps a whole wave (BURST-stall, RECEIVE-stall: BALANCE).
     */
    static final Protocol ADMISSION_STAMPS = worker("mutant-admission-stamps", (p, self) -> new WorkerMutant(p, self) {
        @Override
        public void admitted() {
            real.work();
        }
    });

    /** Every call to the real policy, but a pick forgets the pass's judgement first. */
    private static final class JudgingEachPick extends ForwardingAcceptPolicy {
        JudgingEachPick(AcceptPolicy real) {
            super(real);
        }

        @Override
        public int pick(Siblings siblings, int self, long open) {
            real.passEnded();
            return real.pick(siblings, self, open);
        }

        @Override
        public String name() {
            return "mutant-judges-each-pick";
        }
    }

    /** NS undone: pick reads a sibling that has not started as parked (0 was parked). */
    static final Protocol NS = picking("mutant-NS", (siblings, me, open) -> {
        int workers = siblings.workers();
        int choice = me;
        long best = open + siblings.inFlight(me); // own load as the core reads it (ADR 0007)
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
            public WorkerShare<Conn> worker(Ports p, int self) {
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
        final Ports p;

        SupervisorMutant(Ports p) {
            this.real = Protocol.core().supervisor(p);
            this.p = p;
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
        public boolean startSeen(int index) {
            return real.startSeen(index);
        }

        @Override
        public Drain<Conn> giveUp(int index) {
            return real.giveUp(index);
        }
    }

    /**
     * RP undone: the supervisor reaps without marking the index LEFT (the heal it still asks
     * for, and a replacement's STARTING mark, stay the core's).
     */
    static final Protocol RP = supervisor("mutant-RP", p -> new SupervisorMutant(p) {
        @Override
        public void markReaped(int index) {
            markReaped(index, false);
        }

        @Override
        public void markReaped(int index, boolean replacing) {
            if (replacing) {
                real.spawning(index);
            }
            // the historical _remove_pid: no LEFT; the rest of the core's reap (ADR 0024) stays
            long sending = this.p.page.getVolatile(PageLayout.sendingWord(index));
            if (sending != 0) {
                this.p.page.setVolatile(PageLayout.sendingWord(index), 0);
                requestHeal(this.p, (int) sending - 1);
            }
            if (!replacing) {
                real.started(index); // not coming: no longer marked, as the core's reap
            }
        }
    });

    /** The core's heal request, as the supervisor makes it (set the HEAL bit, move the version). */
    static void requestHeal(Ports p, int i) {
        int word = PageLayout.countsWord(i);
        long counts;
        do {
            counts = p.page.getVolatile(word);
        } while (!p.page.compareAndSet(word, counts, Counts.requestHeal(counts)));
    }

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
     * The leaver's forward skips a sibling inside a slow pass, as pick does: to a leaver a slow
     * sibling reads as gone (its forward, its hand-over and its wait for a live or starting one),
     * so with the only live sibling slow the leaver admits a fresh hand-off and closes it as idle
     * (B25-idle).
     */
    static final Protocol FORWARD_SKIPS_SLOW = worker("mutant-fwd-skips-slow", (p, self) -> readingSiblingStates(p, self,
            v -> Siblings.slowPass(v, p.clock.nanoTime()) ? PageLayout.LEFT : v));

    /** The real share worker, reading every sibling's state word (never its own) through {@code asRead}. */
    private static WorkerShare<Conn> readingSiblingStates(Ports p, int self, java.util.function.LongUnaryOperator asRead) {
        Page view = new PageView(p.page) {
            @Override
            public long getVolatile(int word) {
                long v = p.page.getVolatile(word);
                boolean state = word != PageLayout.stateWord(self) && word >= PageLayout.HEADER_WORDS
                        && (word - PageLayout.HEADER_WORDS) % PageLayout.LINE_WORDS == PageLayout.STATE_OFFSET;
                return state ? asRead.applyAsLong(v) : v;
            }
        };
        return Protocol.Core.worker(new Ports(null, view, p.channel, p.clock, p.workers), self, AcceptPolicy.share());
    }

    /** The real page, for a mutant that reads some words as they are not. */
    abstract static class PageView implements m0.core.Page {
        private final m0.core.Page page;

        PageView(m0.core.Page page) {
            this.page = page;
        }

        @Override
        public int words() {
            return page.words();
        }

        @Override
        public long getVolatile(int word) {
            return page.getVolatile(word);
        }

        @Override
        public void setVolatile(int word, long value) {
            page.setVolatile(word, value);
        }

        @Override
        public long getAndAdd(int word, long delta) {
            return page.getAndAdd(word, delta);
        }

        @Override
        public boolean compareAndSet(int word, long expected, long value) {
            return page.compareAndSet(word, expected, value);
        }
    }

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

    /**
     * A mutant whose rebalance look is its own: it keeps the core's rate (one move per interval)
     * by noting the moves the core's {@link #rebalance} makes.
     */
    abstract static class LookMutant extends WorkerMutant {
        final Siblings siblings;
        private boolean moved;
        private long lastMoveAt;

        LookMutant(Ports p, int self) {
            super(p, self);
            this.siblings = new Siblings(p.page, p.clock, p.workers);
        }

        @Override
        public boolean rebalance(int target, Conn c) {
            boolean m = real.rebalance(target, c);
            if (m) {
                moved = true;
                lastMoveAt = p.clock.nanoTime();
            }
            return m;
        }

        /** Too soon after the last move, as the core's rate would say. */
        boolean tooSoon() {
            return moved && p.clock.nanoTime() - lastMoveAt < AcceptShare.REBALANCE_INTERVAL_NANOS;
        }

        /**
         * The core's balancing look in open connections, without the swap and without ADR 0059's
         * settled gap for a keeping target; {@code targetsNotStarted} and {@code anySender} undo
         * one rule each more.
         */
        int openLook(long open, boolean targetsNotStarted, boolean anySender) {
            if (tooSoon()) {
                return self; // one move per interval, as the core's
            }
            long own = open + siblings.inFlight(self); // as the core reads it: one load
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
    }

    /** The core's look, with one rule undone; the move is the core's (and so is its rate). */
    private static Protocol looking(String name, boolean targetsNotStarted, boolean anySender) {
        return worker(name, (p, self) -> new LookMutant(p, self) {
            @Override
            public int rebalancePick(long open, long settled, long affinities) {
                return openLook(open, targetsNotStarted, anySender);
            }
        });
    }
    // ---- a keeping worker's look (ADR 0059): its rule undone, and the rule before it

    /**
     * A keeping worker's look as the core's {@code pickSettled}, with the rules of ADR 0059 that
     * {@code countsAll} and {@code keepingOnly} say: the rate, the dead band and heaviest only as
     * the core's; its moves take settled connections, as the core's.
     */
    private static Protocol keepingLook(String name, boolean countsAll, boolean keepingOnly) {
        return worker(name, (p, self) -> new LookMutant(p, self) {
            @Override
            public int rebalancePick(long open, long settled, long affinities) {
                if (policy().balancing()) {
                    return real.rebalancePick(open, settled, affinities);
                }
                long ownOpen = open + siblings.inFlight(self);
                long own = countsAll ? ownOpen : settled;
                if (tooSoon() || own <= AcceptShare.REBALANCE_DEAD_BAND) {
                    return self;
                }
                int lightest = self;
                long lightestLoad = Long.MAX_VALUE;
                for (int i = 0; i < p.workers; i++) {
                    if (i == self || !Siblings.live(siblings.state(i))) {
                        continue;
                    }
                    long counts = siblings.counts(i);
                    long busy = siblings.busy(i);
                    boolean keeping = (busy & AcceptShare.KEEPING_BIT) != 0;
                    if (keepingOnly && !keeping) {
                        continue;
                    }
                    long load = countsAll ? Counts.load(counts) : Counts.pending(counts) + (busy & AcceptShare.SETTLED_MASK);
                    if (keeping && load > own) {
                        return self;
                    }
                    if (load < lightestLoad) {
                        lightestLoad = load;
                        lightest = i;
                    }
                }
                return lightest != self && own - lightestLoad > AcceptShare.REBALANCE_DEAD_BAND ? lightest : self;
            }

            @Override
            public boolean settledOnly() {
                return !policy().balancing();
            }
        });
    }

    /**
     * Counted in open connections, as a balancing look counts: the churn in flight decides, and
     * each spell of it moves a settled connection towards the other worker.
     */
    static final Protocol KEEPING_COUNTS_ALL = keepingLook("mutant-keeping-counts-all", true, false);

    /** Keeping siblings only: a balancing sibling is never a target, and a skew against it stays. */
    static final Protocol KEEPING_SIBLINGS_ONLY = keepingLook("mutant-keeping-siblings-only", false, true);

    /**
     * A balancing look that targets a keeping sibling by open connections alone, as before
     * ADR 0059: a keeping worker's open count is mostly churn, and a settled connection it moved
     * out is moved back whenever its churn is low, then out again.
     */
    static final Protocol BALANCING_IGNORES_SETTLED = worker("mutant-balancing-ignores-settled",
            (p, self) -> new LookMutant(p, self) {
                @Override
                public int rebalancePick(long open, long settled, long affinities) {
                    return policy().balancing() ? openLook(open, false, false) : real.rebalancePick(open, settled, affinities);
                }

                @Override
                public boolean settledOnly() {
                    return !policy().balancing(); // the core's, not left over from a look it did not make
                }
            });

    /** ADR 0041's keeping worker, before ADR 0059: it moves nothing, and a skew it keeps stays. */
    static final Protocol KEEPING_MOVES_NOTHING = worker("mutant-keeping-moves-nothing", (p, self) -> new WorkerMutant(p, self) {
        @Override
        public int rebalancePick(long open, long settled, long affinities) {
            return policy().balancing() ? real.rebalancePick(open, settled, affinities) : self;
        }
    });

    // ---- the swap (ADR 0057): each of its rules undone

    /**
     * The swap without "both sides marked": loads even, a worker hands over a connection that
     * pairs with a sibling whatever the sibling holds. Where it holds none pairing back, its
     * return (any idle one) is one that pairs with it: the same swap again, for ever.
     */
    static final Protocol SWAP_ONE_SIDED = worker("mutant-swap-one-sided", (p, self) -> new LookMutant(p, self) {
        @Override
        public int rebalancePick(long open, long settled, long affinities) {
            int target = real.rebalancePick(open, settled, affinities);
            if (target != self || tooSoon()) {
                return target;
            }
            long own = open + siblings.inFlight(self);
            for (int i = 0; i < p.workers; i++) {
                if (i != self && (affinities & PageLayout.affineBit(i)) != 0 && Siblings.live(siblings.state(i))
                        && siblings.load(i) <= own) {
                    return i; // the sibling's AFFINE mark unread
                }
            }
            return self;
        }
    });

    /**
     * The swap whose moves take any idle connection, not one that pairs with the target: the
     * swap hands over the wrong one, or its return undoes it.
     */
    static final Protocol SWAP_ANY_KIND = worker("mutant-swap-any-kind", (p, self) -> new WorkerMutant(p, self) {
        @Override
        public int affinityToMove(int target, long affinities) {
            return Rebalance.ANY_AFFINITY;
        }
    });

    // ---- self-healing counts (ADR 0024): each rule of the heal undone

    /**
     * The healing undone, everywhere (the core before ADR 0024, with its one-word counts): a reap
     * that marks LEFT (RP) but neither clears the dead worker's SENDING nor asks its target for a
     * heal, a give-up that drains and re-homes but never heals, and a replacement's start that
     * settles taken but never asks for a heal. What a death cut short stays in pending - taken.
     */
    static final Protocol NO_HEAL = new Protocol() {
        @Override
        public String name() {
            return "mutant-no-heal";
        }

        @Override
        public WorkerShare<Conn> worker(Ports p, int self) {
            return new WorkerMutant(p, self) {
                @Override
                public void start() {
                    int counts = PageLayout.countsWord(self);
                    long w = p.page.getVolatile(counts);
                    long taken = Counts.taken(w);
                    long settle = (taken != 0 ? Counts.retire(taken) : 0) - Counts.activeBy(Counts.active(w));
                    if (settle != 0) {
                        p.page.getAndAdd(counts, settle);
                    }
                    p.page.setVolatile(PageLayout.stateWord(self), PageLayout.PARKED);
                }
            };
        }

        @Override
        public SupervisorOps<Conn> supervisor(Ports p) {
            return new SupervisorMutant(p) {
                @Override
                public void markReaped(int index) {
                    markReaped(index, false);
                }

                @Override
                public void markReaped(int index, boolean replacing) {
                    if (replacing) {
                        real.spawning(index);
                    }
                    this.p.page.setVolatile(PageLayout.stateWord(index), PageLayout.LEFT);
                    if (!replacing) {
                        real.started(index); // no longer counted as starting, as the core's reap does
                    }
                }

                @Override
                public Drain<Conn> giveUp(int index) {
                    return new DrainWithoutHeal(this.p, index);
                }
            };
        }
    };

    /**
     * The core's give-up (settle taken, drain while pending - taken is above 0 within 250 ms,
     * retire each receipt, re-home it or close it when no worker is live), without its heal.
     */
    static final class DrainWithoutHeal implements SupervisorOps.Drain<Conn> {
        private final Ports p;
        private final int index;
        private final m0.core.HandOff<Conn> handOff;
        private final long deadline;
        private boolean settled;

        DrainWithoutHeal(Ports p, int index) {
            this.p = p;
            this.index = index;
            this.handOff = new m0.core.HandOff<>(p.page, p.channel, new Siblings(p.page, p.clock, p.workers),
                    PageLayout.SUPERVISOR_SENDING_WORD);
            this.deadline = p.clock.nanoTime() + m0.core.SupervisorShare.GIVE_UP_DRAIN_NANOS;
        }

        @Override
        public boolean step(Consumer<? super Conn> close) {
            int counts = PageLayout.countsWord(index);
            if (!settled) {
                settled = true;
                long taken = Counts.taken(p.page.getVolatile(counts));
                if (taken != 0) {
                    p.page.getAndAdd(counts, Counts.retire(taken));
                }
            }
            while (Counts.inFlight(p.page.getVolatile(counts)) > 0) {
                Conn c = p.channel.receive(index);
                if (c == null) {
                    break;
                }
                p.page.getAndAdd(counts, Counts.DRAINED);
                if (handOff.forward(index, c) < 0) {
                    close.accept(c);
                }
            }
            return Counts.inFlight(p.page.getVolatile(counts)) > 0 && p.clock.nanoTime() - deadline < 0;
        }
    }

    /**
     * A worker whose heal is reimplemented with one rule undone. The heal lives inside the
     * core's receive, so the receive (and the retire at the pass end) are rewritten here as the
     * core has them; a heal mutant never leaves.
     */
    abstract static class HealMutant extends WorkerMutant {
        private long received;

        HealMutant(Ports p, int self) {
            super(p, self);
        }

        int counts() {
            return PageLayout.countsWord(self);
        }

        @Override
        public Conn receive() {
            Conn c = p.channel.receive(self);
            if (c == null && (c = heal()) == null) {
                return null;
            }
            p.page.getAndAdd(counts(), Counts.RECEIPT);
            received++;
            return c;
        }

        @Override
        public void passEnd(long open) {
            real.passEnd(open); // active, then PARKED; the core received nothing itself
            if (received > 0) {
                p.page.getAndAdd(counts(), Counts.retire(received));
                received = 0;
            }
        }

        @Override
        public void leave() {
            throw new IllegalStateException("a heal mutant does not leave");
        }

        @Override
        public boolean healDue() {
            return Counts.healRequested(p.page.getVolatile(counts()));
        }

        /** SENDING words naming this index. */
        long senders() {
            long n = 0;
            for (int j = 0; j < p.workers; j++) {
                n += p.page.getVolatile(PageLayout.sendingWord(j)) == self + 1 ? 1 : 0;
            }
            return n + (p.page.getVolatile(PageLayout.SUPERVISOR_SENDING_WORD) == self + 1 ? 1 : 0);
        }

        /** At an EAGAIN: the heal, or a connection that arrived while it looked. */
        abstract Conn heal();
    }

    interface HealFactory {
        HealMutant make(Ports p, int self);
    }

    static Protocol healing(String name, HealFactory f) {
        return worker(name, f::make);
    }

    /** A heal that reads every raise it sees as an orphan: no SENDING looked at. */
    static final Protocol HEAL_BLIND = healing("mutant-heal-blind", (p, self) -> new HealMutant(p, self) {
        @Override
        Conn heal() {
            long w = p.page.getVolatile(counts());
            if (!Counts.healRequested(w)) {
                return null;
            }
            p.page.compareAndSet(counts(), w, Counts.healed(w, Math.max(0, Counts.inFlight(w)), true));
            return null;
        }
    });

    /**
     * A heal without its last receive: a hand-off that began and ended (published, raised,
     * queued, cleared) between its read of the counts and its scan reads as an orphan.
     */
    static final Protocol HEAL_NO_RECHECK = healing("mutant-heal-no-recheck", (p, self) -> new HealMutant(p, self) {
        @Override
        Conn heal() {
            long w = p.page.getVolatile(counts());
            if (!Counts.healRequested(w)) {
                return null;
            }
            long inFlight = Counts.inFlight(w);
            long senders = inFlight > 0 ? senders() : 0; // and no receive after the scan
            long excess = Math.max(0, inFlight - senders);
            if (excess > 0 || senders == 0) {
                p.page.compareAndSet(counts(), w, Counts.healed(w, excess, senders == 0));
            }
            return null;
        }
    });

    /** The core's sendWith with its SENDING moved: {@code after} the raise, or cleared before the send. */
    private static Protocol sending(String name, boolean afterRaise) {
        return worker(name, (p, self) -> new SendMutant(p, self) {
            @Override
            public boolean sendWith(int target, Conn c) {
                int counts = PageLayout.countsWord(target);
                int sending = PageLayout.sendingWord(self);
                if (!afterRaise) {
                    p.page.setVolatile(sending, target + 1);
                }
                p.page.getAndAdd(counts, Counts.RAISE);
                if (afterRaise) {
                    p.page.setVolatile(sending, target + 1);
                }
                if (p.page.getVolatile(PageLayout.stateWord(target)) == PageLayout.LEFT) {
                    p.page.getAndAdd(counts, Counts.TAKE_BACK);
                    p.page.setVolatile(sending, 0);
                    return false;
                }
                if (!afterRaise) {
                    p.page.setVolatile(sending, 0); // cleared before the datagram is queued
                }
                boolean sent = p.channel.send(target, c);
                if (!sent) {
                    p.page.getAndAdd(counts, Counts.TAKE_BACK);
                }
                p.page.setVolatile(sending, 0);
                return sent;
            }
        });
    }

    /** SENDING published after the raise: a heal between the two reads the raise as orphaned. */
    static final Protocol SENDING_AFTER_RAISE = sending("mutant-sending-late", true);

    /** SENDING cleared before the send: a heal between the two reads the raise as orphaned. */
    static final Protocol SENDING_CLEARED_EARLY = sending("mutant-sending-early-clear", false);

    // ---- issue 25: the loop's own rules, and the STARTING mark

    /**
     * ADR 0007 undone in the accept path: a connection the pick keeps is not published at once,
     * only at the pass end. A sibling accepting from the same burst reads this worker lighter
     * than it is (ACTIVE).
     */
    static final Protocol DROPS_PUBLISH = worker("mutant-drops-publish", (p, self) -> new WorkerMutant(p, self) {
        @Override
        public void kept(long open) {
        }

        @Override
        public boolean keptIfUnchanged(long open) {
            return true;
        }
    });

    /**
     * The STARTING marks read as one server-wide count again: a worker's own mark is anyone's,
     * so a leaver that the supervisor has not yet seen start counts itself as a sibling that is
     * coming, and holds its hand-offs through the whole start wait.
     */
    static final Protocol COUNTS_ITSELF_STARTING = worker("mutant-counts-itself", (p, self) -> {
        int region = PageLayout.startingWord(p.workers, self);
        m0.core.Page ownMarkEverywhere = new PageView(p.page) {
            @Override
            public long getVolatile(int word) {
                long v = p.page.getVolatile(word);
                return word == region && (v & PageLayout.startingBit(self)) != 0 ? -1L : v;
            }
        };
        return Protocol.Core.worker(new Ports(null, ownMarkEverywhere, p.channel, p.clock, p.workers), self,
                AcceptPolicy.share());
    });

    /**
     * ADR 0069's addendum undone: a TLS handshake stamps the pass as a view does, so a worker
     * inside a pass of handshakes reads to its siblings' picks as a slow view, and they keep
     * what they accept (TLS-burst: BALANCE; issue 47's storm landed 44/20).
     */
    static final Protocol HANDSHAKE_STAMPS = worker("mutant-handshake-stamps", (p, self) -> new WorkerMutant(p, self) {
        @Override
        public void handshaking() {
            real.work();
        }
    });

    /**
     * ADR 0069 undone: a worker that treats a connection whose TLS handshake began here as
     * movable, as a plain one (its session would be lost in the sibling).
     */
    static final Protocol MOVES_HANDSHAKEN = worker("mutant-moves-handshaken", (p, self) -> new WorkerMutant(p, self) {
        @Override
        public boolean mayMove(boolean handshakeBegun) {
            return true;
        }
    });
}
