package m0.sim;

import java.util.List;
import m0.sim.Scenarios.Scenario;

/**
 * The fountain policy's worlds (ADR 0019) and the herd's (EPOLLEXCLUSIVE), in the epoll model:
 * workers block in epoll_wait ({@link EpollLoop}), the listener wakes them as
 * {@link ListenerWake} says, and {@link ListenerModel} holds the oracles. Run the fountain ones
 * under {@code Policies.named("fountain")}, HERD-share and HERD-race under their policy.
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
            "three workers: a burst of 40 fills w0 (surge), then w1, then w2 starts; w0's clients leave at 10 ms;"
            + " clients at 45 and 50 ms go to w0 again", 3, FountainScenarios::fill);
    public static final Scenario FLAP = new Scenario("FOUNTAIN-FLAP",
            "w0's load: 100 % to 100 ms, 78 % to 160 ms, then 6 ms on / 6 ms off: its busy word never flaps",
            2, FountainScenarios::flap);
    public static final Scenario HERD = new Scenario("HERD",
            "EPOLLEXCLUSIVE: w0 is in a 5 ms pass when a client comes at 1 ms; idle w1 is woken for it",
            2, FountainScenarios::herd);

    public static final List<Scenario> FOUNTAIN = List.of(STUCK, LEAVE, KILL, FILL, FLAP);

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

    /** A fountain worker's loop: samples its busy time, serves until {@code until}. */
    private static EpollLoop fountain(Sim s, Worker w) {
        return new EpollLoop(s, w).sampling();
    }

    /**
     * The burst is in the backlog before the run; the workers' loops start 50 us apart, so that
     * their looks (every 1 ms) and w0's passes (0.4 ms each) fall on different instants: the
     * bound that keeps this world exhaustive. The late clients wake w0 and whoever listens at
     * once, and those races are explored in full.
     */
    static final String FILL_BOUND = "loops staggered by 50 us";

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
        s.listener.use(ListenerWake.ALL);
        s.listener.waitBound = LEAVE_BOUND;
        s.loop(w0, () -> {
            s.sleep(MS);
            w0.ops.passStart();
            s.sleep(1000 * MS); // stopped inside the pass, past the end of the world
            w0.ops.passEnd(1);
        });
        s.loop(w1, () -> fountain(s, w1).run(T0 + 10 * MS));
        clientsAt(s, 3 * MS / 2, 5 * MS / 2, 4 * MS);
    }

    /**
     * A head that left is skipped at the next look (1 ms), not after the 2 ms a stuck one costs:
     * LEFT is final, nothing needs to be waited out. Hence the tighter bound here.
     */
    static void leave(Sim s) {
        Worker w0 = s.worker(0);
        Worker w1 = s.worker(1);
        started(s, w0, w1);
        s.listener.use(ListenerWake.ALL);
        s.listener.waitBound = LEAVE_BOUND / 2;
        s.loop(w0, () -> {
            fountain(s, w0).run(T0 + MS);
            w0.leaveAndDrain();
        });
        s.loop(w1, () -> fountain(s, w1).run(T0 + 10 * MS));
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
        s.listener.use(ListenerWake.ALL);
        s.listener.waitBound = LEAVE_BOUND;
        SupervisorOps<Conn> sup = s.supervisorOps();
        s.loop(w0, () -> fountain(s, w0).run(T0 + 10 * MS));
        s.loop(w1, () -> fountain(s, w1).run(T0 + 10 * MS));
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
        Worker w0 = s.worker(0);
        Worker w1 = s.worker(1);
        Worker w2 = s.worker(2);
        started(s, w0, w1, w2);
        s.listener.use(ListenerWake.ALL);
        s.listener.fillOracle = true;
        s.listener.takeBackBy = 0;
        s.clients(40);
        long end = T0 + 60 * MS;
        s.loop(w0, () -> fountain(s, w0).acceptCost(MS / 10).clientsLeaveAt(T0 + 10 * MS).run(end));
        s.loop(w1, () -> {
            s.sleep(MS / 20);
            fountain(s, w1).acceptCost(MS / 10).run(end);
        });
        s.loop(w2, () -> {
            s.sleep(MS / 10);
            fountain(s, w2).acceptCost(MS / 10).run(end);
        });
        clientsAt(s, 45 * MS, 50 * MS);
    }

    static void flap(Sim s) {
        Worker w0 = s.worker(0);
        Worker w1 = s.worker(1).accepts(false);
        started(s, w0, w1);
        s.listener.use(ListenerWake.ALL);
        s.listener.flapOracle = true;
        s.loop(w0, () -> fountain(s, w0).load(FountainScenarios::flapLoad).run(T0 + 270 * MS));
    }

    /** 100 % to 100 ms (full), 78 % to 160 ms (inside the band: stays full), then 6 ms on, 6 ms off. */
    static long flapLoad(long t) {
        long d = t - T0;
        if (d < 100 * MS) {
            return 1000;
        }
        if (d < 160 * MS) {
            return 780;
        }
        return d < 260 * MS && (d / (6 * MS)) % 2 == 0 ? 1000 : 0;
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
            w0.ops.passStart();
            w0.ops.passEnd(1);
        });
        s.listener.use(ListenerWake.EXCLUSIVE);
        s.listener.idleOracle = true;
        s.loop(w0, () -> {
            w0.ops.passStart();
            s.sleep(5 * MS);
            w0.ops.passEnd(1);
            new EpollLoop(s, w0).run(T0 + 10 * MS);
        });
        s.loop(w1, () -> new EpollLoop(s, w1).run(T0 + 10 * MS));
        clientsAt(s, MS);
    }
}
