package m0.lincheck;

import m0.core.AcceptPolicy;
import m0.core.AcceptShare;

/**
 * One worker incarnation's loop, reduced to what the scenarios need: the real
 * {@link AcceptShare} over the actor's own ports, and the accept path's tail (serve).
 * Connections it serves stay open, so {@code open} is what a pass publishes as active.
 */
final class Worker {

    /** How a worker passes on a fresh accept: the core's passOn, or a mutant's. */
    @FunctionalInterface
    interface Sender {
        /** True when a sibling took the connection; false: the worker serves it. */
        boolean passOn(Worker w, Conn c);
    }

    static final Sender CORE = (w, c) -> w.share.passOn(c, w.open);

    final World world;
    final World.Actor actor;
    final AcceptShare<Conn> share;
    long open;

    Worker(World world, World.Actor actor, AcceptPolicy policy, long open) {
        this.world = world;
        this.actor = actor;
        this.share = new AcceptShare<>(actor.page, actor.channel, world.clock(), policy,
                world.workers(), actor.index);
        this.open = open;
    }

    Worker(World world, World.Actor actor, long open) {
        this(world, actor, AcceptPolicy.share(), open);
    }

    /** Accepts a fresh connection and passes it on or serves it, inside one pass. */
    void acceptPass(Sender sender) {
        share.passStart();
        Conn c = world.accept(actor);
        if (!sender.passOn(this, c)) {
            serve(c);
        }
        drain();
        share.passEnd(open);
    }

    /** One pass that only reads the channel. */
    void pass() {
        share.passStart();
        drain();
        share.passEnd(open);
    }

    /** Receive to EAGAIN, admitting each through the accept path's tail. */
    void drain() {
        Conn c;
        while ((c = share.receive()) != null) {
            serve(c);
        }
    }

    void serve(Conn c) {
        world.serve(actor, c);
        open++;
    }
}
