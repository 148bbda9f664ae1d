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
            + " (no churn reaches it) and holds none: w0's look moves two to it", MixedScenarios::mixedModes);
    public static final Scenario MIXED_FRESH = new Scenario("MIXED-fresh",
            "w0 keeps under churn holding 4 settled keep-alive connections; w1 balances holding 4 answered once:"
            + " w0 moves two, and w1's look, four over in open connections whenever w0's churn is low, moves"
            + " none back", MixedScenarios::mixedFresh);

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
        Worker w0 = churning(s.worker(0), spell(W0_SPELL));
        Worker w1 = churning(s.worker(1), spell(W1_SPELL));
        Scenarios.started(s, w0, w1);
        s.rebalanceOracle = true;
        s.settledOracle = true;
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
     * weighs a balancing sibling in settled connections; it moves two here, one every 2 ms. A
     * look that skips balancing siblings leaves 4/0: CONVERGE.
     */
    private static void mixedModes(Sim s) {
        Worker[] w = twoModes(s);
        s.setup(() -> s.holds(w[0], SETTLED));
    }

    /**
     * As MIXED-modes, but w1 holds 4 keep-alive connections answered once (a burst that just
     * landed): 4/0 in settled connections, 4/4 in open ones, w0's with its churn on top. w0
     * moves two; then w1 is four over in open connections whenever w0's churn is low, but not
     * two over in settled ones, so its look moves nothing back. A balancing look that ignored
     * the settled counts would move one back each time, and w0 would move it again: PING-PONG.
     */
    private static void mixedFresh(Sim s) {
        Worker[] w = twoModes(s);
        s.setup(() -> {
            s.holds(w[0], SETTLED);
            s.holdsUnsettled(w[1], SETTLED);
        });
    }

    /**
     * w0 keeping, with 2 connection-close clients in flight every other 25 ms; w1 balancing;
     * both looking from 1 ms to the end. The rebalance oracles count settled connections.
     */
    private static Worker[] twoModes(Sim s) {
        s.rebalance(true);
        Worker w0 = churning(s.worker(0), t -> (t - Sim.T0) / (25 * Sim.MS) % 2 == 1 ? 2 : 0);
        Worker w1 = s.worker(1).accepts(false);
        Scenarios.started(s, w0, w1);
        s.rebalanceOracle = true;
        s.settledOracle = true;
        Worker[] w = {w0, w1};
        for (Worker x : w) {
            s.loop(x, () -> {
                s.sleep(LOOPS_BEGIN - s.now());
                x.run(END);
            });
        }
        return w;
    }

    /** A worker that accepts nothing and keeps from its first pass, {@code inFlight} connection-close clients open. */
    private static Worker churning(Worker w, java.util.function.LongUnaryOperator inFlight) {
        return w.accepts(false)
                .shape(t -> t <= Sim.T0 ? 0 : 40 + (t - Sim.T0) * 4 / Sim.MS, t -> 0)
                .churn(inFlight);
    }

    /** {@link #CHURN} connection-close clients in flight for {@link #SPELL} from {@code from}, else none. */
    private static java.util.function.LongUnaryOperator spell(long from) {
        return t -> t >= from && t < from + SPELL ? CHURN : 0;
    }

    private MixedScenarios() {
    }
}
