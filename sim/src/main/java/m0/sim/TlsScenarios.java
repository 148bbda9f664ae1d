package m0.sim;

import m0.sim.Scenarios.Scenario;

/**
 * TLS worlds (ADR 0069): connections whose handshake ran at a worker hold their session in its
 * memory, so rebalance and a leaver's hand-over never move them (the PINNED oracle); plain
 * connections beside them move as always. Listed in {@link Scenarios#ALL}.
 */
public final class TlsScenarios {

    public static final Scenario TLS_REBALANCE = new Scenario("TLS-rebalance",
            "two workers: w0 holds 2 plain idle connections, then 2 TLS ones whose handshake ran there, w1 none;"
            + " both look and move at most one every 2 ms: the plain ones move, the TLS ones stay (2/2)",
            TlsScenarios::rebalance);

    public static final Scenario TLS_LEAVE = new Scenario("TLS-leave",
            "w0 holds a plain idle connection and a TLS one and leaves at once while w1 serves: the plain one is"
            + " handed over, the TLS one closed gracefully by w0", TlsScenarios::leave);

    static final long END = Sim.T0 + 30 * Sim.MS;

    /**
     * 4/0 in open connections, two of them pinned. The newest are the TLS ones, so a look that
     * took the newest idle connection regardless would move a TLS one: PINNED. Two plain moves
     * even the load: CONVERGE and PING-PONG hold with the pinned ones counted.
     */
    private static void rebalance(Sim s) {
        s.rebalance(true);
        Worker w0 = s.worker(0).accepts(false);
        Worker w1 = s.worker(1).accepts(false);
        Scenarios.started(s, w0, w1);
        s.rebalanceOracle = true;
        Scenarios.running(s, END, w0, w1);
        s.setup(() -> {
            s.holds(w0, 2);
            s.holdsTls(w0, 2);
        });
    }

    /** A leaver's hand-over: the plain connection goes to w1, the TLS one is closed where it lives. */
    private static void leave(Sim s) {
        Worker w0 = s.worker(0).accepts(false);
        Worker w1 = s.worker(1).accepts(false);
        Scenarios.started(s, w0, w1);
        s.loop(w0, () -> w0.leave(END));
        s.loop(w1, () -> w1.run(END));
        s.setup(() -> {
            s.holds(w0, 1);
            s.holdsTls(w0, 1);
        });
    }

    private TlsScenarios() {
    }
}
