package m0.sim;

import static m0.sim.Scenarios.running;
import static m0.sim.Scenarios.started;

import m0.sim.Scenarios.Scenario;

/**
 * The rebalance worlds (ADR 0014): three workers and a skew of idle connections that the loops
 * even out, with a leave or a kill during the moves. Listed in {@link Scenarios#ALL}.
 */
public final class RebalanceScenarios {

    public static final Scenario REBALANCE = new Scenario("REBALANCE",
            "three workers, a cold skew: w0 holds " + RebalanceScenarios.SKEW + " idle connections, w1 and w2 none; each"
            + " looks after every pass with work and on its tick, and moves at most one every 2 ms", 3, RebalanceScenarios::rebalance);

    public static final Scenario REBALANCE_UNEVEN = new Scenario("REBALANCE-uneven",
            "three workers holding 2 / 0 / 4 idle connections; each looks and moves at most one every 2 ms", 3,
            RebalanceScenarios::rebalanceUneven);

    public static final Scenario REBALANCE_LEAVE = new Scenario("REBALANCE-leave",
            "REBALANCE (3 held) while w1 leaves at once", 3,
            RebalanceScenarios::rebalanceLeave);

    public static final Scenario REBALANCE_KILL = new Scenario("REBALANCE-kill",
            "REBALANCE (3 held) while w1 is killed at any point of the first move, reaped and respawned (starting 2 ms"
            + " later)", 3,
            RebalanceScenarios::rebalanceKill);

    public static final Scenario REBALANCE_KILL_SENDER = new Scenario("REBALANCE-kill-sender",
            "REBALANCE while w0 is killed at any point of its first move, reaped and respawned", 3,
            RebalanceScenarios::rebalanceKillSender);

    private RebalanceScenarios() {
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
}
