package m0.sim;

import static m0.sim.Scenarios.END;
import static m0.sim.Scenarios.leaving;
import static m0.sim.Scenarios.queued;
import static m0.sim.Scenarios.replacement;
import static m0.sim.Scenarios.serving;
import static m0.sim.Scenarios.started;

import java.util.List;
import m0.core.Counts;
import m0.core.PageLayout;
import m0.sim.Scenarios.Scenario;

/**
 * The self-healing counts' worlds (ADR 0024): one kill at any point of any two-write window, then
 * the index's recovery; the HEAL oracle wants every index's pending - taken exactly what is
 * queued to it at quiescence, and R5 that no step (a heal's least of all) takes it lower.
 * Listed in {@link Scenarios#ALL}.
 */
public final class HealScenarios {

    public static final Scenario HEAL_SEND = new Scenario("HEAL-send",
            "w0 is killed at any point of a hand-off to w1 (before, inside or after its raise and send), reaped and"
            + " respawned", HealScenarios::healSend);

    public static final Scenario HEAL_TAKE_BACK = new Scenario("HEAL-take-back",
            "w0 passes one to w1 while w1 leaves, and is killed at any point (between its raise and its take-back"
            + " too); both indices are reaped and given up", HealScenarios::healTakeBack);

    public static final Scenario HEAL_RECEIVE = new Scenario("HEAL-receive",
            "w1 takes a queued hand-off and is killed at any point (between recvmsg and taken + 1, inside its"
            + " retire), reaped and given up", HealScenarios::healReceive);

    public static final Scenario HEAL_START = new Scenario("HEAL-start",
            "w1's predecessor died holding a receipt; its replacement is killed at any point of its start and"
            + " first passes, reaped and respawned again", HealScenarios::healStart);

    public static final Scenario HEAL_FORWARD = new Scenario("HEAL-forward",
            "w1 leaves with a hand-off queued and forwards it to w0; it is killed at any point of its drain,"
            + " reaped and given up", HealScenarios::healForward);

    public static final Scenario HEAL_BUSY = new Scenario("HEAL-busy",
            "three workers: w0 and w2 each hand an idle connection to w1; w2 is killed at any point of it and"
            + " reaped; w1's heal (asked for by the reap) runs while w0's hand-off is under way", 3,
            HealScenarios::healBusy);

    private HealScenarios() {
    }

    /** Window (a): a sender killed between its raise and its send; its replacement starts. */
    static void healSend(Sim s) {
        Worker w0 = s.worker(0).load(1);
        Worker w1 = s.worker(1).accepts(false);
        started(s, w0, w1);
        s.clients(1);
        SupervisorOps<Conn> sup = s.supervisorOps();
        serving(s, w0);
        serving(s, w1);
        s.actor("sup", () -> {
            s.kill(w0);
            s.replace(0, sup, r -> { // it accepts: a kill before w0's accept leaves c1 in the backlog
                r.bind();
                r.start();
                r.run(END);
            });
        });
    }

    /**
     * Window (a) on the take-back path: the target leaves, the sender reads LEFT after its raise
     * and is killed before it takes the raise back; the leaver's drain waits on that raise. Both
     * indices are given up (the leaver once it has exited).
     */
    static void healTakeBack(Sim s) {
        Worker w0 = s.worker(0).load(1);
        Worker w1 = s.worker(1).accepts(false);
        started(s, w0, w1);
        s.clients(1);
        SupervisorOps<Conn> sup = s.supervisorOps();
        serving(s, w0);
        leaving(s, w1);
        s.actor("sup", () -> {
            s.stopping = true; // it replaces nobody: a kill before w0's accept leaves c1 unserved
            s.kill(w0);
            s.reap(0, sup);
            s.giveUp(sup, 0);
            while (!w1.exited) {
                s.sleep(s.tick);
            }
            s.reap(1, sup);
            s.giveUp(sup, 1);
        });
    }

    /** Windows (b) and (c): a receiver killed between recvmsg and taken + 1, or inside its retire. */
    static void healReceive(Sim s) {
        Worker w0 = s.worker(0).accepts(false);
        Worker w1 = s.worker(1).accepts(false);
        started(s, w0, w1);
        queued(s, 1, s.clients(1).get(0));
        SupervisorOps<Conn> sup = s.supervisorOps();
        serving(s, w0);
        serving(s, w1);
        s.actor("sup", () -> {
            s.kill(w1);
            s.reap(1, sup);
            s.giveUp(sup, 1);
        });
    }

    /**
     * Window (c) in start: the predecessor died holding a receipt (taken 1) with one more hand-off
     * queued; its replacement is killed at any point of its start (between reading taken and
     * subtracting it) and of its first passes, and a second replacement takes the index.
     */
    static void healStart(Sim s) {
        Worker w0 = s.worker(0).accepts(false);
        Worker old = s.worker(1).accepts(false);
        started(s, w0, old);
        List<Conn> cs = s.clients(2);
        queued(s, 1, cs.get(0));
        queued(s, 1, cs.get(1));
        SupervisorOps<Conn> sup = s.supervisorOps();
        s.setup(() -> {
            // The predecessor received c1, published it in taken and died before its pass end.
            Conn c = s.channel.receive(1);
            s.page.getAndAdd(PageLayout.countsWord(1), Counts.RECEIPT);
            s.ledger.release(s.me(), c);
            c.eof = "holder " + old + " died";
            old.dead = true;
            s.reap(1, sup, true);
        });
        Worker w1 = s.worker(1).accepts(false);
        serving(s, w0);
        s.loop(w1, () -> replacement(w1));
        s.actor("sup", () -> {
            s.kill(w1);
            s.replace(1, sup, Scenarios::replacement);
        });
    }

    /**
     * A leaver's forward is a sender again: w1 leaves with a hand-off queued and forwards it to
     * w0; killed at any point of its drain (between recvmsg and taken + 1 on its own index,
     * between the forward's raise and its send on w0's), reaped and given up.
     */
    static void healForward(Sim s) {
        Worker w0 = s.worker(0).accepts(false);
        Worker w1 = s.worker(1).accepts(false);
        started(s, w0, w1);
        queued(s, 1, s.clients(1).get(0));
        SupervisorOps<Conn> sup = s.supervisorOps();
        serving(s, w0);
        leaving(s, w1);
        s.actor("sup", () -> {
            s.kill(w1);
            s.reap(1, sup);
            s.giveUp(sup, 1);
        });
    }

    /**
     * A heal with a live hand-off under way: w0 and w2 each hand one of their idle connections to
     * w1 (the same R5 + B25 hand-off as a fresh accept's); w2 is killed at any point of its
     * hand-off (between its raise and its send too) and reaped, and its reap asks w1 to heal; a
     * microsecond later w1's loop runs (its heal at an EAGAIN) while w0's hand-off may be
     * anywhere: published, raised, queued, cleared. The heal must take off w2's orphan and nothing
     * of w0's raise. Index 2 has nothing sent to it: no give-up needed. (w1's passes racing the
     * death and the reap too grew the world past 4 M executions; the heal against its request is
     * HealTest's.)
     */
    static void healBusy(Sim s) {
        Worker w0 = s.worker(0).accepts(false);
        Worker w1 = s.worker(1).accepts(false);
        Worker w2 = s.worker(2).accepts(false);
        started(s, w0, w1, w2);
        SupervisorOps<Conn> sup = s.supervisorOps();
        s.loop(w0, () -> {
            s.sleep(1_000); // a microsecond after w2's death and reap: beside w1's passes
            handIdleTo(w0, 1);
        });
        s.loop(w1, () -> {
            s.sleep(1_000);
            w1.run(END);
        });
        s.loop(w2, () -> handIdleTo(w2, 1));
        s.setup(() -> {
            s.holds(w0, 1);
            s.holds(w2, 1);
        });
        s.actor("sup", () -> {
            s.kill(w2);
            s.reap(2, sup);
        });
    }

    /** {@code w} hands the idle connection it holds to {@code target}, keeping it if refused. */
    private static void handIdleTo(Worker w, int target) {
        w.share().sendWith(target, w.actor.held.get(0));
    }
}
