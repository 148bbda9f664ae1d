package m0.server.supervisor;

import m0.server.jnr.Processes;

/**
 * One worker index (a line of the page and its channel): the process running there, if any,
 * and what the supervisor wants of it. The supervisor's loop thread owns every field.
 *
 * <p>At most one process runs at an index: its descriptors are fixed at spawn and the core's
 * start subtracts the index's taken, so two live workers at one index would subtract it twice
 * (docs/adr/0006). So a worker is spawned only into an index whose process was reaped (a
 * respawn, its retry) or that is {@link #free} (a first start, a reload, SIGTTIN).
 */
final class Slot {

    final int index;
    /** The worker's pid, or -1: none running. */
    int pid = -1;
    /** Its pidfd, in the supervisor's epoll set (data: the index) while {@link #pid} is set. */
    int pidfd = -1;
    /** The loop's start was seen on the page (state PARKED or in a pass). */
    boolean started;
    /** When the start was seen (System.nanoTime); never 0 once seen: 0 is "never" to the budget. */
    long startedAt;
    /** The supervisor wants a worker here (respawns it when it dies). */
    boolean member;
    /** Asked to leave (reload, scale-down): its exit frees the index. */
    boolean retiring;
    /** A give-up drain is reading this index's channel: the index is not free yet. */
    boolean draining;
    /** A respawn whose spawn failed is due again at this time (System.nanoTime); 0: none. */
    long respawnAt;
    /** The CPU its process was pinned to (ADR 0058), -1: free. */
    int cpu = -1;

    Slot(int index) {
        this.index = index;
    }

    boolean running() {
        return pid > 0;
    }

    /** Running, and its start not yet seen on the page. */
    boolean awaitingStart() {
        return pid > 0 && !started;
    }

    /** Nobody runs it, wants it, or drains it: a new worker may take it. */
    boolean free() {
        return pid < 0 && !member && !draining;
    }

    /** When its start was seen, or 0 if it never was (the budget counts that death as fast). */
    long startedAtOrZero() {
        return started ? startedAt : 0;
    }

    /** A worker was spawned here: nothing of it seen yet, nothing asked of it. */
    void spawned(int pid, int pidfd, int cpu) {
        this.pid = pid;
        this.pidfd = pidfd;
        this.cpu = cpu;
        started = false;
        startedAt = 0;
        retiring = false;
    }

    void sawStart(long now) {
        started = true;
        startedAt = now == 0 ? 1 : now;
    }

    /** Its process is gone (what becomes of the index is the reap's decision). */
    void reaped() {
        pid = -1;
        pidfd = -1;
    }

    /**
     * Not replaced: nobody is wanted here and no respawn is due, and the index stays taken
     * ({@link #draining}) until the give-up's drain of its channel is done.
     */
    void givenUp() {
        member = false;
        respawnAt = 0;
        draining = true;
    }

    /**
     * SIGTERM to the worker, which runs the core's leave; the index is freed by its exit, which
     * is then not replaced ({@link #retiring}).
     */
    void askToLeave(String why) {
        member = false;
        retiring = true;
        System.err.println("m0serve: " + why + ": worker " + index + " (pid " + pid + ") leaving");
        Processes.kill(pid, Processes.SIGTERM);
    }
}
