package m0.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * One simulated thread of control: a worker process's loop, the supervisor, a client source.
 * It runs its body on a carrier thread, but only while it holds the scheduler's baton.
 */
public final class Actor {

    static final int READY = 0;
    static final int SLEEPING = 1;
    static final int DONE = 2;
    static final int DEAD = 3;
    static final int RUNNING = 4;

    final Sim sim;
    final int id;
    final String name;
    final Runnable body;
    /** The worker process this actor is the loop of, or null. */
    final Worker worker;

    int state = READY;
    boolean stopped;
    /** Descheduled mid-operation (random mode): it wakes into the access it was about to make. */
    boolean stalled;
    long wakeAt;
    /** The footprint of the transition it waits to run (its own process bit included). */
    long reads;
    long writes;

    volatile boolean exited;
    Thread thread;

    /**
     * Its contribution to each index's {@code pending - taken - inFlight}: raises and receipts
     * count up, take-backs, retires and sends count down. A live actor's balance returns to 0;
     * a dead one's is an orphaned raise (or a bug, when negative).
     */
    final long[] balance;
    final List<Conn> held = new ArrayList<>();
    /** The connection its pick is deciding about: accepted, not yet kept or sent (ACTIVE). */
    Conn deciding;
    /** The last value and step of each sibling state this actor read (the pick oracles). */
    final long[] stateRead;
    final long[] stateReadStep;

    Actor(Sim sim, int id, String name, Runnable body, Worker worker, int workers) {
        this.sim = sim;
        this.id = id;
        this.name = name;
        this.body = body;
        this.worker = worker;
        this.balance = new long[workers];
        this.stateRead = new long[workers];
        this.stateReadStep = new long[workers];
    }

    public String name() {
        return name;
    }

    @Override
    public String toString() {
        return name;
    }
}
