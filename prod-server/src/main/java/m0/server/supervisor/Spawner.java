package m0.server.supervisor;

import java.util.List;
import java.util.concurrent.TimeUnit;
import m0.core.SupervisorShare;
import m0.server.jnr.CpuAffinity;
import m0.server.jnr.Processes;
import m0.server.jnr.Processes.WaitStatus;
import m0.server.jnr.Spawn;
import m0.server.log.RateLimitedLog;
import m0.server.share.Accepted;

/**
 * Starts worker JVMs: posix_spawnp with exactly their descriptors ({@link WorkerCommand}), on
 * their CPU when pinned ({@link CpuPlacement}: the spawning thread is pinned for the call), each
 * watched ({@link ChildWatch}: a pidfd in the supervisor's epoll set, data its index, or SIGCHLD).
 * Spawns run on the supervisor's loop thread only: a worker without pidfds takes its parent's
 * death from that thread's (docs/adr/0060). A spawn that fails
 * leaves no process at the index and is no reason to stop: a respawn is tried again shortly,
 * a fresh start (reload, SIGTTIN) is dropped with a line.
 */
final class Spawner {

    /** A spawn that failed (EAGAIN, ENOMEM, EMFILE...) is tried again this much later. */
    private static final long RESPAWN_RETRY_NANOS = 100_000_000L;

    private final Slots slots;
    private final WorkerCommand command;
    private final ChildWatch children;
    private final SupervisorShare<Accepted> share;
    private final GiveUps giveUps;
    private final RespawnBudget budget;
    private final StartupTimes startup;
    private final ServerCounters counters;
    private final RateLimitedLog failures;
    private final CpuPlacement placement;

    Spawner(Slots slots, WorkerCommand command, ChildWatch children, SupervisorShare<Accepted> share, GiveUps giveUps,
            RespawnBudget budget, StartupTimes startup, ServerCounters counters, RateLimitedLog failures,
            CpuPlacement placement) {
        this.slots = slots;
        this.command = command;
        this.children = children;
        this.share = share;
        this.giveUps = giveUps;
        this.budget = budget;
        this.startup = startup;
        this.counters = counters;
        this.failures = failures;
        this.placement = placement;
    }

    /**
     * Spawns into {@code index}, which no process holds (its bind writes NOT_STARTED over the
     * reap's LEFT; its start retires taken).
     *
     * @throws RuntimeException the spawn failed; nothing runs at the index
     */
    void spawn(int index) {
        spawn(index, -1);
    }

    /** {@link #spawn(int)} for a worker that replaces the one at {@code leaving} (a reload), -1 for none. */
    private void spawn(int index, int leaving) {
        giveUps.unwatch(index); // the new worker reads the channel from now on (docs/adr/0020)
        List<String> argv = command.argv(index);
        List<String> env = command.env();
        int[] inherit = command.inherit(index);
        startup.spawned(index, System.nanoTime());
        // Starting from now until the start is seen on the page (or it is reaped): a leaver or a
        // give-up with no live worker waits for it rather than close what it holds (ADR 0021).
        share.spawning(index);
        int pid;
        int cpu = placement.cpuOf(slots.rank(index, leaving));
        boolean[] unpinned = {false};
        try {
            pid = cpu < 0 ? Spawn.spawn(argv, env, inherit)
                    : CpuAffinity.onCpu(cpu, () -> Spawn.spawn(argv, env, inherit), e -> {
                        failures.log("worker " + index + " on CPU " + cpu + ": " + e.getMessage());
                        unpinned[0] = true; // recorded free: Pinning tries again
                    });
        } catch (RuntimeException e) {
            share.spawnFailed(index);
            throw e;
        }
        int pidfd;
        try {
            pidfd = children.watch(pid, index);
        } catch (RuntimeException e) {
            // Unwatched, it would be a second process at this index once the spawn is retried
            // (two starts subtracting one taken): stop it before saying the spawn failed.
            Processes.kill(pid, Processes.SIGKILL);
            awaitKilled(pid);
            share.spawnFailed(index);
            throw e;
        }
        slots.at(index).spawned(pid, pidfd, unpinned[0] ? -1 : cpu);
        counters.pid(index, pid);
    }

    /**
     * Respawns into {@code index} after a death. A failed spawn is retried {@link #RESPAWN_RETRY_NANOS}
     * later, counted by the budget as a death before start, so one that always fails gives the
     * index up (docs/adr/0010).
     */
    void respawn(int index, long now) {
        Slot s = slots.at(index);
        try {
            spawn(index);
            s.respawnAt = 0;
        } catch (RuntimeException e) {
            failures.log("cannot spawn worker " + index + ": " + e.getMessage() + "; retrying");
            s.respawnAt = now + RESPAWN_RETRY_NANOS;
        }
    }

    /**
     * A new worker at a free index (reload, SIGTTIN), with a fresh budget; false if it could not
     * be spawned. {@code leaving}: the index of the worker it replaces (a reload), or -1.
     */
    boolean startFresh(int index, int leaving, String why) {
        Slot s = slots.at(index);
        budget.reset(index);
        s.member = true;
        try {
            spawn(index, leaving);
        } catch (RuntimeException e) {
            failures.log(why + ": cannot start a worker at index " + index + ": " + e.getMessage());
            s.member = false;
            return false;
        }
        System.err.println("m0serve: " + why + ": worker " + index + " (pid " + s.pid + ") starting");
        return true;
    }

    /** Reaps a child just SIGKILLed, waiting at most a second (it has not started a JVM yet). */
    private static void awaitKilled(int pid) {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        try {
            while (System.nanoTime() - until < 0) {
                WaitStatus st = Processes.poll(pid);
                if (st != null && st.dead()) {
                    return;
                }
                Thread.sleep(5);
            }
        } catch (RuntimeException | InterruptedException e) {
            // a zombie at worst; the failure that brought us here is what gets reported
        }
    }
}
