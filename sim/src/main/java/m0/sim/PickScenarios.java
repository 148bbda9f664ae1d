package m0.sim;

import m0.sim.Scenarios.Scenario;

/**
 * The pick's worlds (ADR 0052): whether share judges its siblings' passes as the seed means,
 * a slow view running inline skipped and a worker merely descheduled while it accepts or
 * receives not. Listed in {@link Scenarios#ALL}.
 */
public final class PickScenarios {

    public static final Scenario BURST_SLOW = new Scenario("BURST-slow",
            "a cold first burst of 7: each accept w0 keeps costs it 2.5 ms, and each pass of w1 runs 8 ms before"
            + " its drain (ADR 0052)", PickScenarios::burstSlow);
    public static final Scenario PICK_SLOW = new Scenario("PICK-slow",
            "w1 runs a view inline for 5 ms from 0; w0 accepts 2 at 3 ms and must keep both (the seed's 2 ms rule)",
            PickScenarios::pickSlow);
    public static final Scenario RECEIVE_STALL = new Scenario("RECEIVE-stall",
            "w0 (one open already) passes its first accept to w1, whose receipt pass is descheduled 5 ms; w0 accepts"
            + " a wave of 3 at 3 ms (ADR 0052)", PickScenarios::receiveStall);
    public static final Scenario BURST_THREE = new Scenario("BURST-three",
            "three workers, w0 and w1 accepting from a burst of 3: w0's pick names w1 while w1 keeps its own", 3,
            PickScenarios::burstThree);
    public static final Scenario BURST_STALL = new Scenario("BURST-stall",
            "w1 accepts a first connection, keeps it and is descheduled 5 ms; w0 accepts a wave of 3 at 3 ms"
            + " (ADR 0052)", PickScenarios::burstStall);

    /**
     * The cold first burst (ADR 0052), both workers slow: w0's accepts (2.5 ms for each one it
     * keeps: the cold JVM's code, or w0 descheduled) and w1's passes (8 ms before its drain). w1
     * enters a pass for w0's first hand-off after w0's batch began. Judged at each pick, w1 is
     * over 2 ms into that pass from w0's fourth accept on, and w0 keeps what arrives until w1
     * parks again: 5/2. Judged once a batch, at its first pick, a pass begun inside the batch is
     * not slow to it, and the burst ends 4/3.
     */
    static void burstSlow(Sim s) {
        Worker w0 = s.worker(0).acceptCost(5 * Sim.MS / 2);
        Worker w1 = s.worker(1).accepts(false);
        w1.beforePass(() -> w1.slowPass = 8 * Sim.MS);
        Scenarios.started(s, w0, w1);
        s.clients(7);
        s.balanceOracle = true;
        s.loop(w0, () -> w0.run(Sim.T0 + 40 * Sim.MS));
        s.loop(w1, () -> w1.run(Sim.T0 + 40 * Sim.MS));
    }

    /**
     * The seed's rule itself (ADR 0052 keeps it): w1 runs a view inline for 5 ms from 0 (its pass
     * is stamped at 0); a burst of 2 reaches w0 at 3 ms. w1 was over 2 ms into one pass when
     * w0's batch began, so w0 keeps both (SLOW judges every pick). A pick that never skips a slow
     * sibling sends w1 the second.
     */
    static void pickSlow(Sim s) {
        Worker w0 = s.worker(0);
        Worker w1 = s.worker(1).accepts(false).requests(t -> 0); // a pass at 0, whose only work is the view
        Scenarios.started(s, w0, w1);
        s.actor("clients", () -> {
            s.sleep(3 * Sim.MS);
            s.connect();
            s.connect();
        });
        s.loop(w0, () -> w0.run(Sim.T0 + 20 * Sim.MS));
        s.loop(w1, () -> {
            w1.slowPass = 5 * Sim.MS;
            w1.run(Sim.T0 + 20 * Sim.MS);
        });
    }

    /**
     * A worker descheduled inside a pass that only received (ADR 0052). w0 holds one connection
     * the world does not model, so its first accept goes to w1; w1's pass that receives it stalls
     * 5 ms for each receipt (10 ms: it drains the wave's hand-off in the same pass). Where a receipt stamps the pass, w0's pass for the wave of 3 at 3 ms reads w1 as 3 ms
     * into one pass and keeps the wave (3 served against 1). Under share a receipt is no view: w1
     * reads PARKED with the hand-off in its pending, and the four end 2/2.
     */
    static void receiveStall(Sim s) {
        Worker w0 = s.worker(0).load(1);
        Worker w1 = s.worker(1).accepts(false).receiveCost(5 * Sim.MS);
        Scenarios.started(s, w0, w1);
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
     * A worker descheduled inside a pass that only accepted (ADR 0052). The kernel gives the
     * first connection to w1, which keeps it (a tie) and is then descheduled for 5 ms; the wave
     * of 3 that arrives 3 ms on goes to w0. Where an accept stamps the pass, w0 reads w1 as 3 ms
     * into one pass, a slow inline view, and keeps the wave: 3/1. Under share an accept is no
     * view: w1 reads PARKED with its kept connection counted, and the burst ends 2/2.
     */
    static void burstStall(Sim s) {
        Worker w0 = s.worker(0).accepts(false);
        Worker w1 = s.worker(1).acceptCost(5 * Sim.MS);
        Scenarios.started(s, w0, w1);
        s.clients(1);
        s.balanceOracle = true;
        s.actor("clients", () -> {
            s.sleep(3 * Sim.MS);
            w0.accepts(true); // the kernel gives the wave to w0 (w1 is inside its pass, not in epoll_wait)
            for (int k = 0; k < 3; k++) {
                s.connect();
            }
        });
        s.loop(w0, () -> w0.run(Sim.T0 + 40 * Sim.MS));
        s.loop(w1, () -> w1.run(Sim.T0 + 40 * Sim.MS));
    }

    /**
     * Two acceptors place on one sibling at once (ADR 0053). Three idle workers; w0 and w1 accept
     * from a burst of 3, w2 accepts nothing. w0 keeps the first (all at 0). For the next two, w0's
     * pick reads w1 and w2 at 0 and names w1 (a tie, by rotation), while w1's reads itself at 0
     * and keeps. The send is raised on the counts w0 read and lands; a keep published blind lands
     * too, on counts the send has raised since: 1/2/0. With two workers this race is harmless
     * (ADR 0043's BURST ends even), because what the keeper gains the sender lacks; with three or
     * more the worker neither chose is left short.
     */
    static void burstThree(Sim s) {
        Worker w0 = s.worker(0);
        Worker w1 = s.worker(1);
        Worker w2 = s.worker(2).accepts(false);
        Scenarios.started(s, w0, w1, w2);
        s.clients(3);
        s.balanceOracle = true;
        for (Worker w : new Worker[] {w0, w1, w2}) {
            s.loop(w, () -> w.run(Sim.T0 + 30 * Sim.MS));
        }
    }

    private PickScenarios() {
    }
}
