package m0.sim;

import m0.sim.Scenarios.Scenario;

/**
 * The swap's worlds (ADR 0057): two clients crossed over the workers, and rebalance's swap that
 * pairs them, with the rebalance oracles and PAIRED on. Listed in {@link Scenarios#ALL}.
 */
public final class PairScenarios {

    public static final Scenario PAIR = new Scenario("PAIR",
            "two workers, two clients crossed: w0 holds one of w1's client's and one of its own, w1 one of w0's"
            + " client's and one of its own; each looks and moves at most one every 2 ms (ADR 0057)",
            PairScenarios::pair);
    public static final Scenario PAIR_THREE = new Scenario("PAIR-three",
            "PAIR beside a third worker one lighter (2 / 2 / 1): after the swap w0 and w2 tie at 1, and w1's"
            + " return must come to w0, whose kind it holds", 3, PairScenarios::pairThree);
    public static final Scenario PAIR_ONE_SIDED = new Scenario("PAIR-one-sided",
            "w0 holds one of w1's client's and one of its own, w1 two of its own: no swap places anything",
            PairScenarios::pairOneSided);

    /** The swap worlds' end: past a swap, its return, their receipts and a tick that finds nothing. */
    static final long PAIR_END = Sim.T0 + 30 * Sim.MS;

    /** {@code n} started workers that rebalance, none accepting; the rebalance and PAIRED oracles on. */
    private static Worker[] pairWorld(Sim s, int n) {
        s.rebalance(true);
        Worker[] w = new Worker[n];
        for (int i = 0; i < n; i++) {
            w[i] = s.worker(i).accepts(false);
        }
        Scenarios.started(s, w);
        s.rebalanceOracle = true;
        s.pairOracle = true;
        return w;
    }

    private static void pair(Sim s) {
        Worker[] w = pairWorld(s, 2);
        Scenarios.running(s, PAIR_END, w);
        s.setup(() -> {
            s.holdsPaired(w[0], 1, 0);
            s.holdsPaired(w[1], 0, 1);
        });
    }

    private static void pairThree(Sim s) {
        Worker[] w = pairWorld(s, 3);
        Scenarios.running(s, PAIR_END, w);
        s.setup(() -> {
            s.holdsPaired(w[0], 1, 0);
            s.holdsPaired(w[1], 0, 1);
            s.holdsPaired(w[2], 2);
        });
    }

    private static void pairOneSided(Sim s) {
        Worker[] w = pairWorld(s, 2);
        Scenarios.running(s, PAIR_END, w);
        s.setup(() -> {
            s.holdsPaired(w[0], 1, 0);
            s.holdsPaired(w[1], 1, 1);
        });
    }

    private PairScenarios() {
    }
}
