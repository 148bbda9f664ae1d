package m0.sim;

import static m0.core.PageLayout.LEFT;
import static m0.core.PageLayout.NOT_STARTED;

import m0.core.AcceptPolicy;
import m0.core.BusyEstimator;
import m0.core.PageLayout;
import m0.core.Siblings;

/**
 * The fountain's rules undone, and the herd's registration done wrong: test code only. Each
 * runs the real core but for the one rule it breaks.
 */
final class FountainMutants {

    private FountainMutants() {
    }

    private static final long LOOK = PageLayout.SLOW_PASS_NANOS / 2;

    /** The real core under fountain, with the listener rule replaced. */
    private static Protocol listenerRule(String name, ListenerRule rule) {
        return Mutants.worker(name, (p, self) -> new Mutants.WorkerMutant(p, self,
                Protocol.Core.worker(p, self, AcceptPolicy.fountain())) {
            private final Siblings siblings = new Siblings(p.page, p.clock, p.workers);
            private long deadline;

            @Override
            public boolean takeListener(boolean readable) {
                deadline = p.clock.nanoTime() + LOOK;
                return rule.take(siblings, self);
            }

            @Override
            public long listenDeadline() {
                return deadline;
            }
        });
    }

    interface ListenerRule {
        boolean take(Siblings siblings, int self);
    }

    /**
     * Trusts the head's state word, and waits for it without a deadline: a pass is a pass, and
     * a worker that died or stopped while parked reads PARKED. The design before the 2 ms bound.
     */
    static final Protocol TRUSTS_THE_HEAD = listenerRule("mutant-trusts-the-head", (siblings, self) -> {
        for (int j = 0; j < self; j++) {
            long state = siblings.state(j);
            if (state != LEFT && state != NOT_STARTED && !BusyEstimator.full(siblings.busy(j))) {
                return false;
            }
        }
        return true;
    });

    /**
     * A later worker takes the listener at once, free head or not: the race with fountain's keep.
     * The head rule undone alone: to this worker every earlier one reads full, so it never waits
     * for a head; what it does once full itself (leave the rest to a later one) is the core's.
     */
    static final Protocol TAKES_AT_ONCE = Mutants.worker("mutant-takes-at-once", (p, self) -> {
        m0.core.Page noHead = new Mutants.PageView(p.page) {
            @Override
            public long getVolatile(int word) {
                long v = p.page.getVolatile(word);
                boolean earlierBusy = word < PageLayout.busyWord(self) && word >= PageLayout.HEADER_WORDS
                        && (word - PageLayout.HEADER_WORDS) % PageLayout.LINE_WORDS == PageLayout.BUSY_OFFSET;
                return earlierBusy ? v | BusyEstimator.FULL_BIT : v;
            }
        };
        return Protocol.Core.worker(new Ports(null, noHead, p.channel, p.clock, p.workers), self, AcceptPolicy.fountain());
    });

    /**
     * The real rule over a view of the page where a LEFT state word reads PARKED: a head that
     * left is waited for like a live one (the 2 ms fallback still saves it, later).
     */
    static final Protocol LEFT_READS_PARKED = Mutants.worker("mutant-left-reads-parked", (p, self) -> {
        m0.core.Page lying = new Mutants.PageView(p.page) {
            @Override
            public long getVolatile(int word) {
                long v = p.page.getVolatile(word);
                boolean state = word >= PageLayout.HEADER_WORDS
                        && (word - PageLayout.HEADER_WORDS) % PageLayout.LINE_WORDS == PageLayout.STATE_OFFSET;
                return state && v == LEFT && word != PageLayout.stateWord(self) ? PageLayout.PARKED : v;
            }
        };
        return Protocol.Core.worker(new Ports(null, lying, p.channel, p.clock, p.workers), self, AcceptPolicy.fountain());
    });

    /** An estimator that samples at every reading: no 20 ms period. */
    static final Protocol UNSAMPLED = Policies.of("mutant-unsampled",
            () -> AcceptPolicy.fountain(new BusyEstimator(0, BusyEstimator.FULL_FROM, BusyEstimator.FREE_BELOW)));

    /** No hysteresis band: free again below 85 %, where it turned full. */
    static final Protocol NO_BAND = Policies.of("mutant-no-band",
            () -> AcceptPolicy.fountain(new BusyEstimator(BusyEstimator.SAMPLE_NANOS, BusyEstimator.FULL_FROM,
                    BusyEstimator.FULL_FROM)));

    /** Never free again once full (a band down to 0). */
    static final Protocol NEVER_FREE = Policies.of("mutant-never-free",
            () -> AcceptPolicy.fountain(new BusyEstimator(BusyEstimator.SAMPLE_NANOS, BusyEstimator.FULL_FROM, 0)));

    /**
     * The listener registered so that the kernel's one wake-up may land on a worker that is not
     * in epoll_wait (a nested exclusive epoll, the first registration): nobody else is woken.
     */
    static Protocol wakesTheFirstRegistered(String policy) {
        Protocol real = Policies.named(policy);
        return new Protocol() {
            @Override
            public String name() {
                return "mutant-wakes-first-" + policy;
            }

            @Override
            public m0.core.WorkerShare<Conn> worker(Ports p, int self) {
                return real.worker(p, self);
            }

            @Override
            public SupervisorOps<Conn> supervisor(Ports p) {
                return real.supervisor(p);
            }

            @Override
            public ListenerWake listenerWake(ListenerWake registered) {
                return (armed, wake) -> {
                    if (!armed.isEmpty()) {
                        wake.accept(armed.get(0));
                    }
                };
            }
        };
    }

    // ---- issue 25: the loop's batch end, what a worker holds out, and connections that never move

    /** The loop goes on with its accept batch whatever the core says: a full worker takes the burst. */
    static final Protocol IGNORES_END_BATCH = Mutants.worker("mutant-ignores-end-batch",
            (p, self) -> new Mutants.WorkerMutant(p, self, Protocol.Core.worker(p, self, AcceptPolicy.fountain())) {
                @Override
                public int endBatch() {
                    real.endBatch(); // the core's judgement runs (its nudge is told nobody), and is ignored
                    return AcceptPolicy.GO_ON;
                }
            });

    /**
     * A sibling's HELD mark (ADR 0038) unread: a head at its cap or in an EMFILE back-off reads as
     * taking, and a later worker leaves every connection to it while its words keep moving.
     */
    static final Protocol IGNORES_HELD = Mutants.worker("mutant-ignores-held", (p, self) -> {
        m0.core.Page blind = new Mutants.PageView(p.page) {
            @Override
            public long getVolatile(int word) {
                long v = p.page.getVolatile(word);
                boolean busy = word != PageLayout.busyWord(self) && word >= PageLayout.HEADER_WORDS
                        && (word - PageLayout.HEADER_WORDS) % PageLayout.LINE_WORDS == PageLayout.BUSY_OFFSET;
                return busy ? v & ~BusyEstimator.HELD_BIT : v;
            }
        };
        return Protocol.Core.worker(new Ports(null, blind, p.channel, p.clock, p.workers), self, AcceptPolicy.fountain());
    });

    /** Fountain whose connections move (rebalance, a leaver's hand-over): seed 004 says they never do. */
    static final Protocol MOVES = Mutants.worker("mutant-fountain-moves",
            (p, self) -> Protocol.Core.worker(p, self, new Moving(AcceptPolicy.fountain())));

    /** A policy that is fountain in every answer but one. */
    private static final class Moving extends ForwardingAcceptPolicy {
        Moving(AcceptPolicy fountain) {
            super(fountain);
        }

        @Override
        public boolean movesConnections() {
            return true;
        }
    }
}
