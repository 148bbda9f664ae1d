package m0.server.supervisor;

/**
 * What {@code /readyz} says (docs/adr/0067): the supervisor's loop moves it, the metrics thread
 * reads it. Starting until the "ready" line (every first worker serves), serving from then,
 * stopping from the moment a stop begins: before any worker is told to leave, so a load balancer
 * that reads 503 still has the drain to move its clients while the last connections finish.
 */
final class Health {

    enum State {
        STARTING, SERVING, STOPPING
    }

    private volatile State state = State.STARTING;

    State state() {
        return state;
    }

    /** The "ready" line was printed. A stop that began first keeps its STOPPING. */
    void serving() {
        if (state == State.STARTING) {
            state = State.SERVING;
        }
    }

    /** A stop began (SIGTERM, SIGINT, or the app could not start): for good. */
    void stopping() {
        state = State.STOPPING;
    }
}
