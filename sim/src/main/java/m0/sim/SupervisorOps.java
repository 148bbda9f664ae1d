package m0.sim;

import java.util.function.Consumer;

/** The supervisor's side: {@link m0.core.SupervisorShare} and {@link m0.core.GiveUp}, or a mutant. */
public interface SupervisorOps<C> {
    void markReaped(int index);

    /** The reap, with the replacement counted as starting first when {@code replacing}. */
    default void markReaped(int index, boolean replacing) {
        markReaped(index);
    }

    /** Before spawning into {@code index}: count it as starting ({@link m0.core.SupervisorShare#spawning}). */
    default void spawning(int index) {
    }

    /** The supervisor saw {@code index} start. */
    default void started(int index) {
    }

    /**
     * One look at the page for the start of the worker spawned into {@code index}: true (and no
     * longer marked starting) once it reads PARKED or a pass ({@link m0.core.SupervisorShare#startSeen}).
     */
    boolean startSeen(int index);

    /** Starts the give-up drain of {@code index}; step the result until it says done. */
    Drain<C> giveUp(int index);

    interface Drain<C> {
        boolean step(Consumer<? super C> close);

        /** After the drain is done: re-home what arrived late ({@link m0.core.GiveUp#watch}). */
        default int watch(Consumer<? super C> close) {
            return 0; // a supervisor that stops reading a given-up channel once its drain is done
        }
    }
}
