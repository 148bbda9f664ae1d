package m0.sim;

import java.util.List;
import m0.sim.Scenarios.Scenario;

/**
 * Worlds for the loop's own timers and its pass end's order (issue 45), each judged by a rule of
 * {@link LoopOracles}: the heal look an idle worker makes, the settled count published before the
 * retire, the busy sample an idle fountain worker takes. LOOP-HEAL-IDLE and LOOP-SETTLED run under
 * share ({@link Protocol#core()}), LOOP-SAMPLE under fountain.
 */
public final class LoopScenarios {

    private static final long MS = Sim.MS;
    private static final long T0 = Sim.T0;

    public static final Scenario HEAL_IDLE = new Scenario("LOOP-HEAL-IDLE",
            "w0 hands its idle connection to w1 and is killed at any point of it, reaped, not replaced; w1 is idle"
            + " (no listener, no timer): its heal look serves the reap's request within a second (HEAL-LOOK)",
            LoopScenarios::healIdle);
    public static final Scenario SETTLED = new Scenario("LOOP-SETTLED",
            "w0 holds 3 settled connections and moves one to idle w1 (rebalance on): after every step, w1's"
            + " pending + published settled count covers what it holds (SETTLED-SEEN)", LoopScenarios::settled);
    public static final Scenario SAMPLE_IDLE = new Scenario("LOOP-SAMPLE",
            "fountain: w0 is 100 % busy to 80 ms (full from 60 ms), then idle to 200 ms with nothing to wake it; w1"
            + " never starts: w0's busy sample is never over 40 ms old (SAMPLE)", LoopScenarios::sampleIdle);

    public static final List<Scenario> ALL = List.of(HEAL_IDLE, SETTLED, SAMPLE_IDLE);

    private LoopScenarios() {
    }

    /**
     * A heal request reaches a worker with nothing else to wake it: w1 accepts nothing, holds
     * nothing and does not rebalance, so under share its loop's only timer is the heal look
     * (WorkerLoop.HEAL_LOOK_NANOS). When the kill lands between w0's raise and its send, the reap
     * asks w1 to heal; the world runs past the look (1.5 s), and the HEAL oracle checks the count
     * at quiescence as before.
     */
    static void healIdle(Sim s) {
        Worker w0 = s.worker(0).accepts(false);
        Worker w1 = s.worker(1).accepts(false);
        Scenarios.started(s, w0, w1);
        s.loopOracles.healLook = true;
        SupervisorOps<Conn> sup = s.supervisorOps();
        s.loop(w0, () -> w0.share().sendWith(1, w0.actor.held.get(0)));
        s.loop(w1, () -> w1.run(Scenarios.END));
        s.setup(() -> s.holds(w0, 1));
        s.actor("sup", () -> {
            s.stopping = true; // index 0 is not replaced; nothing was sent to it, so no give-up is needed
            s.kill(w0);
            s.reap(0, sup);
        });
    }

    /**
     * A move's receiver, as ADR 0059 orders its pass end: the settled count published, then the
     * receipt retired. w0 (3 settled) is three over w1 (none): its first look moves one, the next
     * (2 against 1) none.
     */
    static void settled(Sim s) {
        s.rebalance(true);
        Worker w0 = s.worker(0).accepts(false);
        Worker w1 = s.worker(1).accepts(false);
        Scenarios.started(s, w0, w1);
        s.rebalanceOracle = true;
        s.loopOracles.settledSeen = true;
        Scenarios.running(s, T0 + 30 * MS, w0, w1);
        s.setup(() -> s.holds(w0, 3));
    }

    /**
     * A fountain worker that was full goes idle: its request load stops at 80 ms and nothing
     * else wakes it (no clients, no connections, no listener look: it is the head). Only the
     * loop's sample timer brings its busy word down; without it the word reads full until the
     * next heal look. w1 never starts, which keeps the world one actor wide.
     */
    static void sampleIdle(Sim s) {
        Worker w0 = s.worker(0).requests(t -> 1000);
        Scenarios.started(s, w0);
        s.loopOracles.sampleAge = true;
        s.loop(w0, () -> {
            w0.run(T0 + 80 * MS);
            w0.load = null; // its clients went quiet
            w0.run(T0 + 200 * MS);
        });
    }
}
