package m0.sim;

import java.util.List;
import java.util.function.Consumer;
import m0.core.Counts;
import m0.core.PageLayout;

/**
 * One scenario per correction of the seed: the smallest world in which the historical
 * ordering goes wrong. Two workers; w0 carries a load so that its pick prefers w1; virtual
 * time ends at {@link #END}, past every bound the protocol keeps (the 250 ms drains, and the
 * loop's heal look, which an idle worker makes once a second).
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

    public static final Scenario R5 = new Scenario("R5",
            "w0 passes a connection to idle w1, which receives and retires it", Scenarios::r5);
    public static final Scenario B25_SEND = new Scenario("B25-send",
            "w0 passes a connection to w1 while w1 leaves", Scenarios::b25);
    public static final Scenario B25_IDLE = new Scenario("B25-idle",
            "w1 leaves with a hand-off queued to it and another on its way; its drain meets them",
            Scenarios::b25Idle);
    public static final Scenario TAKEN = new Scenario("TAKEN",
            "w1 takes a queued hand-off and is killed at any point; a replacement takes the index",
            Scenarios::taken);
    public static final Scenario NS = new Scenario("NS",
            "w1's replacement binds and is held before start while w0 accepts", Scenarios::ns);
    public static final Scenario RP = new Scenario("RP",
            "w1 is killed while parked; the supervisor reaps and gives up; w0 accepts two",
            Scenarios::rp);
    public static final Scenario RB = new Scenario("RB",
            "w1 is stopped; w0 queues a connection to it; w1 is killed and given up",
            Scenarios::rb);
    public static final Scenario SENDER_KILLED = new Scenario("SENDER-KILLED",
            "w0 is killed at any point of a hand-off to w1 (between raising pending and sending)",
            Scenarios::senderKilled);

    public static final Scenario R5_WIDE = new Scenario("R5-wide",
            "three workers: w0 and w2 each accept one and pass it on while w1 serves", 3, Scenarios::r5Wide);
    public static final Scenario B25_WIDE = new Scenario("B25-wide",
            "three workers: w0 passes one on while w1 and w2 both leave (forwarding to each other)", 3,
            Scenarios::b25Wide);
    public static final Scenario RP_RESPAWN = new Scenario("RP-respawn",
            "w1 is killed while parked and respawned (bind, then start) while w0 accepts two",
            Scenarios::rpRespawn);

    public static final Scenario B25_SLOW = new Scenario("B25-slow",
            "w1 leaves with a hand-off queued while w0, the only live sibling, is 3 ms into a slow pass",
            Scenarios::b25Slow);

    public static final Scenario LIFECYCLE = new Scenario("LIFECYCLE",
            "three workers: w0 accepts two and passes them on while w1 leaves and is given up, and w2 is"
            + " killed at any point, reaped and respawned", 3, Scenarios::lifecycle);

    public static final Scenario BALANCE = new Scenario("BALANCE",
            "a burst of 5 into two idle, fast workers; w0 accepts, w1 serves what it is passed", Scenarios::balance);
    public static final Scenario BALANCE_EVEN = new Scenario("BALANCE-even",
            "a burst of 4 into two idle, fast workers; w0 accepts: it must end 2/2, exactly (ADR 0040)",
            Scenarios::balanceEven);
    public static final Scenario SHAPE_AFTER_CHURN = new Scenario("SHAPE-after-churn",
            "w0 keeps through a spell of churn (ADR 0041), its load stops, and a keep-alive burst of 2 at 900 ms"
            + " lands balanced", Scenarios::shapeAfterChurn);
    public static final Scenario SHAPE_FLAP = new Scenario("SHAPE-flap",
            "w0's arrivals sit at share's threshold, one window just inside it and the next just outside: its"
            + " mode changes once", Scenarios::shapeFlap);
    public static final Scenario BALANCE_RACE = new Scenario("BALANCE-race",
            "a burst of 3 into two idle, fast workers that both accept", Scenarios::balanceRace);

    public static final Scenario LATE_SEND = new Scenario("LATE-SEND",
            "w0 reads w1 live and stalls 300 ms before sendmsg; w1 is killed, reaped and given up meanwhile",
            Scenarios::lateSend);

    public static final Scenario WAIT_START = new Scenario("WAIT-START",
            "w1 leaves with a hand-off queued while w0, its only sibling, is killed, reaped and respawned (starts 50 ms later)",
            Scenarios::waitStart);

    public static final Scenario REBALANCE = new Scenario("REBALANCE",
            "three workers, a cold skew: w0 holds " + Scenarios.SKEW + " idle connections, w1 and w2 none; each"
            + " looks after every pass with work and on its tick, and moves at most one every 2 ms", 3, Scenarios::rebalance);
    public static final Scenario REBALANCE_UNEVEN = new Scenario("REBALANCE-uneven",
            "three workers holding 2 / 0 / 4 idle connections; each looks and moves at most one every 2 ms", 3,
            Scenarios::rebalanceUneven);
    public static final Scenario REBALANCE_LEAVE = new Scenario("REBALANCE-leave",
            "REBALANCE (3 held) while w1 leaves at once", 3,
            Scenarios::rebalanceLeave);
    public static final Scenario REBALANCE_KILL = new Scenario("REBALANCE-kill",
            "REBALANCE (3 held) while w1 is killed at any point of the first move, reaped and respawned (starting 2 ms"
            + " later)", 3,
            Scenarios::rebalanceKill);
    public static final Scenario REBALANCE_KILL_SENDER = new Scenario("REBALANCE-kill-sender",
            "REBALANCE while w0 is killed at any point of its first move, reaped and respawned", 3,
            Scenarios::rebalanceKillSender);

    public static final Scenario HEAL_SEND = new Scenario("HEAL-send",
            "w0 is killed at any point of a hand-off to w1 (before, inside or after its raise and send), reaped and"
            + " respawned", Scenarios::healSend);
    public static final Scenario HEAL_TAKE_BACK = new Scenario("HEAL-take-back",
            "w0 passes one to w1 while w1 leaves, and is killed at any point (between its raise and its take-back"
            + " too); both indices are reaped and given up", Scenarios::healTakeBack);
    public static final Scenario HEAL_RECEIVE = new Scenario("HEAL-receive",
            "w1 takes a queued hand-off and is killed at any point (between recvmsg and taken + 1, inside its"
            + " retire), reaped and given up", Scenarios::healReceive);
    public static final Scenario HEAL_START = new Scenario("HEAL-start",
            "w1's predecessor died holding a receipt; its replacement is killed at any point of its start and"
            + " first passes, reaped and respawned again", Scenarios::healStart);
    public static final Scenario HEAL_FORWARD = new Scenario("HEAL-forward",
            "w1 leaves with a hand-off queued and forwards it to w0; it is killed at any point of its drain,"
            + " reaped and given up", Scenarios::healForward);

    public static final Scenario BURST = new Scenario("BURST",
            "a burst of 4 into two idle workers that both accept: each kept connection is published at once",
            Scenarios::burstBoth);

    public static final Scenario LEAVE_UNSEEN = new Scenario("LEAVE-UNSEEN",
            "w1 is spawned and starts with a hand-off queued to it; its only sibling w0 dies and is not replaced;"
            + " w1 gets SIGTERM before the supervisor has seen it start", Scenarios::leaveUnseen);

    public static final Scenario HEAL_BUSY = new Scenario("HEAL-busy",
            "three workers: w0 and w2 each hand an idle connection to w1; w2 is killed at any point of it and"
            + " reaped; w1's heal (asked for by the reap) runs while w0's hand-off is under way", 3,
            Scenarios::healBusy);

    public static final List<Scenario> ALL = List.of(R5, B25_SEND, B25_IDLE, TAKEN, NS, RP, RB, SENDER_KILLED,
            R5_WIDE, B25_WIDE, RP_RESPAWN, B25_SLOW, LIFECYCLE, BALANCE, BALANCE_EVEN, SHAPE_AFTER_CHURN, SHAPE_FLAP, BALANCE_RACE, LATE_SEND, WAIT_START,
            REBALANCE, REBALANCE_UNEVEN, REBALANCE_LEAVE, REBALANCE_KILL, REBALANCE_KILL_SENDER,
            PairScenarios.PAIR, PairScenarios.PAIR_THREE, PairScenarios.PAIR_ONE_SIDED,
            HEAL_SEND, HEAL_TAKE_BACK, HEAL_RECEIVE, HEAL_START, HEAL_FORWARD, HEAL_BUSY, BURST, PickScenarios.BURST_SLOW, PickScenarios.BURST_STALL,
            PickScenarios.RECEIVE_STALL, PickScenarios.PICK_SLOW, PickScenarios.BURST_THREE, LEAVE_UNSEEN,
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
    private static void queued(Sim s, int target, Conn c) {
        s.setup(() -> {
            if (s.ledger.accept() != c) {
                throw new IllegalStateException(c + " is not first in the backlog");
            }
            s.page.getAndAdd(PageLayout.countsWord(target), Counts.RAISE);
            s.channel.send(target, c);
        });
    }

    /** Clients connecting at these offsets from T0 (ascending), from an actor of their own. */
    private static void clientsAt(Sim s, long... offsets) {
        s.actor("clients", () -> {
            for (long t : offsets) {
                s.sleep(Sim.T0 + t - s.now());
                s.connect();
            }
        });
    }

    /** Its loop runs until the world's end. */
    private static void serving(Sim s, Worker w) {
        s.loop(w, () -> w.run(END));
    }

    /** SIGTERM at once: its loop leaves (the core's leave, its drain, its hand-overs) and exits. */
    private static void leaving(Sim s, Worker w) {
        s.loop(w, () -> w.leave(END));
    }

    /** A replacement the kernel never hands a connection to: bind, start, serve. */
    private static void replacement(Worker r) {
        r.accepts(false);
        r.bind();
        r.start();
        r.run(END);
    }

    /**
     * Balance, not only safety: a pick that ignores pending, or reads a sibling as slow when it
     * is not, is safe and still wrong. Every connection is kept open (keep-alive), so at
     * quiescence the served counts are the spread; the oracle wants max - min <= 1.
     */
    static void balance(Sim s) {
        burst(s, false, 5);
    }

    /**
     * An even burst, where a tie at the last pick decides: w0's fourth pick, at 2 against w1's
     * true 1, keeps it when it reads w1 as 2 (a receipt counted twice), and the burst ends 3/1.
     */
    static void balanceEven(Sim s) {
        burst(s, false, 4);
    }

    /**
     * Churn, 4 short closes a millisecond for 300 ms, and a connection-close client at 260 ms
     * whose pass judges the first window: w0 keeps (it stays open here, served). Then nothing:
     * the keeping w0 looks at each window's end and balances again, so the keep-alive burst of
     * 2 at 900 ms ends 2/1 with the one it kept (BALANCE, one acceptor; 2 keep the world small:
     * each connect races w0's accepts). A keeping worker that never woke would judge
     * [260 ms, 900 ms] at the burst: 160 short closes in 640 ms, still over half the entry
     * rate, and keep both (3/0).
     */
    static void shapeAfterChurn(Sim s) {
        long churnEnd = Sim.T0 + 300 * Sim.MS;
        Worker w0 = s.worker(0).shape(t -> (Math.min(t, churnEnd) - Sim.T0) * 4 / Sim.MS, t -> 0);
        Worker w1 = s.worker(1).accepts(false);
        started(s, w0, w1);
        s.balanceOracle = true;
        s.balanceSlack = Oracles.BALANCE_SLACK;
        s.actor("clients", () -> {
            s.sleep(260 * Sim.MS);
            s.connect();
            s.sleep(Sim.T0 + 900 * Sim.MS - s.now()); // before w1's heal look at 1 s: nothing else at that instant
            s.connect();
            s.connect();
        });
        s.loop(w0, () -> w0.run(Sim.T0 + 930 * Sim.MS));
        s.loop(w1, () -> w1.run(Sim.T0 + 930 * Sim.MS));
    }

    /** SHAPE-flap's window: a client at each window's end (plus 1 ms) wakes w0 to judge it. */
    private static final long FLAP_WINDOWS = 8;

    /**
     * Every window, 1 000 short closes and 99 reuses (just inside the entry ratio, 1 in 10), then
     * 101 (just outside it), alternately; each window's counts arrive at its middle and a client
     * at its end wakes w0. Share's gate enters keeping once and stays (leaving needs 1 in 4); a
     * gate with one threshold would change mode every window.
     */
    static void shapeFlap(Sim s) {
        long w = m0.core.LoadShape.WINDOW_NANOS;
        long first = Sim.T0 + Sim.MS + w / 2;
        java.util.function.LongUnaryOperator steps = t -> t < first ? 0 : Math.min(FLAP_WINDOWS, (t - first) / w + 1);
        Worker w0 = s.worker(0).shape(t -> 1_000 * steps.applyAsLong(t), t -> {
            long n = steps.applyAsLong(t);
            return 100 * n - n % 2; // 99, 200, 299, 400, ...: 99 and 101 alternately
        });
        Worker w1 = s.worker(1).accepts(false);
        started(s, w0, w1);
        s.shapeSwitchBound = 1;
        s.actor("clients", () -> {
            for (int k = 1; k <= FLAP_WINDOWS; k++) {
                s.sleep(Sim.T0 + Sim.MS + k * w - s.now());
                s.connect();
            }
        });
        long end = Sim.T0 + Sim.MS + FLAP_WINDOWS * w + w / 2; // before the next window, where the load has stopped
        s.loop(w0, () -> w0.run(end));
        s.loop(w1, () -> w1.run(end));
    }

    static void balanceRace(Sim s) {
        burst(s, true, 3);
    }

    /**
     * ADR 0007: both workers accept from one burst, each in its own pass; a connection one keeps
     * must be in its published load before the other's next pick (ACTIVE).
     */
    static void burstBoth(Sim s) {
        burst(s, true, 4);
    }

    private static void burst(Sim s, boolean bothAccept, int clients) {
        Worker w0 = s.worker(0);
        Worker w1 = s.worker(1).accepts(bothAccept);
        started(s, w0, w1);
        s.clients(clients);
        s.balanceOracle = true;
        s.balanceSlack = Oracles.BALANCE_SLACK; // one acceptor or two (ADR 0043, ADR 0053)
        s.loop(w0, () -> w0.run(Sim.T0 + 30 * Sim.MS));
        s.loop(w1, () -> w1.run(Sim.T0 + 30 * Sim.MS));
    }

    /**
     * The rebalance worlds' bounds (ADR 0014): how many idle connections the heavy worker holds,
     * and how long everyone's loop runs: past the moves (one every 2 ms), their receipts and a
     * rebalance tick (25 ms) that finds nothing more to do. A leave or a kill with 4 held
     * outgrows the budget, so those hold 3.
     */
    static final int SKEW = 4;
    static final long SKEW_END = Sim.T0 + 40 * Sim.MS;
    static final int SKEW_SMALL = 3;
    static final long SKEW_SMALL_END = Sim.T0 + 30 * Sim.MS;

    /** Three started workers that rebalance, none accepting; the rebalance oracles on. */
    private static Worker[] skew(Sim s) {
        s.rebalance(true);
        Worker w0 = s.worker(0).accepts(false);
        Worker w1 = s.worker(1).accepts(false);
        Worker w2 = s.worker(2).accepts(false);
        started(s, w0, w1, w2);
        s.rebalanceOracle = true;
        return new Worker[] {w0, w1, w2};
    }

    /** Every worker of {@code w} runs its loop until {@code end}. */
    static void running(Sim s, long end, Worker... w) {
        for (Worker x : w) {
            s.loop(x, () -> x.run(end));
        }
    }

    /** The supervisor's reap and respawn of {@code index}: bind, start, then its loop until {@code end}. */
    private static void respawned(Sim s, SupervisorOps<Conn> sup, int index, long end) {
        s.replace(index, sup, r -> {
            r.accepts(false);
            r.bind();
            r.start();
            r.run(end);
        });
    }

    static void rebalance(Sim s) {
        Worker[] w = skew(s);
        running(s, SKEW_END, w);
        s.setup(() -> s.holds(w[0], SKEW));
    }

    /**
     * Three different loads, 2 / 0 / 4 (a respawn into a spread that was not even): the middle
     * one is two over the lightest too, but only the heaviest's moves are needed.
     */
    static void rebalanceUneven(Sim s) {
        Worker[] w = skew(s);
        running(s, SKEW_SMALL_END, w);
        s.setup(() -> {
            s.holds(w[0], 2);
            s.holds(w[2], 4);
        });
    }

    /** w1 leaves at once: a move racing its LEFT is taken back or forwarded by its drain. */
    static void rebalanceLeave(Sim s) {
        Worker[] w = skew(s);
        running(s, SKEW_SMALL_END, w[0], w[2]);
        s.loop(w[1], () -> w[1].leave(SKEW_SMALL_END));
        s.setup(() -> s.holds(w[0], SKEW_SMALL));
    }

    /**
     * w1 is killed at any point of w0's first look and move (before, while or after it receives
     * what w0 moves to it), reaped, and respawned into its index while w0 goes on moving: the
     * replacement is NOT_STARTED for 2 ms (a JVM starting, across w0's next look), then empty.
     */
    static void rebalanceKill(Sim s) {
        Worker[] w = skew(s);
        SupervisorOps<Conn> sup = s.supervisorOps();
        running(s, SKEW_SMALL_END, w);
        s.setup(() -> s.holds(w[0], SKEW_SMALL));
        s.actor("sup", () -> {
            s.kill(w[1]);
            s.replace(1, sup, r -> {
                r.accepts(false);
                r.bind();
                s.sleep(2 * Sim.MS);
                r.start();
                r.run(SKEW_SMALL_END);
            });
        });
    }

    /**
     * w0, the one that moves, is killed at any point of its first look and move (between a raise
     * and its send: an orphaned raise against the target), reaped and respawned empty.
     */
    static void rebalanceKillSender(Sim s) {
        Worker[] w = skew(s);
        SupervisorOps<Conn> sup = s.supervisorOps();
        running(s, SKEW_END, w);
        s.setup(() -> s.holds(w[0], SKEW));
        s.actor("sup", () -> {
            s.kill(w[0]);
            respawned(s, sup, 0, SKEW_END);
        });
    }

    static void r5(Sim s) {
        Worker w0 = s.worker(0).load(1);
        Worker w1 = s.worker(1).accepts(false);
        started(s, w0, w1);
        s.clients(1);
        serving(s, w0);
        serving(s, w1);
    }

    static void b25(Sim s) {
        Worker w0 = s.worker(0).load(1);
        Worker w1 = s.worker(1).accepts(false);
        started(s, w0, w1);
        s.clients(1);
        serving(s, w0);
        leaving(s, w1);
    }

    /**
     * Pick skips a sibling inside one pass for over 2 ms; a leaver's forward (and the give-up's
     * re-homing) must still choose it when it is the only live one, or the leaver admits a fresh
     * hand-off and closes it as idle. w0's pass starts at 0 and runs 5 ms inline; w1 leaves at
     * 3 ms with one hand-off queued. Time barriers order everything: one execution, by design.
     */
    static void b25Slow(Sim s) {
        Worker w0 = s.worker(0).load(1);
        Worker w1 = s.worker(1).accepts(false);
        started(s, w0, w1);
        List<Conn> cs = s.clients(2);
        queued(s, 1, cs.get(0));
        s.loop(w0, () -> {
            w0.slowPass = 5 * Sim.MS;
            w0.run(END);
        });
        s.loop(w1, () -> {
            s.sleep(3 * Sim.MS);
            w1.leave(END);
        });
    }

    /**
     * The composed world: every act of the lifecycle in one run. w0 (carrying a load, so its
     * picks prefer its siblings) accepts two connections a tick apart and passes them on; w1 is told to leave
     * at once (its drain forwards what reaches it) and, once it has exited, is reaped and given
     * up (a leave is not replaced); w2 is killed by the supervisor at any point of everyone
     * else's steps, reaped, and respawned (bind, then start). The bound: two clients, one leave,
     * one kill, one respawn, one give-up.
     */
    static void lifecycle(Sim s) {
        Worker w0 = s.worker(0).load(1);
        Worker w1 = s.worker(1).accepts(false);
        Worker w2 = s.worker(2).accepts(false);
        started(s, w0, w1, w2);
        s.clients(1);
        clientsAt(s, s.tick);
        SupervisorOps<Conn> sup = s.supervisorOps();
        serving(s, w0);
        leaving(s, w1);
        serving(s, w2);
        s.actor("sup", () -> {
            s.kill(w2);
            s.replace(2, sup, Scenarios::replacement);
            while (!w1.exited) {
                s.sleep(s.tick);
            }
            s.reap(1, sup);
            s.giveUp(sup, 1);
        });
    }

    /**
     * w0's load of two makes it pass its accept to w1 though one hand-off to w1 is still queued
     * (1 + 1 against 2): the second is raised, and may land after w1's LEFT, in its drain.
     */
    static void b25Idle(Sim s) {
        Worker w0 = s.worker(0).load(2);
        Worker w1 = s.worker(1).accepts(false);
        started(s, w0, w1);
        List<Conn> cs = s.clients(2);
        queued(s, 1, cs.get(0));
        serving(s, w0);
        leaving(s, w1);
    }

    static void r5Wide(Sim s) {
        Worker w0 = s.worker(0).load(1);
        Worker w1 = s.worker(1).accepts(false);
        Worker w2 = s.worker(2).load(1);
        started(s, w0, w1, w2);
        s.clients(2);
        serving(s, w0);
        serving(s, w2);
        serving(s, w1);
    }

    static void b25Wide(Sim s) {
        Worker w0 = s.worker(0).load(2);
        Worker w1 = s.worker(1).accepts(false);
        Worker w2 = s.worker(2).accepts(false);
        started(s, w0, w1, w2);
        s.clients(1);
        serving(s, w0);
        leaving(s, w1);
        leaving(s, w2);
    }

    static void rpRespawn(Sim s) {
        Worker w0 = s.worker(0).load(1);
        Worker w1 = s.worker(1).accepts(false);
        started(s, w0, w1);
        s.clients(2);
        SupervisorOps<Conn> sup = s.supervisorOps();
        serving(s, w0);
        s.actor("sup", () -> {
            s.kill(w1);
            s.replace(1, sup, Scenarios::replacement);
        });
    }

    static void taken(Sim s) {
        Worker w1 = s.worker(1).accepts(false);
        started(s, w1);
        Conn c = s.clients(1).get(0);
        queued(s, 1, c);
        SupervisorOps<Conn> sup = s.supervisorOps();
        serving(s, w1);
        s.actor("sup", () -> {
            s.kill(w1);
            s.replace(1, sup, Scenarios::replacement);
        });
    }

    static void ns(Sim s) {
        Worker w0 = s.worker(0).load(1);
        Worker old = s.worker(1);
        started(s, w0, old);
        SupervisorOps<Conn> sup = s.supervisorOps();
        s.setup(() -> {
            old.dead = true; // the predecessor died and was reaped before the run, to be replaced
            s.reap(1, sup, true);
        });
        Worker w1 = s.worker(1).accepts(false); // its replacement
        s.clients(1);
        serving(s, w0);
        s.loop(w1, () -> {
            w1.bind();
            s.sleep(50 * Sim.MS); // held between bind and start (--dev-arm-gap-ms)
            w1.start();
            w1.run(END);
        });
        s.actor("sup", () -> {
            while (!w1.exited && !sup.startSeen(1)) {
                s.sleep(s.tick);
            }
        });
    }

    static void rp(Sim s) {
        Worker w0 = s.worker(0).load(1);
        Worker w1 = s.worker(1).accepts(false);
        started(s, w0, w1);
        s.clients(2);
        SupervisorOps<Conn> sup = s.supervisorOps();
        serving(s, w0);
        serving(s, w1);
        s.actor("sup", () -> {
            s.kill(w1);
            s.reap(1, sup);
            s.giveUp(sup, 1);
        });
    }

    static void rb(Sim s) {
        Worker w0 = s.worker(0).load(1);
        Worker w1 = s.worker(1).accepts(false); // SIGSTOPped while parked: no loop runs
        started(s, w0, w1);
        s.clients(1);
        SupervisorOps<Conn> sup = s.supervisorOps();
        serving(s, w0);
        s.actor("sup", () -> {
            s.kill(w1);
            s.reap(1, sup);
            s.giveUp(sup, 1);
        });
    }

    /**
     * No late strand: a sender that re-read w1's state before the reap and then stalled past
     * the give-up's 250 ms bound (a GC pause) queues into a channel whose drain has finished.
     * The supervisor keeps that channel watched until the index is bound again (never, here),
     * re-homing what arrives. The world runs to 400 ms so the late send lands inside it.
     */
    static void lateSend(Sim s) {
        long end = Sim.T0 + 400 * Sim.MS;
        Worker w0 = s.worker(0).load(1);
        Worker w1 = s.worker(1).accepts(false); // SIGSTOPped while parked: no loop runs
        started(s, w0, w1);
        s.clients(1);
        SupervisorOps<Conn> sup = s.supervisorOps();
        s.loop(w0, () -> {
            w0.stallBeforeSend = 300 * Sim.MS;
            w0.run(end);
        });
        s.actor("sup", () -> {
            s.kill(w1);
            s.reap(1, sup);
            s.giveUpAndWatch(sup, 1, end - 20 * Sim.MS);
        });
    }

    /**
     * Wait for a starting sibling: w1 leaves with a hand-off queued to it while w0, its only
     * sibling, is killed at any point, reaped and respawned (bound at once, started 50 ms
     * later). Forwarding can find nobody live; admitting the hand-off would close it unserved.
     * The leaver holds it until the replacement starts (within the wait). The supervisor marks
     * the replacement as starting from its reap until it sees it start, as m0serve's does; every
     * interleaving of the kill and reap with the leaver's reads is explored.
     */
    static void waitStart(Sim s) {
        Worker w0 = s.worker(0).accepts(false);
        Worker w1 = s.worker(1).accepts(false);
        started(s, w0, w1);
        Conn c = s.clients(1).get(0);
        queued(s, 1, c);
        SupervisorOps<Conn> sup = s.supervisorOps();
        serving(s, w0);
        leaving(s, w1);
        s.actor("sup", () -> {
            s.kill(w0);
            s.replace(0, sup, w -> {
                w.accepts(false);
                w.bind();
                s.sleep(50 * Sim.MS); // a JVM starting
                w.start();
                w.run(END);
            });
        });
    }

    /**
     * A worker that leaves before the supervisor has seen it start (ADR 0038): w1 was spawned
     * (marked starting), bound and started, with a hand-off queued to it; w0, its only sibling,
     * dies and is given up; w1 gets SIGTERM before the supervisor's look at its start. Nobody is
     * live or coming but w1 itself: it must serve the hand-off at once, not hold it through the
     * 5 s start wait (a server-wide STARTING count counted w1 as a sibling of its own). The
     * world ends at 1.5 s: a leaver still holding it then is a STRANDED connection.
     */
    static void leaveUnseen(Sim s) {
        Worker w0 = s.worker(0).accepts(false);
        Worker w1 = s.worker(1).accepts(false);
        SupervisorOps<Conn> sup = s.supervisorOps();
        s.setup(() -> {
            sup.spawning(0);
            sup.spawning(1);
            w0.bind();
            w0.start();
            sup.startSeen(0);
            w1.bind();
            w1.start(); // not yet seen by the supervisor
        });
        queued(s, 1, s.clients(1).get(0));
        s.setup(() -> {
            w0.dead = true;
            s.stopping = true; // not replaced
            s.reap(0, sup);
        });
        leaving(s, w1);
    }

    // ---- self-healing counts (ADR 0024): one kill at any point of any two-write window, then
    // the index's recovery; the HEAL oracle wants every index's pending - taken exactly what is
    // queued to it at quiescence, and R5 that no step (a heal's least of all) takes it lower.

    /** Window (a): a sender killed between its raise and its send; its replacement starts. */
    static void healSend(Sim s) {
        Worker w0 = s.worker(0).load(1);
        Worker w1 = s.worker(1).accepts(false);
        started(s, w0, w1);
        s.clients(1);
        SupervisorOps<Conn> sup = s.supervisorOps();
        serving(s, w0);
        serving(s, w1);
        s.actor("sup", () -> {
            s.kill(w0);
            s.replace(0, sup, r -> { // it accepts: a kill before w0's accept leaves c1 in the backlog
                r.bind();
                r.start();
                r.run(END);
            });
        });
    }

    /**
     * Window (a) on the take-back path: the target leaves, the sender reads LEFT after its raise
     * and is killed before it takes the raise back; the leaver's drain waits on that raise. Both
     * indices are given up (the leaver once it has exited).
     */
    static void healTakeBack(Sim s) {
        Worker w0 = s.worker(0).load(1);
        Worker w1 = s.worker(1).accepts(false);
        started(s, w0, w1);
        s.clients(1);
        SupervisorOps<Conn> sup = s.supervisorOps();
        serving(s, w0);
        leaving(s, w1);
        s.actor("sup", () -> {
            s.stopping = true; // it replaces nobody: a kill before w0's accept leaves c1 unserved
            s.kill(w0);
            s.reap(0, sup);
            s.giveUp(sup, 0);
            while (!w1.exited) {
                s.sleep(s.tick);
            }
            s.reap(1, sup);
            s.giveUp(sup, 1);
        });
    }

    /** Windows (b) and (c): a receiver killed between recvmsg and taken + 1, or inside its retire. */
    static void healReceive(Sim s) {
        Worker w0 = s.worker(0).accepts(false);
        Worker w1 = s.worker(1).accepts(false);
        started(s, w0, w1);
        queued(s, 1, s.clients(1).get(0));
        SupervisorOps<Conn> sup = s.supervisorOps();
        serving(s, w0);
        serving(s, w1);
        s.actor("sup", () -> {
            s.kill(w1);
            s.reap(1, sup);
            s.giveUp(sup, 1);
        });
    }

    /**
     * Window (c) in start: the predecessor died holding a receipt (taken 1) with one more hand-off
     * queued; its replacement is killed at any point of its start (between reading taken and
     * subtracting it) and of its first passes, and a second replacement takes the index.
     */
    static void healStart(Sim s) {
        Worker w0 = s.worker(0).accepts(false);
        Worker old = s.worker(1).accepts(false);
        started(s, w0, old);
        List<Conn> cs = s.clients(2);
        queued(s, 1, cs.get(0));
        queued(s, 1, cs.get(1));
        SupervisorOps<Conn> sup = s.supervisorOps();
        s.setup(() -> {
            // The predecessor received c1, published it in taken and died before its pass end.
            Conn c = s.channel.receive(1);
            s.page.getAndAdd(PageLayout.countsWord(1), Counts.RECEIPT);
            s.ledger.release(s.me(), c);
            c.eof = "holder " + old + " died";
            old.dead = true;
            s.reap(1, sup, true);
        });
        Worker w1 = s.worker(1).accepts(false);
        serving(s, w0);
        s.loop(w1, () -> replacement(w1));
        s.actor("sup", () -> {
            s.kill(w1);
            s.replace(1, sup, Scenarios::replacement);
        });
    }

    /**
     * A leaver's forward is a sender again: w1 leaves with a hand-off queued and forwards it to
     * w0; killed at any point of its drain (between recvmsg and taken + 1 on its own index,
     * between the forward's raise and its send on w0's), reaped and given up.
     */
    static void healForward(Sim s) {
        Worker w0 = s.worker(0).accepts(false);
        Worker w1 = s.worker(1).accepts(false);
        started(s, w0, w1);
        queued(s, 1, s.clients(1).get(0));
        SupervisorOps<Conn> sup = s.supervisorOps();
        serving(s, w0);
        leaving(s, w1);
        s.actor("sup", () -> {
            s.kill(w1);
            s.reap(1, sup);
            s.giveUp(sup, 1);
        });
    }

    /**
     * A heal with a live hand-off under way: w0 and w2 each hand one of their idle connections to
     * w1 (the same R5 + B25 hand-off as a fresh accept's); w2 is killed at any point of its
     * hand-off (between its raise and its send too) and reaped, and its reap asks w1 to heal; a
     * microsecond later w1's loop runs (its heal at an EAGAIN) while w0's hand-off may be
     * anywhere: published, raised, queued, cleared. The heal must take off w2's orphan and nothing
     * of w0's raise. Index 2 has nothing sent to it: no give-up needed. (w1's passes racing the
     * death and the reap too grew the world past 4 M executions; the heal against its request is
     * HealTest's.)
     */
    static void healBusy(Sim s) {
        Worker w0 = s.worker(0).accepts(false);
        Worker w1 = s.worker(1).accepts(false);
        Worker w2 = s.worker(2).accepts(false);
        started(s, w0, w1, w2);
        SupervisorOps<Conn> sup = s.supervisorOps();
        s.loop(w0, () -> {
            s.sleep(1_000); // a microsecond after w2's death and reap: beside w1's passes
            handIdleTo(w0, 1);
        });
        s.loop(w1, () -> {
            s.sleep(1_000);
            w1.run(END);
        });
        s.loop(w2, () -> handIdleTo(w2, 1));
        s.setup(() -> {
            s.holds(w0, 1);
            s.holds(w2, 1);
        });
        s.actor("sup", () -> {
            s.kill(w2);
            s.reap(2, sup);
        });
    }

    /** {@code w} hands the idle connection it holds to {@code target}, keeping it if refused. */
    private static void handIdleTo(Worker w, int target) {
        w.share().sendWith(target, w.actor.held.get(0));
    }

    static void senderKilled(Sim s) {
        Worker w0 = s.worker(0).load(1);
        Worker w1 = s.worker(1); // it accepts too: the backlog outlives w0
        started(s, w0, w1);
        s.clients(1);
        SupervisorOps<Conn> sup = s.supervisorOps();
        serving(s, w0);
        serving(s, w1);
        s.actor("sup", () -> {
            s.kill(w0);
            s.reap(0, sup);
            s.giveUp(sup, 0);
        });
    }
}
