package m0.sim;

import static m0.sim.Scenarios.started;

import m0.sim.Scenarios.Scenario;

/**
 * The balance worlds: bursts into two workers, judged by BALANCE at quiescence, and the load's
 * shape (ADR 0041) deciding when a worker keeps what it accepts. Listed in {@link Scenarios#ALL}.
 */
public final class BalanceScenarios {

    public static final Scenario BALANCE = new Scenario("BALANCE",
            "a burst of 5 into two idle, fast workers; w0 accepts, w1 serves what it is passed", BalanceScenarios::balance);

    public static final Scenario BALANCE_EVEN = new Scenario("BALANCE-even",
            "a burst of 4 into two idle, fast workers; w0 accepts: it must end 2/2, exactly (ADR 0040)",
            BalanceScenarios::balanceEven);

    public static final Scenario SHAPE_AFTER_CHURN = new Scenario("SHAPE-after-churn",
            "w0 keeps through a spell of churn (ADR 0041), its load stops, and a keep-alive burst of 2 at 900 ms"
            + " lands balanced", BalanceScenarios::shapeAfterChurn);

    public static final Scenario SHAPE_FLAP = new Scenario("SHAPE-flap",
            "w0's arrivals sit at share's threshold, one window just inside it and the next just outside: its"
            + " mode changes once", BalanceScenarios::shapeFlap);

    public static final Scenario BALANCE_RACE = new Scenario("BALANCE-race",
            "a burst of 3 into two idle, fast workers that both accept", BalanceScenarios::balanceRace);

    public static final Scenario BURST = new Scenario("BURST",
            "a burst of 4 into two idle workers that both accept: each kept connection is published at once",
            BalanceScenarios::burstBoth);

    private BalanceScenarios() {
    }

    /** SHAPE-flap's window: a client at each window's end (plus 1 ms) wakes w0 to judge it. */
    private static final long FLAP_WINDOWS = 8;

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
        s.balanceSlack = QuiescenceOracles.BALANCE_SLACK;
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
        s.balanceSlack = QuiescenceOracles.BALANCE_SLACK; // one acceptor or two (ADR 0043, ADR 0053)
        s.loop(w0, () -> w0.run(Sim.T0 + 30 * Sim.MS));
        s.loop(w1, () -> w1.run(Sim.T0 + 30 * Sim.MS));
    }
}
