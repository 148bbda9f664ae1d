package m0.server.supervisor;

import m0.server.log.RateLimitedLog;

/**
 * Keeps each running worker's loop thread on the CPU of its rank (ADR 0058, docs/adr/0070): the
 * core pairs a client on the r-th CPU with the live worker of rank r. Only the loop thread: the
 * worker's pool, the app's own threads (an inference runtime's) and the JVM's run free, so a
 * pinned worker costs an app that computes on threads of its own nothing.
 *
 * <p>A worker is spawned free and placed here once its start is seen on the page (its loop thread
 * is named by then). Ranks move under a running worker when a reload's replacements take spare
 * indices, when a sibling leaves or when SIGTTIN adds one; the running ones whose rank moved are
 * re-placed at rest, not while a reload step is in progress, when the old worker still serves and
 * the core still pairs by the ranks it counts in (moving the others then would cross every
 * pairing until it leaves). Stepped from the supervisor's loop, which owns every slot.
 *
 * <p>Invariant, at rest after a step: every running, started member's {@link Slot#cpu} is
 * {@code placement.cpuOf(rank)}. A placing that fails leaves {@link Slot#cpu} as it was, so the
 * next step tries again; the line says so once a second at most.
 */
final class Pinning {

    /** Sets a running worker's loop thread to the given CPUs (the native call; a stand-in in tests). */
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

    /** Places every started member whose rank's CPU is not the one it has; nothing while {@code reloading}. */
    void step(boolean reloading) {
        if (!placement.pinned() || reloading) {
            return;
        }
        int rank = 0; // Slots.rank(i, -1), counted on the way: one pass over the lines
        for (int i = 0; i < slots.lines(); i++) {
            Slot s = slots.at(i);
            if (!s.member) {
                continue;
            }
            int want = placement.cpuOf(rank++);
            if (!s.running() || !s.started || want == s.cpu) {
                continue;
            }
            try {
                pinner.pin(s.pid, want < 0 ? allowed : new int[] {want});
                s.cpu = want;
            } catch (RuntimeException e) {
                // gone (its reap follows), or the CPU left the set: tried again next step
                failures.log("worker " + i + " (pid " + s.pid + ")'s loop not moved to CPU " + want + ": " + e.getMessage());
            }
        }
    }
}
