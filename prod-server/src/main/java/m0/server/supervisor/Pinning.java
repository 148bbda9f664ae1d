package m0.server.supervisor;

import m0.server.log.RateLimitedLog;

/**
 * Keeps each running worker on the CPU of its rank (ADR 0058): the core pairs a client on the
 * r-th CPU with the live worker of rank r, and ranks move under a running worker when a reload's
 * replacement takes a spare index below or above it, when a sibling leaves, or when SIGTTIN adds
 * one. A spawn pins the new worker from its first thread ({@link Spawner}); this part re-pins
 * the ones already running whose rank moved. Stepped from the supervisor's loop, which owns
 * every slot.
 *
 * <p>Invariant, once a step has run with no spawn or leave since: every running member's
 * {@link Slot#cpu} is {@code placement.cpuOf(rank)}, its rank counted without the old worker of
 * the reload step in progress, which keeps its CPU until it has left.
 */
final class Pinning {

    /** Sets every thread of a running process to the given CPUs (the native call; a stand-in in tests). */
    interface Pinner {
        void pin(int pid, int[] cpus);
    }

    private final Slots slots;
    private final CpuPlacement placement;
    private final int[] allowed;
    private final Pinner pinner;
    private final RateLimitedLog failures;

    /** {@code allowed}: every CPU the server may use, what a worker past the last pinned CPU gets. */
    Pinning(Slots slots, CpuPlacement placement, int[] allowed, Pinner pinner, RateLimitedLog failures) {
        this.slots = slots;
        this.placement = placement;
        this.allowed = allowed.clone();
        this.pinner = pinner;
        this.failures = failures;
    }

    /** Re-pins every running member whose rank's CPU is not the one it has; {@code leaving}: the reload's old worker, -1 none. */
    void step(int leaving) {
        if (!placement.pinned()) {
            return;
        }
        for (int i = 0; i < slots.lines(); i++) {
            Slot s = slots.at(i);
            if (!s.running() || !s.member || i == leaving) {
                continue;
            }
            int want = placement.cpuOf(slots.rank(i, leaving));
            if (want == s.cpu) {
                continue;
            }
            try {
                pinner.pin(s.pid, want < 0 ? allowed : new int[] {want});
            } catch (RuntimeException e) {
                // gone (the reap follows) or the CPU left the set: said once, not retried every pass
                failures.log("worker " + i + " (pid " + s.pid + ") not moved to CPU " + want + ": " + e.getMessage());
            }
            s.cpu = want;
        }
    }
}
