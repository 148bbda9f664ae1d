package m0.lincheck;

/**
 * A connection in the model: what m0serve passes as a descriptor. Its fate is bookkeeping
 * the {@link World} keeps under its lock, so the oracles can say where each one ended.
 */
final class Conn {

    enum Fate {
        /** An actor holds it: accepted, or received off a channel, and not yet served. */
        HELD,
        /** In worker {@link #at}'s channel. */
        QUEUED,
        /** Admitted and answered by {@link #holder}. */
        SERVED,
        /** Closed unanswered by {@link #holder}. */
        CLOSED,
        /** Its holder was killed with it: lost with the worker, which the design accepts. */
        LOST
    }

    final int id;
    Fate fate = Fate.HELD;
    World.Actor holder;
    int at = -1;

    Conn(int id, World.Actor holder) {
        this.id = id;
        this.holder = holder;
    }

    @Override
    public String toString() {
        return "c" + id;
    }
}
