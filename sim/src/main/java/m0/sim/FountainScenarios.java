package m0.sim;

import java.util.List;
import m0.sim.Scenarios.Scenario;

/**
 * The fountain policy's worlds (ADR 0019) and the herd's (EPOLLEXCLUSIVE): every worker runs the
 * core's loop, blocked in its wait ({@link Epoll#wait}) until the listener wakes it as its
 * policy's registration says ({@link ListenerWake}), its channel does, or a timer; and
 * {@link ListenerModel} holds the oracles. Run the fountain ones under
 * {@code Policies.named("fountain")}, HERD-share and HERD-race under their policy.
 */
public final class FountainScenarios {

    private static final long MS = Sim.MS;
    private static final long T0 = Sim.T0;
    /** The fountain's bound on leaving a connection to an earlier worker. */
    static final long LEAVE_BOUND = 2 * MS;

    public static final Scenario STUCK = new Scenario("FOUNTAIN-STUCK",
            "w0 stops inside a pass at 1 ms for good; clients at 1.5, 2.5 and 4 ms: w1 takes each within 2 ms",
            2, FountainScenarios::stuck);
    public static final Scenario LEAVE = new Scenario("FOUNTAIN-LEAVE",
            "a client at 0.5 ms; w0 leaves at 1 ms; clients at 2 and 3 ms: w1 skips the head that left within a look (1 ms)",
            2, FountainScenarios::leave);
    public static final Scenario KILL = new Scenario("FOUNTAIN-KILL",
            "w0 is killed at any point around a client at 1 ms and reaped only at 6 ms; clients at 2 and 3 ms",
            2, FountainScenarios::kill);
    public static final Scenario FILL = new Scenario("FOUNTAIN-FILL",
            "three workers: a burst of " + FountainScenarios.BURST + " fills w0 (surge: 9 each), then w1, then w2, which"
            + " takes the last one full (nobody else is free); w0's clients leave at 10 ms; clients at 45 and 50 ms go to"
            + " w0 again", 3, FountainScenarios::fill);
    public static final Scenario FLAP = new Scenario("FOUNTAIN-FLAP",
            "w0's load: 100 % to 100 ms, 78 % to 160 ms, then 8 ms on / 8 ms off: its busy word never flaps",
            2, FountainScenarios::flap);
    public static final Scenario HERD = new Scenario("HERD",
            "EPOLLEXCLUSIVE: w0 is in a 5 ms pass when a client comes at 1 ms; idle w1 is woken for it",
            2, FountainScenarios::herd);
    public static final Scenario CAP = new Scenario("FOUNTAIN-CAP",
            "w0 is 50 % busy and at its connection cap; clients at 1, 2.5 and 4 ms: w1 takes each within 2 ms",
            2, FountainScenarios::cap);
    public static final Scenario EMFILE = new Scenario("FOUNTAIN-EMFILE",
            "w0 is 50 % busy and out of descriptors from 0.5 ms (a 100 ms back-off); clients at 1, 2.5 and 4 ms:"
            + " w1 takes each within 2 ms", 2, FountainScenarios::emfile);
    public static final Scenario BATCH_END = new Scenario("FOUNTAIN-BATCH-END",
            "w0 holds four connections at its cap of four; a burst of " + FountainScenarios.BATCH_BURST + " is w1's"
            + " (0.1 ms an accept), which turns full on it and goes on, nobody else taking; w0's client leaves at"
            + " 2.25 ms: w1's batch ends at its next accept, and w0 takes its four (0.1 ms each)", 2, FountainScenarios::batchEnd);
    public static final Scenario NUDGE = new Scenario("FOUNTAIN-NUDGE",
            "w0 takes a burst of nine (0.1 ms an accept) that w1, starting at 0.35 ms, leaves to it; the ninth turns"
            + " w0 full and it nudges w1: a client at 0.95 ms waits no " + FountainScenarios.NUDGE_BOUND / 1000
            + " us for w1's look (1.35 ms)", 2, FountainScenarios::nudge);
    public static final Scenario LEAVE_HOLDING = new Scenario("FOUNTAIN-LEAVE-HOLDING",
            "w1 serves two keep-alive connections and leaves; w0 and w2 are live: established connections never move",
            3, FountainScenarios::leaveHolding);

    public static final List<Scenario> FOUNTAIN = List.of(STUCK, LEAVE, KILL, FILL, FLAP, CAP, EMFILE, BATCH_END,
            NUDGE, LEAVE_HOLDING);

    private FountainScenarios() {
    }

    private static void started(Sim s, Worker... ws) {
        s.setup(() -> {
            for (Worker w : ws) {
                w.bind();
                w.start();
            }
        });
    }

    /**
     * The burst is in the backlog before the run; the workers' loops start 50 us apart, so that
     * their looks (every 1 ms) and their passes fall on different instants, and a pass takes no
     * virtual time (an accept's cost would put every worker's accepts and looks on one 0.1 ms
     * grid once a nudge sets them going, and each shared instant multiplies the interleavings):
     * the bound that keeps this world exhaustive. The late clients wake whoever listens at once,
     * and those races are explored in full.
     */
    static final String FILL_BOUND = "loops staggered by 50 us";

    /**
     * FILL's burst: nine fill a free worker (the surge), three workers, and one more that the
     * last takes while every one is full. More would be raced for by all three at once, each
     * accept at its own 0.1 ms, which grows the world past its budget and tells nothing new.
     */
    static final int BURST = 28;

    /** Clients connecting at these offsets from T0 (ascending). */
    private static void clientsAt(Sim s, long... offsets) {
        s.actor("clients", () -> {
            for (long t : offsets) {
                s.sleep(T0 + t - s.now());
                s.connect();
            }
        });
    }

    static void stuck(Sim s) {
        Worker w0 = s.worker(0).load(1);
        Worker w1 = s.worker(1);
        started(s, w0, w1);
        s.listener.waitBound = LEAVE_BOUND;
        s.loop(w0, () -> {
            s.sleep(MS);
            w0.share().passStart(); // stopped inside the pass, past the end of the world
            s.sleep(1000 * MS);
            w0.share().passEnd(1);
        });
        s.loop(w1, () -> w1.run(T0 + 10 * MS));
        clientsAt(s, 3 * MS / 2, 5 * MS / 2, 4 * MS);
    }

    /**
     * A head that left is skipped at the next look (1 ms), not after the 2 ms a stuck one costs:
     * LEFT is final, nothing needs to be waited out. Hence the tighter bound here.
     */
    static void leave(Sim s) {
        Worker w0 = s.worker(0).terminateAt(T0 + MS);
        Worker w1 = s.worker(1);
        started(s, w0, w1);
        s.listener.waitBound = LEAVE_BOUND / 2;
        s.loop(w0, () -> w0.run(T0 + 10 * MS));
        s.loop(w1, () -> w1.run(T0 + 10 * MS));
        clientsAt(s, MS / 2, 2 * MS, 3 * MS);
    }

    /**
     * A dead worker reads as it died (PARKED, or inside a pass) until its reap marks it LEFT (RP):
     * here that takes 5 ms, so the 2 ms bound is kept by the later worker's own rule (a head that
     * makes no progress while a connection waits is passed over), not by the supervisor.
     */
    static void kill(Sim s) {
        Worker w0 = s.worker(0);
        Worker w1 = s.worker(1);
        started(s, w0, w1);
        s.listener.waitBound = LEAVE_BOUND;
        SupervisorOps<Conn> sup = s.supervisorOps();
        s.loop(w0, () -> w0.run(T0 + 10 * MS));
        s.loop(w1, () -> w1.run(T0 + 10 * MS));
        clientsAt(s, MS, 2 * MS, 3 * MS);
        s.actor("sup", () -> {
            s.sleep(MS);
            s.kill(w0);
            s.sleep(5 * MS); // waitpid, late
            s.reap(0, sup);
            s.giveUp(sup, 0);
        });
    }

    static void fill(Sim s) {
        Worker w0 = s.worker(0).clientsLeaveAt(T0 + 10 * MS);
        Worker w1 = s.worker(1);
        Worker w2 = s.worker(2);
        started(s, w0, w1, w2);
        s.listener.fillOracle = true;
        s.listener.takeBackBy = 0;
        s.clients(BURST);
        long end = T0 + 60 * MS;
        s.loop(w0, () -> w0.run(end));
        s.loop(w1, () -> {
            s.sleep(MS / 20);
            w1.run(end);
        });
        s.loop(w2, () -> {
            s.sleep(MS / 10);
            w2.run(end);
        });
        clientsAt(s, 45 * MS, 50 * MS);
    }

    static void flap(Sim s) {
        Worker w0 = s.worker(0).requests(FountainScenarios::flapLoad);
        Worker w1 = s.worker(1).accepts(false);
        started(s, w0, w1);
        s.listener.flapOracle = true;
        s.loop(w0, () -> w0.run(T0 + 270 * MS));
    }

    /** 100 % to 100 ms (full), 78 % to 160 ms (inside the band: stays full), then 8 ms on, 8 ms off. */
    static long flapLoad(long t) {
        long d = t - T0;
        if (d < 100 * MS) {
            return 1000;
        }
        if (d < 160 * MS) {
            return 780;
        }
        return d < 260 * MS && (d / (8 * MS)) % 2 == 0 ? 1000 : 0;
    }

    /**
     * EPOLLEXCLUSIVE for share and race: w0 (published with one open connection, so share's pick
     * keeps the connection where it lands) is inside a 5 ms pass when a client comes; the kernel
     * must wake w1, which sits idle in epoll_wait.
     */
    static void herd(Sim s) {
        Worker w0 = s.worker(0).load(1);
        Worker w1 = s.worker(1);
        started(s, w0, w1);
        s.setup(() -> {
            w0.share().passStart();
            w0.share().passEnd(1);
        });
        s.listener.idleOracle = true;
        s.loop(w0, () -> {
            w0.share().passStart(); // a 5 ms pass of connection I/O, under way when the client comes
            s.sleep(5 * MS);
            w0.share().passEnd(1);
            w0.run(T0 + 10 * MS);
        });
        s.loop(w1, () -> w1.run(T0 + 10 * MS));
        clientsAt(s, MS);
    }

    /** Half of every 2 ms busy: a head whose words move at every look, taking nothing new. */
    static long halfBusy(long t) {
        return 500;
    }

    /**
     * ADR 0038: a head that keeps its listener out for its own reasons (its connection cap here)
     * is no head. w0 holds one connection at a cap of one and is half busy serving it, so its
     * state word moves between any two of w1's looks: without its HELD mark w1 would leave every
     * connection to it and never find it stuck.
     */
    static void cap(Sim s) {
        Worker w0 = s.worker(0).load(1).maxConnections(1).requests(FountainScenarios::halfBusy);
        Worker w1 = s.worker(1);
        started(s, w0, w1);
        s.listener.waitBound = LEAVE_BOUND;
        s.loop(w0, () -> w0.run(T0 + 10 * MS));
        s.loop(w1, () -> w1.run(T0 + 10 * MS));
        clientsAt(s, MS, 5 * MS / 2, 4 * MS);
    }

    /** ADR 0038: the same with an EMFILE back-off (100 ms) for a reason of its own. */
    static void emfile(Sim s) {
        Worker w0 = s.worker(0).outOfDescriptors(T0 + MS / 2, T0 + 200 * MS).requests(FountainScenarios::halfBusy);
        Worker w1 = s.worker(1);
        started(s, w0, w1);
        s.listener.waitBound = LEAVE_BOUND;
        s.loop(w0, () -> w0.run(T0 + 10 * MS));
        s.loop(w1, () -> w1.run(T0 + 10 * MS));
        clientsAt(s, MS / 2, MS, 5 * MS / 2, 4 * MS);
    }

    /** w1's look is 1 ms after it left the burst to w0: nudged, it takes the next client at once. */
    static final long NUDGE_BOUND = MS / 4;

    /**
     * The full worker's nudge (ADR 0019: the next worker "looks at once rather than at its next
     * look"): the loop sends it where the core names a sibling at its batch's end, and the
     * nudged loop's drain makes its look due. w1 left the burst to w0 at 0.35 ms, so its own
     * look is at 1.35 ms; the accept that turns w0 full (its ninth, the surge) must have w1
     * take the listener then, and the client at 0.95 ms at once. Off the 0.1 ms grid of w0's
     * accepts, w1's start and the client keep the world small.
     */
    static void nudge(Sim s) {
        Worker w0 = s.worker(0).acceptCost(MS / 10);
        Worker w1 = s.worker(1);
        started(s, w0, w1);
        s.listener.waitBound = NUDGE_BOUND;
        s.listener.waitFrom = T0 + MS / 2; // the burst waits its turn at w0's accepts; the client is judged
        s.clients(9);
        s.loop(w0, () -> w0.run(T0 + 3 * MS));
        s.loop(w1, () -> {
            s.sleep(7 * MS / 20);
            w1.run(T0 + 3 * MS);
        });
        clientsAt(s, 19 * MS / 20);
    }

    /** BATCH_END's burst: nine turn w1 full, a few more taken full, and a rest for w0. */
    static final int BATCH_BURST = 30;

    /**
     * Where a batch ends (the loop's {@code endBatch}, issue 45): a full worker goes on with its
     * batch only while nobody else takes. w0 is at its cap (HELD) when the burst comes, so w1
     * takes it, turns full at its ninth accept and goes on (END_BATCH is not said: nobody else
     * is taking). w0's clients leave mid-batch: w0 takes its listener back and its HELD mark
     * goes, and w1's next accept must be its batch's last (BATCH-END). Accepts cost 0.1 ms (w0's
     * too, so that it is still taking at w1's next accept) and the leave is off that grid: the
     * batch spans virtual time, and the world stays small.
     */
    static void batchEnd(Sim s) {
        Worker w0 = s.worker(0).load(4).maxConnections(4).clientsLeaveAt(T0 + 9 * MS / 4).acceptCost(MS / 10);
        Worker w1 = s.worker(1).acceptCost(MS / 10);
        started(s, w0, w1);
        s.listener.fillOracle = true;
        s.clients(BATCH_BURST);
        s.loop(w0, () -> w0.run(T0 + 10 * MS));
        s.loop(w1, () -> w1.run(T0 + 10 * MS));
    }

    /**
     * Seed 004: established connections never move. w1, the middle worker, serves two
     * keep-alive connections and leaves while w0 and w2 are live; they are closed once idle (as
     * nginx's old workers close theirs), never handed to a sibling (MOVED).
     */
    static void leaveHolding(Sim s) {
        Worker w0 = s.worker(0).accepts(false);
        Worker w1 = s.worker(1).accepts(false);
        Worker w2 = s.worker(2).accepts(false);
        started(s, w0, w1, w2);
        s.movedOracle = true;
        s.loop(w0, () -> w0.run(T0 + 10 * MS));
        s.loop(w1, () -> w1.leave(T0 + 10 * MS));
        s.loop(w2, () -> w2.run(T0 + 10 * MS));
        s.setup(() -> s.holds(w1, 2));
    }
}
