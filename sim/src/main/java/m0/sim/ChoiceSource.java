package m0.sim;

/**
 * The one place a run's nondeterminism comes from. The scheduler asks "which of these runs
 * next?", a fault point asks "kill now?", a random world asks "which of n?". Random mode
 * answers from a seeded PRNG, replay from a recorded schedule string, exhaustive mode from
 * {@link Dpor} (an odometer over answer sequences, pruned by partial-order reduction).
 */
public interface ChoiceSource {

    /**
     * Which of the enabled actors runs next.
     *
     * @return an index into {@code enabled}, or -1 to abandon this run (a sleep-set-blocked
     *         prefix in exhaustive mode: everything after it was already covered)
     */
    int next(Enabled enabled);

    /** A free choice in {@code 0..n-1} (a random world's decisions). */
    int choose(int n);

    /**
     * A fault point: "kill now?" ({@code kind} '!') or "stall now?" ('~'), true with
     * probability {@code 1/oneIn}. {@code question} numbers the fault questions of the run.
     */
    boolean chance(char kind, long question, int oneIn);

    /** Every actor has blocked or slept: time jumps (a barrier for happens-before). */
    default void onTimeAdvance() {
    }

    /** The chosen transition is about to run (exhaustive mode tracks happens-before). */
    default void onStep(int actor, long reads, long writes) {
    }

    /** {@code waker}'s last step woke {@code woken} (a connection woke an epoll waiter). */
    default void onWake(int waker, int woken) {
    }

    /** {@code parent}'s current transition created {@code child}. */
    default void onSpawn(int parent, int child) {
    }

    /** The enabled actors at a scheduling decision, each with its next access's footprint. */
    interface Enabled {
        int size();

        /** The actor's id (creation order in the run, stable across replays). */
        int actor(int k);

        /** Objects the actor's next transition reads (a bit per object; see {@link Footprint}). */
        long reads(int k);

        /** Objects it writes. */
        long writes(int k);

        /** The index of the actor that reached this point (running it on costs no thread switch), or -1. */
        int running();
    }
}
