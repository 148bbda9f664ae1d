package m0.sim;

import java.util.function.Consumer;

/**
 * The worker's side of the protocol, as the simulator drives it: the real implementation
 * delegates to {@link m0.core.AcceptShare}; a test mutant reimplements one operation with a
 * historical ordering, through the same ports.
 */
public interface WorkerOps<C> {
    void bind();

    void start();

    void passStart();

    /** This pass has work: stamp its start now, once (busy means busy). */
    void work();

    void passEnd(long open);

    int pick(long open);

    boolean sendWith(int target, C connection);

    C receive();

    void leave();

    boolean leaveStep(Consumer<? super C> admit);

    /** Fountain: a reading of the loop's cumulative busy time (the epoll model's loops only). */
    default void sample(long busyNanosTotal) {
    }

    /** The loop looked at the listener: listen to it (and accept now)? Share and race: yes. */
    default boolean takeListener(boolean readable) {
        return true;
    }

    /** After takeListener said no: when to look again. */
    default long listenDeadline() {
        throw new IllegalStateException("this protocol never leaves the listener");
    }

    /** Rebalance, the look: to whom to hand one idle connection now; self for nobody. */
    int rebalancePick(long open);

    /** Rebalance, the move: hand the idle {@code connection} to {@code target}. */
    boolean rebalance(int target, C connection);

    /** A leaver hands one of its own idle connections to a live sibling. */
    boolean handOver(C connection);

    /** A reap asked this index to heal its counts and the heal is not complete: one read of its counts. */
    boolean healDue();

    /** A heal was asked for and is not complete, as far as the worker has seen (no page access). */
    boolean healRequested();
}
