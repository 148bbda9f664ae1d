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

    /** A later worker takes the listener at once, free head or not: the race with fountain's keep. */
    static final Protocol TAKES_AT_ONCE = listenerRule("mutant-takes-at-once", (siblings, self) -> true);

    /**
     * The real rule over a view of the page where a LEFT state word reads PARKED: a head that
     * left is waited for like a live one (the 2 ms fallback still saves it, later).
     */
    static final Protocol LEFT_READS_PARKED = Mutants.worker("mutant-left-reads-parked", (p, self) -> {
        m0.core.Page lying = new m0.core.Page() {
            @Override
            public int words() {
                return p.page.words();
            }

            @Override
            public long getVolatile(int word) {
                long v = p.page.getVolatile(word);
                boolean state = word >= PageLayout.HEADER_WORDS
                        && (word - PageLayout.HEADER_WORDS) % PageLayout.LINE_WORDS == PageLayout.STATE_OFFSET;
                return state && v == LEFT && word != PageLayout.stateWord(self) ? PageLayout.PARKED : v;
            }

            @Override
            public void setVolatile(int word, long value) {
                p.page.setVolatile(word, value);
            }

            @Override
            public long getAndAdd(int word, long delta) {
                return p.page.getAndAdd(word, delta);
            }

            @Override
            public boolean compareAndSet(int word, long expected, long value) {
                return p.page.compareAndSet(word, expected, value);
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
            public WorkerOps<Conn> worker(Ports p, int self) {
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
}
