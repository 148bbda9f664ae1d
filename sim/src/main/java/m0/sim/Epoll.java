package m0.sim;

/**
 * The epoll model of the simulated kernel: a worker's wait on its interest set (its channel,
 * the listener when registered), the wake-ups that end it, the listener's registration, and
 * fountain's nudge. Level-triggered: what is ready is looked at again after every wake-up.
 */
final class Epoll {

    /** What {@link #wait} found ready: the worker's channel, the listener. */
    static final int CHANNEL_READY = 1;
    static final int LISTENER_READY = 2;

    private final Sim sim;

    Epoll(Sim sim) {
        this.sim = sim;
    }

    /**
     * epoll_wait until {@code until}: at once when the worker's channel (a hand-off or a nudge)
     * or the listener it holds in its interest set is ready, or SIGTERM is pending; otherwise
     * blocked until one wakes it (a send to its channel, a connection the listener's wake rule
     * gives it, a signal) or the time comes.
     */
    int wait(Worker w, long until) {
        Actor me = sim.me();
        int ready = lookReady(w, me);
        if (ready != 0 || w.terminate || until - sim.now <= 0) {
            return ready;
        }
        w.inEpoll = true;
        w.woken = false;
        me.state = Actor.SLEEPING;
        me.wakeAt = until;
        sim.trace(me, "epoll_wait" + (w.armed ? "" : " (listener out)") + " until " + Sim.ms(until));
        sim.turn.yieldFrom(me);
        w.inEpoll = false;
        if (w.woken) {
            // The step that resumed us is the look: the waker gave it the look's footprint.
            return ready(w, me);
        }
        return lookReady(w, me); // the time came: look, a step of its own
    }

    /** What the wait's look reads: the channel, and the listener when it is in the interest set. */
    private static long lookFootprint(Worker w) {
        return (w.watchingChannel ? Footprint.bit(Footprint.acct(w.index)) : 0)
                | (w.armed && w.accepts ? Footprint.bit(Footprint.LISTENER) : 0);
    }

    /** The wait's look at its interest set: a step that reads the channel and the listener. */
    private int lookReady(Worker w, Actor me) {
        sim.point(me, lookFootprint(w), 0);
        return ready(w, me);
    }

    private int ready(Worker w, Actor me) {
        boolean listener = w.armed && w.accepts;
        int ready = 0;
        if (w.watchingChannel && (!sim.channels[w.index].isEmpty() || sim.nudgePending[w.index])) {
            ready |= CHANNEL_READY;
        }
        if (listener && !sim.backlog.isEmpty()) {
            ready |= LISTENER_READY;
        }
        sim.trace(me, "epoll -> " + (ready == 0 ? "idle" : ((ready & CHANNEL_READY) != 0 ? "channel " : "")
                + ((ready & LISTENER_READY) != 0 ? "listener" : "")).strip());
        return ready;
    }

    /**
     * Wakes worker {@code w} if it is blocked in its wait (its channel turned readable, a
     * connection the listener's wake rule gives it, a signal): its next step is its look.
     */
    void wake(Actor waker, Worker w) {
        Actor a = w.actor;
        if (a == null || !w.inEpoll || a.state != Actor.SLEEPING || w.dead) {
            return;
        }
        w.inEpoll = false;
        w.woken = true;
        a.state = Actor.READY;
        a.reads = lookFootprint(w);
        a.writes = Footprint.bit(Footprint.proc(a.id));
        sim.source.onWake(waker.id, a.id);
        sim.trace(waker, "wakes " + w);
    }

    /**
     * The listener goes into worker {@code w}'s interest set, or out (epoll_ctl): a step that
     * reads it, for a worker that can win an accept. One the kernel never hands a connection to
     * is woken by none either, so its registration changes nothing a sibling can see.
     */
    void interest(Worker w, boolean in) {
        Actor me = sim.me();
        if (sim.scheduling() && w.accepts) {
            sim.point(me, Footprint.bit(Footprint.LISTENER), 0);
        }
        w.armed = in;
        sim.trace(me, "epoll_ctl(listener, " + (in ? "ADD" : "DEL") + ")");
    }

    /** Fountain's nudge: a datagram with no connection on {@code target}'s channel, which wakes it. */
    void nudge(int target) {
        Actor me = sim.me();
        sim.point(me, 0, Footprint.bit(Footprint.acct(target)));
        sim.nudgePending[target] = true;
        sim.trace(me, "channel.nudge(w" + target + ")");
        Worker w = sim.current[target];
        if (w != null && w.watchingChannel) {
            wake(me, w);
        }
    }
}
