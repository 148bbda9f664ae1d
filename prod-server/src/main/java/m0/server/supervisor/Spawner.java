package m0.server.supervisor;

import java.util.List;
import java.util.concurrent.TimeUnit;
import m0.core.SupervisorShare;
import m0.server.jnr.Processes;
import m0.server.jnr.Processes.WaitStatus;
import m0.server.jnr.Spawn;
import m0.server.log.RateLimitedLog;
import m0.server.share.Accepted;

/**
 * Starts worker JVMs: posix_spawnp with exactly their descriptors ({@link WorkerCommand}), free
 * (once started, {@link Pinning} puts a pinned one's loop thread on its CPU), each watched ({@link ChildWatch}: a pidfd in the supervisor's epoll set, data its index, or SIGCHLD).
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

    Spawner(Slots slots, WorkerCommand command, ChildWatch children, SupervisorShare<Accepted> share, GiveUps giveUps,
            RespawnBudget budget, StartupTimes startup, ServerCounters counters, RateLimitedLog failures) {
        this.slots = slots;
        this.command = command;
        this.children = children;
        this.share = share;
        this.giveUps = giveUps;
        this.budget = budget;
        this.startup = startup;
        this.counters = counters;
        this.failures = failures;
    }

    /**
     * Spawns into {@code index}, which no process holds (its bind writes NOT_STARTED over the
     * reap's LEFT; its start retires taken).
     *
     * @throws RuntimeException the spawn failed; nothing runs at the index
     */
    void spawn(int index) {
        giveUps.unwatch(index); // the new worker reads the channel from now on (docs/adr/0020)
        List<String> argv = command.argv(index);
        List<String> env = command.env();
        int[] inherit = command.inherit(index);
        startup.spawned(index, System.nanoTime());
        // Starting from now until the start is seen on the page (or it is reaped): a leaver or a
        // give-up with no live worker waits for it rather than close what it holds (ADR 0021).
        share.spawning(index);
        int pid;
        try {
            // Free: Pinning places its loop thread once its start is seen (docs/adr/0070).
            pid = Spawn.spawn(argv, env, inherit);
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
        slots.at(index).spawned(pid, pidfd, -1);
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
     * be spawned.
     */
    boolean startFresh(int index, String why) {
        Slot s = slots.at(index);
        budget.reset(index);
        s.member = true;
        try {
            spawn(index);
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
