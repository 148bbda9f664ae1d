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

    void passEnd(long open);

    int pick(long open);

    boolean sendWith(int target, C connection);

    C receive();

    void leave();

    boolean leaveStep(Consumer<? super C> admit);
}
