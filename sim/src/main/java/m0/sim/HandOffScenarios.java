package m0.sim;

import static m0.sim.Scenarios.END;
import static m0.sim.Scenarios.leaving;
import static m0.sim.Scenarios.queued;
import static m0.sim.Scenarios.serving;
import static m0.sim.Scenarios.started;

import java.util.List;
import m0.sim.Scenarios.Scenario;

/**
 * The seed's hand-off worlds: a connection passed to a sibling that serves it, leaves, or is killed
 * while it takes it, and a sender killed at any point of its hand-off. Listed in {@link Scenarios#ALL}.
 */
public final class HandOffScenarios {

    public static final Scenario R5 = new Scenario("R5",
            "w0 passes a connection to idle w1, which receives and retires it", HandOffScenarios::r5);

    public static final Scenario B25_SEND = new Scenario("B25-send",
            "w0 passes a connection to w1 while w1 leaves", HandOffScenarios::b25);

    public static final Scenario B25_IDLE = new Scenario("B25-idle",
            "w1 leaves with a hand-off queued to it and another on its way; its drain meets them",
            HandOffScenarios::b25Idle);

    public static final Scenario TAKEN = new Scenario("TAKEN",
            "w1 takes a queued hand-off and is killed at any point; a replacement takes the index",
            HandOffScenarios::taken);

    public static final Scenario SENDER_KILLED = new Scenario("SENDER-KILLED",
            "w0 is killed at any point of a hand-off to w1 (between raising pending and sending)",
            HandOffScenarios::senderKilled);

    public static final Scenario R5_WIDE = new Scenario("R5-wide",
            "three workers: w0 and w2 each accept one and pass it on while w1 serves", 3, HandOffScenarios::r5Wide);

    public static final Scenario B25_WIDE = new Scenario("B25-wide",
            "three workers: w0 passes one on while w1 and w2 both leave (forwarding to each other)", 3,
            HandOffScenarios::b25Wide);

    public static final Scenario B25_SLOW = new Scenario("B25-slow",
            "w1 leaves with a hand-off queued while w0, the only live sibling, is 3 ms into a slow pass",
            HandOffScenarios::b25Slow);

    private HandOffScenarios() {
    }

    static void r5(Sim s) {
        Worker w0 = s.worker(0).load(1);
        Worker w1 = s.worker(1).accepts(false);
        started(s, w0, w1);
        s.clients(1);
        serving(s, w0);
        serving(s, w1);
    }

    static void b25(Sim s) {
        Worker w0 = s.worker(0).load(1);
        Worker w1 = s.worker(1).accepts(false);
        started(s, w0, w1);
        s.clients(1);
        serving(s, w0);
        leaving(s, w1);
    }

    /**
     * Pick skips a sibling inside one pass for over 2 ms; a leaver's forward (and the give-up's
     * re-homing) must still choose it when it is the only live one, or the leaver admits a fresh
     * hand-off and closes it as idle. w0's pass starts at 0 and runs 5 ms inline; w1 leaves at
     * 3 ms with one hand-off queued. Time barriers order everything: one execution, by design.
     */
    static void b25Slow(Sim s) {
        Worker w0 = s.worker(0).load(1);
        Worker w1 = s.worker(1).accepts(false);
        started(s, w0, w1);
        List<Conn> cs = s.clients(2);
        queued(s, 1, cs.get(0));
        s.loop(w0, () -> {
            w0.slowPass = 5 * Sim.MS;
            w0.run(END);
        });
        s.loop(w1, () -> {
            s.sleep(3 * Sim.MS);
            w1.leave(END);
        });
    }

    /**
     * w0's load of two makes it pass its accept to w1 though one hand-off to w1 is still queued
     * (1 + 1 against 2): the second is raised, and may land after w1's LEFT, in its drain.
     */
    static void b25Idle(Sim s) {
        Worker w0 = s.worker(0).load(2);
        Worker w1 = s.worker(1).accepts(false);
        started(s, w0, w1);
        List<Conn> cs = s.clients(2);
        queued(s, 1, cs.get(0));
        serving(s, w0);
        leaving(s, w1);
    }

    static void r5Wide(Sim s) {
        Worker w0 = s.worker(0).load(1);
        Worker w1 = s.worker(1).accepts(false);
        Worker w2 = s.worker(2).load(1);
        started(s, w0, w1, w2);
        s.clients(2);
        serving(s, w0);
        serving(s, w2);
        serving(s, w1);
    }

    static void b25Wide(Sim s) {
        Worker w0 = s.worker(0).load(2);
        Worker w1 = s.worker(1).accepts(false);
        Worker w2 = s.worker(2).accepts(false);
        started(s, w0, w1, w2);
        s.clients(1);
        serving(s, w0);
        leaving(s, w1);
        leaving(s, w2);
    }

    static void taken(Sim s) {
        Worker w1 = s.worker(1).accepts(false);
        started(s, w1);
        Conn c = s.clients(1).get(0);
        queued(s, 1, c);
        SupervisorOps<Conn> sup = s.supervisorOps();
        serving(s, w1);
        s.actor("sup", () -> {
            s.kill(w1);
            s.replace(1, sup, Scenarios::replacement);
        });
    }

    static void senderKilled(Sim s) {
        Worker w0 = s.worker(0).load(1);
        Worker w1 = s.worker(1); // it accepts too: the backlog outlives w0
        started(s, w0, w1);
        s.clients(1);
        SupervisorOps<Conn> sup = s.supervisorOps();
        serving(s, w0);
        serving(s, w1);
        s.actor("sup", () -> {
            s.kill(w0);
            s.reap(0, sup);
            s.giveUp(sup, 0);
        });
    }
}
