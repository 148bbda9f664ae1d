package m0.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * Random mode's world, in the spirit of FoundationDB's simulator and TigerBeetle's VOPR:
 * four worker indices, clients arriving over time, and faults — kills at any scheduling point,
 * SIGSTOP/SIGCONT, late starts, slow passes, small channels (full → refused), voluntary
 * leaves (reload, scale-down) with the supervisor's rolling replacement, a respawn budget and
 * give-ups — then a graceful stop. Every decision comes from the run's {@link ChoiceSource}.
 */
public final class RandomWorld {

    static final int WORKERS = 4;
    static final long TICK = Sim.MS;
    static final long ARRIVALS_END = 80 * Sim.MS;
    static final long STOP = 120 * Sim.MS;
    static final int RESPAWNS = 2;

    private RandomWorld() {
    }

    public static Sim build(Protocol protocol, ChoiceSource source, boolean fullTrace) {
        Sim s = new Sim(WORKERS, protocol, source, fullTrace, TICK, 8);
        s.channelCapacity = 1 + s.choose(6);
        s.healOracle = false; // a give-up's drain that is done is not watched here: an orphan raised later stays
        s.killOneIn = 4000;
        s.stallOneIn = 100;
        s.horizon(5_000 * Sim.MS);
        int clients = 10 + s.choose(40);
        SupervisorOps<Conn> sup = s.supervisorOps();
        s.rebalance(true);
        for (int i = 0; i < WORKERS; i++) {
            Worker w = s.worker(i);
            s.setup(() -> sup.spawning(w.index())); // spawned by the supervisor: marked starting
            s.loop(w, () -> life(s, w));
        }
        s.actor("clients", () -> {
            for (int k = 0; k < clients && s.now() < Sim.T0 + ARRIVALS_END; k++) {
                s.sleep(s.choose(4) * Sim.MS / 2);
                s.connect();
            }
        });
        s.actor("sup", () -> supervise(s, sup));
        return s;
    }

    /**
     * A worker's life: perhaps held before start, then the core's loop with faults of its own
     * (a pass that runs slow now and then, a voluntary leave at a random time: a reload or a
     * scale-down, after which the supervisor replaces it), until it has left.
     */
    static void life(Sim s, Worker w) {
        if (s.choose(6) == 0) {
            s.sleep((1 + s.choose(20)) * Sim.MS); // late start: held before bind
        }
        w.bind();
        if (s.choose(6) == 0) {
            s.sleep((1 + s.choose(10)) * Sim.MS); // held between bind and start (import time)
        }
        w.start();
        w.beforePass(() -> {
            if (s.choose(20) == 0) {
                w.slowPass = (1 + s.choose(5)) * Sim.MS; // > 2 ms: siblings skip it
            }
        });
        if (s.choose(3) == 0) {
            w.terminateAt(s.now() + (1 + s.choose(100)) * Sim.MS); // leaves on its own
        }
        w.run(Long.MAX_VALUE); // until it has left: SIGTERM comes at the latest at STOP
    }

    static void supervise(Sim s, SupervisorOps<Conn> sup) {
        int[] respawns = new int[WORKERS];
        List<SupervisorOps.Drain<Conn>> drains = new ArrayList<>();
        List<Worker> stopped = new ArrayList<>();
        List<Long> resumeAt = new ArrayList<>();
        boolean[] seen = new boolean[WORKERS];
        for (;;) {
            for (int i = 0; i < WORKERS; i++) {
                Worker w = s.current[i];
                if ((w.dead || w.exited) && !w.reaped) {
                    boolean replacing = !s.stopping && respawns[i] < RESPAWNS;
                    s.reap(i, sup, replacing);
                    if (replacing) {
                        respawns[i]++;
                        seen[i] = false;
                        s.respawn(i, r -> life(s, r));
                    } else {
                        drains.add(s.acts.beginGiveUp(sup, i));
                    }
                } else if (!seen[i] && !w.dead && !w.exited) {
                    seen[i] = sup.startSeen(i); // observeStarts: the mark is lowered once it runs
                }
            }
            drains.removeIf(d -> !s.acts.stepGiveUp(d));
            for (int k = stopped.size() - 1; k >= 0; k--) {
                if (s.now() >= resumeAt.get(k) || s.stopping) {
                    s.stop(stopped.remove(k), false);
                    resumeAt.remove(k);
                }
            }
            if (!s.stopping) {
                if (s.choose(60) == 0) {
                    Worker v = s.current[s.choose(WORKERS)];
                    if (!v.dead && !v.exited) {
                        s.kill(v);
                    }
                }
                if (s.choose(60) == 0) {
                    Worker v = s.current[s.choose(WORKERS)];
                    if (!v.dead && !v.exited && !stopped.contains(v)) {
                        s.stop(v, true);
                        stopped.add(v);
                        resumeAt.add(s.now() + (1 + s.choose(40)) * Sim.MS);
                    }
                }
                if (s.now() >= Sim.T0 + STOP) {
                    s.stopping = true;
                    for (Worker w : s.current) {
                        if (!w.dead && !w.exited) {
                            s.signal(w); // SIGTERM to every worker
                        }
                    }
                }
            }
            if (s.stopping && drains.isEmpty() && stopped.isEmpty()) {
                boolean all = true;
                for (Worker w : s.current) {
                    all &= w.reaped;
                }
                if (all) {
                    return;
                }
            }
            s.sleep(s.tick);
        }
    }
}
