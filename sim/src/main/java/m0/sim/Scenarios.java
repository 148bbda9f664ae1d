package m0.sim;

import java.util.List;
import java.util.function.Consumer;
import m0.core.Counts;
import m0.core.PageLayout;

/**
 * The registry of the model-checked worlds ({@link #ALL}, in the order they are checked) and
 * the helpers their families build with. The seed's worlds ({@link HandOffScenarios},
 * {@link LifecycleScenarios}) are one scenario per correction of the seed: the smallest world in
 * which the historical ordering goes wrong. Two workers; w0 carries a load so that its pick
 * prefers w1; virtual time ends at {@link #END}, past every bound the protocol keeps (the 250 ms
 * drains, and the loop's heal look, which an idle worker makes once a second).
 *
 * <p>Every worker runs the core's {@code WorkerLoop}, the loop m0serve runs ({@link Worker#run}),
 * with the server's accept batch. A worker that "does not accept" is one the kernel never hands a
 * connection to (its siblings win every accept): a restriction of the world, not of the loop.
 * Every respawn goes through the supervisor's {@code markReaped(i, true)} and its watch for the
 * start ({@link Sim#replace}), as m0serve's does.
 */
public final class Scenarios {

    public static final long END = Sim.T0 + 1_500 * Sim.MS;

    /** A named scenario: the rule it exercises and how to build its world. */
    public static final class Scenario {
        public final String name;
        public final String description;
        private final Consumer<Sim> build;
        private final int workers;

        Scenario(String name, String description, Consumer<Sim> build) {
            this(name, description, 2, build);
        }

        Scenario(String name, String description, int workers, Consumer<Sim> build) {
            this.name = name;
            this.description = description;
            this.workers = workers;
            this.build = build;
        }

        public Sim build(Protocol protocol, ChoiceSource source, boolean fullTrace) {
            Sim sim = new Sim(workers, protocol, source, fullTrace);
            build.accept(sim);
            return sim;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    public static final List<Scenario> ALL = List.of(
            HandOffScenarios.R5, HandOffScenarios.B25_SEND, HandOffScenarios.B25_IDLE, HandOffScenarios.TAKEN,
            LifecycleScenarios.NS, LifecycleScenarios.RP, LifecycleScenarios.RB, HandOffScenarios.SENDER_KILLED,
            HandOffScenarios.R5_WIDE, HandOffScenarios.B25_WIDE, LifecycleScenarios.RP_RESPAWN,
            HandOffScenarios.B25_SLOW, LifecycleScenarios.LIFECYCLE,
            BalanceScenarios.BALANCE, BalanceScenarios.BALANCE_EVEN, BalanceScenarios.SHAPE_AFTER_CHURN,
            BalanceScenarios.SHAPE_FLAP, BalanceScenarios.BALANCE_RACE,
            LifecycleScenarios.LATE_SEND, LifecycleScenarios.WAIT_START,
            RebalanceScenarios.REBALANCE, RebalanceScenarios.REBALANCE_UNEVEN, RebalanceScenarios.REBALANCE_LEAVE,
            RebalanceScenarios.REBALANCE_KILL, RebalanceScenarios.REBALANCE_KILL_SENDER,
            PairScenarios.PAIR, PairScenarios.PAIR_THREE, PairScenarios.PAIR_ONE_SIDED,
            HealScenarios.HEAL_SEND, HealScenarios.HEAL_TAKE_BACK, HealScenarios.HEAL_RECEIVE,
            HealScenarios.HEAL_START, HealScenarios.HEAL_FORWARD, HealScenarios.HEAL_BUSY,
            BalanceScenarios.BURST, PickScenarios.BURST_SLOW, PickScenarios.BURST_STALL,
            PickScenarios.RECEIVE_STALL, PickScenarios.PICK_SLOW, PickScenarios.BURST_THREE,
            LifecycleScenarios.LEAVE_UNSEEN,
            MixedScenarios.MIXED, MixedScenarios.MIXED_MODES, MixedScenarios.MIXED_FRESH,
            TlsScenarios.TLS_REBALANCE, TlsScenarios.TLS_LEAVE, TlsScenarios.TLS_BURST);

    private Scenarios() {
    }

    public static Scenario named(String name) {
        for (Scenario s : ALL) {
            if (s.name.equalsIgnoreCase(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("no scenario " + name + "; have " + ALL);
    }

    static void started(Sim s, Worker... ws) {
        s.setup(() -> {
            for (Worker w : ws) {
                w.bind();
                w.start();
            }
        });
    }

    /** A hand-off already queued to {@code target} before the run (raised, then sent). */
    static void queued(Sim s, int target, Conn c) {
        s.setup(() -> {
            if (s.ledger.accept() != c) {
                throw new IllegalStateException(c + " is not first in the backlog");
            }
            s.page.getAndAdd(PageLayout.countsWord(target), Counts.RAISE);
            s.channel.send(target, c);
        });
    }

    /** Clients connecting at these offsets from T0 (ascending), from an actor of their own. */
    static void clientsAt(Sim s, long... offsets) {
        s.actor("clients", () -> {
            for (long t : offsets) {
                s.sleep(Sim.T0 + t - s.now());
                s.connect();
            }
        });
    }

    /** Its loop runs until the world's end. */
    static void serving(Sim s, Worker w) {
        s.loop(w, () -> w.run(END));
    }

    /** SIGTERM at once: its loop leaves (the core's leave, its drain, its hand-overs) and exits. */
    static void leaving(Sim s, Worker w) {
        s.loop(w, () -> w.leave(END));
    }

    /** A replacement the kernel never hands a connection to: bind, start, serve. */
    static void replacement(Worker r) {
        r.accepts(false);
        r.bind();
        r.start();
        r.run(END);
    }

    /** Every worker of {@code w} runs its loop until {@code end}. */
    static void running(Sim s, long end, Worker... w) {
        for (Worker x : w) {
            s.loop(x, () -> x.run(end));
        }
    }
}
