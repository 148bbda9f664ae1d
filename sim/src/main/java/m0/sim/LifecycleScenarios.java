package m0.sim;

import static m0.sim.Scenarios.END;
import static m0.sim.Scenarios.clientsAt;
import static m0.sim.Scenarios.leaving;
import static m0.sim.Scenarios.queued;
import static m0.sim.Scenarios.serving;
import static m0.sim.Scenarios.started;

import m0.sim.Scenarios.Scenario;

/**
 * The seed's lifecycle worlds: a replacement held before its start, a parked or stopped worker killed,
 * reaped and given up or respawned, a late send past the give-up, a leaver waiting for a starting
 * sibling, and every act in one run. Listed in {@link Scenarios#ALL}.
 */
public final class LifecycleScenarios {

    public static final Scenario NS = new Scenario("NS",
            "w1's replacement binds and is held before start while w0 accepts", LifecycleScenarios::ns);

    public static final Scenario RP = new Scenario("RP",
            "w1 is killed while parked; the supervisor reaps and gives up; w0 accepts two",
            LifecycleScenarios::rp);

    public static final Scenario RB = new Scenario("RB",
            "w1 is stopped; w0 queues a connection to it; w1 is killed and given up",
            LifecycleScenarios::rb);

    public static final Scenario RP_RESPAWN = new Scenario("RP-respawn",
            "w1 is killed while parked and respawned (bind, then start) while w0 accepts two",
            LifecycleScenarios::rpRespawn);

    public static final Scenario LIFECYCLE = new Scenario("LIFECYCLE",
            "three workers: w0 accepts two and passes them on while w1 leaves and is given up, and w2 is"
            + " killed at any point, reaped and respawned", 3, LifecycleScenarios::lifecycle);

    public static final Scenario LATE_SEND = new Scenario("LATE-SEND",
            "w0 reads w1 live and stalls 300 ms before sendmsg; w1 is killed, reaped and given up meanwhile",
            LifecycleScenarios::lateSend);

    public static final Scenario WAIT_START = new Scenario("WAIT-START",
            "w1 leaves with a hand-off queued while w0, its only sibling, is killed, reaped and respawned (starts 50 ms later)",
            LifecycleScenarios::waitStart);

    public static final Scenario LEAVE_UNSEEN = new Scenario("LEAVE-UNSEEN",
            "w1 is spawned and starts with a hand-off queued to it; its only sibling w0 dies and is not replaced;"
            + " w1 gets SIGTERM before the supervisor has seen it start", LifecycleScenarios::leaveUnseen);

    private LifecycleScenarios() {
    }

    /**
     * The composed world: every act of the lifecycle in one run. w0 (carrying a load, so its
     * picks prefer its siblings) accepts two connections a tick apart and passes them on; w1 is told to leave
     * at once (its drain forwards what reaches it) and, once it has exited, is reaped and given
     * up (a leave is not replaced); w2 is killed by the supervisor at any point of everyone
     * else's steps, reaped, and respawned (bind, then start). The bound: two clients, one leave,
     * one kill, one respawn, one give-up.
     */
    static void lifecycle(Sim s) {
        Worker w0 = s.worker(0).load(1);
        Worker w1 = s.worker(1).accepts(false);
        Worker w2 = s.worker(2).accepts(false);
        started(s, w0, w1, w2);
        s.clients(1);
        clientsAt(s, s.tick);
        SupervisorOps<Conn> sup = s.supervisorOps();
        serving(s, w0);
        leaving(s, w1);
        serving(s, w2);
        s.actor("sup", () -> {
            s.kill(w2);
            s.replace(2, sup, Scenarios::replacement);
            while (!w1.exited) {
                s.sleep(s.tick);
            }
            s.reap(1, sup);
            s.giveUp(sup, 1);
        });
    }

    static void rpRespawn(Sim s) {
        Worker w0 = s.worker(0).load(1);
        Worker w1 = s.worker(1).accepts(false);
        started(s, w0, w1);
        s.clients(2);
        SupervisorOps<Conn> sup = s.supervisorOps();
        serving(s, w0);
        s.actor("sup", () -> {
            s.kill(w1);
            s.replace(1, sup, Scenarios::replacement);
        });
    }

    static void ns(Sim s) {
        Worker w0 = s.worker(0).load(1);
        Worker old = s.worker(1);
        started(s, w0, old);
        SupervisorOps<Conn> sup = s.supervisorOps();
        s.setup(() -> {
            old.dead = true; // the predecessor died and was reaped before the run, to be replaced
            s.reap(1, sup, true);
        });
        Worker w1 = s.worker(1).accepts(false); // its replacement
        s.clients(1);
        serving(s, w0);
        s.loop(w1, () -> {
            w1.bind();
            s.sleep(50 * Sim.MS); // held between bind and start (--dev-arm-gap-ms)
            w1.start();
            w1.run(END);
        });
        s.actor("sup", () -> {
            while (!w1.exited && !sup.startSeen(1)) {
                s.sleep(s.tick);
            }
        });
    }

    static void rp(Sim s) {
        Worker w0 = s.worker(0).load(1);
        Worker w1 = s.worker(1).accepts(false);
        started(s, w0, w1);
        s.clients(2);
        SupervisorOps<Conn> sup = s.supervisorOps();
        serving(s, w0);
        serving(s, w1);
        s.actor("sup", () -> {
            s.kill(w1);
            s.reap(1, sup);
            s.giveUp(sup, 1);
        });
    }

    static void rb(Sim s) {
        Worker w0 = s.worker(0).load(1);
        Worker w1 = s.worker(1).accepts(false); // SIGSTOPped while parked: no loop runs
        started(s, w0, w1);
        s.clients(1);
        SupervisorOps<Conn> sup = s.supervisorOps();
        serving(s, w0);
        s.actor("sup", () -> {
            s.kill(w1);
            s.reap(1, sup);
            s.giveUp(sup, 1);
        });
    }

    /**
     * No late strand: a sender that re-read w1's state before the reap and then stalled past
     * the give-up's 250 ms bound (a GC pause) queues into a channel whose drain has finished.
     * The supervisor keeps that channel watched until the index is bound again (never, here),
     * re-homing what arrives. The world runs to 400 ms so the late send lands inside it.
     */
    static void lateSend(Sim s) {
        long end = Sim.T0 + 400 * Sim.MS;
        Worker w0 = s.worker(0).load(1);
        Worker w1 = s.worker(1).accepts(false); // SIGSTOPped while parked: no loop runs
        started(s, w0, w1);
        s.clients(1);
        SupervisorOps<Conn> sup = s.supervisorOps();
        s.loop(w0, () -> {
            w0.stallBeforeSend = 300 * Sim.MS;
            w0.run(end);
        });
        s.actor("sup", () -> {
            s.kill(w1);
            s.reap(1, sup);
            s.giveUpAndWatch(sup, 1, end - 20 * Sim.MS);
        });
    }

    /**
     * Wait for a starting sibling: w1 leaves with a hand-off queued to it while w0, its only
     * sibling, is killed at any point, reaped and respawned (bound at once, started 50 ms
     * later). Forwarding can find nobody live; admitting the hand-off would close it unserved.
     * The leaver holds it until the replacement starts (within the wait). The supervisor marks
     * the replacement as starting from its reap until it sees it start, as m0serve's does; every
     * interleaving of the kill and reap with the leaver's reads is explored.
     */
    static void waitStart(Sim s) {
        Worker w0 = s.worker(0).accepts(false);
        Worker w1 = s.worker(1).accepts(false);
        started(s, w0, w1);
        Conn c = s.clients(1).get(0);
        queued(s, 1, c);
        SupervisorOps<Conn> sup = s.supervisorOps();
        serving(s, w0);
        leaving(s, w1);
        s.actor("sup", () -> {
            s.kill(w0);
            s.replace(0, sup, w -> {
                w.accepts(false);
                w.bind();
                s.sleep(50 * Sim.MS); // a JVM starting
                w.start();
                w.run(END);
            });
        });
    }

    /**
     * A worker that leaves before the supervisor has seen it start (ADR 0038): w1 was spawned
     * (marked starting), bound and started, with a hand-off queued to it; w0, its only sibling,
     * dies and is given up; w1 gets SIGTERM before the supervisor's look at its start. Nobody is
     * live or coming but w1 itself: it must serve the hand-off at once, not hold it through the
     * 5 s start wait (a server-wide STARTING count counted w1 as a sibling of its own). The
     * world ends at 1.5 s: a leaver still holding it then is a STRANDED connection.
     */
    static void leaveUnseen(Sim s) {
        Worker w0 = s.worker(0).accepts(false);
        Worker w1 = s.worker(1).accepts(false);
        SupervisorOps<Conn> sup = s.supervisorOps();
        s.setup(() -> {
            sup.spawning(0);
            sup.spawning(1);
            w0.bind();
            w0.start();
            sup.startSeen(0);
            w1.bind();
            w1.start(); // not yet seen by the supervisor
        });
        queued(s, 1, s.clients(1).get(0));
        s.setup(() -> {
            w0.dead = true;
            s.stopping = true; // not replaced
            s.reap(0, sup);
        });
        leaving(s, w1);
    }
}
