package m0.sim;

import java.util.ArrayDeque;
import java.util.concurrent.locks.LockSupport;

/**
 * A pooled platform thread that runs one actor's body at a time. Threads are reused across
 * runs: exhaustive mode starts tens of thousands of runs.
 */
final class Carrier extends Thread {

    private static final ArrayDeque<Carrier> POOL = new ArrayDeque<>();
    private static int created;

    private volatile Actor assigned;
    /** The actor whose body this thread runs now (read only on this thread). */
    private Actor carrying;

    private Carrier(int n) {
        super("sim-carrier-" + n);
        setDaemon(true);
    }

    static void run(Actor actor) {
        Carrier c;
        synchronized (POOL) {
            c = POOL.pollFirst();
            if (c == null) {
                c = new Carrier(created++);
                c.start();
            }
        }
        actor.thread = c;
        c.assigned = actor;
        LockSupport.unpark(c);
    }

    Actor carrying() {
        return carrying;
    }

    @Override
    public void run() {
        for (;;) {
            Actor a;
            while ((a = assigned) == null) {
                LockSupport.park(this);
            }
            assigned = null;
            carrying = a;
            try {
                a.sim.runActor(a);
            } finally {
                carrying = null;
            }
            synchronized (POOL) {
                POOL.addFirst(this);
            }
        }
    }
}
