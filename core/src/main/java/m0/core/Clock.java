package m0.core;

/**
 * Port: a monotonic clock in nanoseconds, the same for every process sharing a page (in
 * m0serve, {@code CLOCK_MONOTONIC}; in the simulator, virtual time). The core never reads time
 * any other way, so every deadline it keeps is checkable on a fake clock.
 */
@FunctionalInterface
public interface Clock {

    /** Monotonic nanoseconds; comparable across the processes that share one page. */
    long nanoTime();
}
