package m0.sim;

import m0.sim.Scenarios.Scenario;

/**
 * The mixed load's worlds (ADR 0059): keep-alive clients settled unevenly while
 * connection-close clients churn, so every worker keeps what it accepts (ADR 0041) and its
 * rebalance look counts settled connections only. The rebalance oracles are on. Listed in
 * {@link Scenarios#ALL}.
 */
public final class MixedScenarios {

    public static final Scenario MIXED = new Scenario("MIXED",
            "two workers keeping under churn (ADR 0059): w0 holds " + MixedScenarios.SETTLED + " settled keep-alive"
            + " connections, w1 none; once they are even, w1's connection-close clients in flight rise to "
            + MixedScenarios.CHURN + " for 50 ms, then w0's: the settled ones end even, in two moves",
            MixedScenarios::mixed);

    public static final Scenario MIXED_MODES = new Scenario("MIXED-modes",
            "w0 keeps under churn holding " + MixedScenarios.SETTLED + " settled keep-alive connections; w1 balances"
            + " (no churn reaches it) and holds none: w0's look moves two to it, and the spread ends even",
            MixedScenarios::mixedModes);
    public static final Scenario MIXED_FRESH = new Scenario("MIXED-fresh",
            "w0 keeps under churn holding 4 settled keep-alive connections; w1 balances holding 2 settled and 2"
            + " answered once: even in open connections, so nothing moves", MixedScenarios::mixedFresh);

    /** The settled keep-alive connections w0 starts with: the race's landing of a burst, 4/0. */
    static final int SETTLED = 4;
    /** Connection-close clients in flight at a worker during its spell: the open count's noise. */
    static final long CHURN = 3;
    /** The loops begin 1 ms in: their first shape reading then sees the churn, and keeps. */
    static final long LOOPS_BEGIN = Sim.T0 + Sim.MS;
    /** w1's spell of churn in flight, then w0's: each spans two rebalance ticks of both workers. */
    static final long W1_SPELL = Sim.T0 + 30 * Sim.MS;
    static final long W0_SPELL = Sim.T0 + 80 * Sim.MS;
    static final long SPELL = 50 * Sim.MS;
    static final long END = Sim.T0 + 140 * Sim.MS;

    /**
     * Four short closes a millisecond on both workers, none reused: both keep from their first
     * pass (ADR 0044's early entry) to the end. The churn's connections in flight are open
     * (published in {@code active}), never settled, never moved. w0's looks move two settled
     * connections; after that the settled spread is 2/2 whoever's churn is up. A look counted in
     * open connections moves one each spell (w1 at 2 + 3 against w0's 2, then w0 at 3 + 3
     * against w1's 1): PING-PONG. A keeping worker that moves nothing stays 4/0: CONVERGE.
     */
    private static void mixed(Sim s) {
        s.rebalance(true);
        Worker w0 = churning(s.worker(0), W0_SPELL);
        Worker w1 = churning(s.worker(1), W1_SPELL);
        Scenarios.started(s, w0, w1);
        s.rebalanceOracle = true;
        for (Worker w : new Worker[] {w0, w1}) {
            s.loop(w, () -> {
                s.sleep(LOOPS_BEGIN - s.now());
                w.run(END);
            });
        }
        s.setup(() -> s.holds(w0, SETTLED));
    }

    /**
     * A keeping worker and a balancing one (its arrivals do not close short). The keeping look
     * weighs a balancing sibling in open connections as well as settled ones; it moves two here,
     * one every 2 ms. A look that skips balancing siblings leaves 4/0: CONVERGE.
     */
    private static void mixedModes(Sim s) {
        Worker[] w = twoModes(s);
        s.setup(() -> s.holds(w[0], SETTLED));
    }

    /**
     * As MIXED-modes, but w1 holds 2 settled and 2 answered once (a keep-alive burst that just
     * landed): 4/4 in open connections, 4/2 in settled ones. A look that moved by settled ones
     * alone would leave w1 two over in open ones, its balancing look would move one back, and
     * so on: PING-PONG. Nothing moves.
     */
    private static void mixedFresh(Sim s) {
        Worker[] w = twoModes(s);
        s.setup(() -> {
            s.holds(w[0], SETTLED);
            s.holds(w[1], 2);
            s.holdsUnsettled(w[1], 2);
        });
    }

    /** w0 keeping (churn, none in flight), w1 balancing, both looking from 1 ms until the end. */
    private static Worker[] twoModes(Sim s) {
        s.rebalance(true);
        Worker w0 = s.worker(0).accepts(false).shape(t -> t <= Sim.T0 ? 0 : 40 + (t - Sim.T0) * 4 / Sim.MS, t -> 0);
        Worker w1 = s.worker(1).accepts(false);
        Scenarios.started(s, w0, w1);
        s.rebalanceOracle = true;
        Worker[] w = {w0, w1};
        for (Worker x : w) {
            s.loop(x, () -> {
                s.sleep(LOOPS_BEGIN - s.now());
                x.run(Sim.T0 + 60 * Sim.MS);
            });
        }
        return w;
    }

    /** A worker that accepts nothing, keeps from its first pass, with churn in flight during its spell. */
    private static Worker churning(Worker w, long spell) {
        return w.accepts(false)
                .shape(t -> t <= Sim.T0 ? 0 : 40 + (t - Sim.T0) * 4 / Sim.MS, t -> 0)
                .churn(t -> t >= spell && t < spell + SPELL ? CHURN : 0);
    }

    private MixedScenarios() {
    }
}
