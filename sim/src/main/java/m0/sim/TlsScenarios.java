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

    public static final Scenario TLS_BURST = new Scenario("TLS-burst",
            "w0 (one open already) passes its first TLS accept to w1, whose receipt pass runs its 5 ms handshake;"
            + " w0 accepts a wave of 3 TLS clients at 3 ms, 1 ms a handshake (ADR 0069, addendum)",
            TlsScenarios::burst);

    static final long END = Sim.T0 + 30 * Sim.MS;

    /**
     * Where a storm of TLS clients lands (issue 47). A handshake costs ms of CPU inside the pass
     * that admits its connection (w1's 5 ms: a cold engine, or w1 descheduled in it; w0's 1 ms).
     * Stamped like a view, w1's pass with c1's handshake reads to w0's batch at 3 ms as 3 ms into
     * one pass, a slow view, so w0 keeps the wave while w1 is in it: 3 served against 1, and a TLS
     * connection never moves after (BALANCE). A handshake is the connection's admission: w1
     * reads PARKED with c1 in its pending, and the four end 2/2.
     */
    private static void burst(Sim s) {
        Worker w0 = s.worker(0).load(1).handshakeCost(Sim.MS);
        Worker w1 = s.worker(1).accepts(false).handshakeCost(5 * Sim.MS);
        Scenarios.started(s, w0, w1);
        s.tlsClients = true;
        s.clients(1);
        s.balanceOracle = true;
        s.actor("clients", () -> {
            s.sleep(3 * Sim.MS);
            for (int k = 0; k < 3; k++) {
                s.connect();
            }
        });
        s.loop(w0, () -> w0.run(Sim.T0 + 40 * Sim.MS));
        s.loop(w1, () -> w1.run(Sim.T0 + 40 * Sim.MS));
    }

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
