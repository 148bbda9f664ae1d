package m0.server.supervisor;

import m0.core.SupervisorShare;
import m0.server.jnr.Processes;
import m0.server.jnr.Processes.WaitStatus;
import m0.server.launch.ExitCodes;
import m0.server.share.Accepted;

/**
 * What follows a worker's death: collect it, mark its index LEFT (RP), and respawn it or give
 * it up as {@link ReapDecision} rules; and the retries of respawns whose spawn failed.
 */
final class Reaper {

    private final Slots slots;
    private final ChildWatch children;
    private final SupervisorShare<Accepted> share;
    private final RespawnBudget budget;
    private final Spawner spawner;
    private final GiveUps giveUps;
    private final ServerCounters counters;
    /** The latest worker that exited 78 unasked (the app cannot start), as the log names it; null: none. */
    private String configExit;

    Reaper(Slots slots, ChildWatch children, SupervisorShare<Accepted> share, RespawnBudget budget, Spawner spawner,
           GiveUps giveUps, ServerCounters counters) {
        this.slots = slots;
        this.children = children;
        this.share = share;
        this.budget = budget;
        this.spawner = spawner;
        this.giveUps = giveUps;
        this.counters = counters;
    }

    /**
     * The pidfd of worker {@code index} is readable, or SIGCHLD came ({@link ChildWatch}): collect
     * its status, if it has one, and decide.
     *
     * @param stopping        the server is stopping
     * @param reloadReplacing {@code index} is the old worker of the reload step in progress
     */
    void reap(int index, boolean stopping, boolean reloadReplacing) {
        Slot s = slots.at(index);
        if (!s.running()) {
            return;
        }
        WaitStatus st = Processes.poll(s.pid);
        if (st == null || !st.dead()) {
            return; // running, stopped or continued; the pidfd (or SIGCHLD) fires again when it exits
        }
        children.unwatch(s.pidfd);
        int pid = s.pid;
        s.reaped();
        counters.pid(index, -1);
        long now = System.nanoTime();
        ReapDecision decision = ReapDecision.decide(stopping, s.retiring, reloadReplacing, st,
                () -> budget.onDeath(index, now, s.startedAtOrZero(), slots.wanted()));
        s.retiring = false;
        // RP: mark the index LEFT before it is respawned or given up (the decision above reads
        // no page word). A replacement is counted as starting before the mark (SupervisorShare).
        share.markReaped(index, decision.respawn());
        giveUps.healWatched();
        if (decision.respawn()) {
            System.err.println("m0serve: worker " + index + " (pid " + pid + ") " + st + "; respawning");
            counters.respawned();
            spawner.respawn(index, now);
            return;
        }
        if (!decision.quiet()) {
            System.err.println("m0serve: worker " + index + " (pid " + pid + ") " + st + "; not replaced: "
                    + decision.whyNot());
        }
        if (!stopping && st.exited() && st.exitCode() == ExitCodes.CONFIG) {
            configExit = "worker " + index + " (pid " + pid + ") exited " + ExitCodes.CONFIG;
        }
        giveUps.giveUp(index, now);
    }

    /**
     * The worker that exited 78 (its app cannot start) since the last call, as the log names it,
     * or null; the supervisor stops on it while no worker has started (docs/adr/0062).
     */
    String takeConfigExit() {
        String c = configExit;
        configExit = null;
        return c;
    }

    /** Respawns whose spawn failed, when due: each retry is a death before start to the budget. */
    void retryRespawns(long now) {
        for (int i = 0; i < slots.lines(); i++) {
            Slot s = slots.at(i);
            if (s.respawnAt != 0 && s.pid < 0 && now - s.respawnAt >= 0) {
                String why = budget.onDeath(i, now, 0, slots.wanted()); // the failed spawn: a death before start
                if (why != null) {
                    System.err.println("m0serve: worker " + i + " could not be spawned; not replaced: " + why);
                    giveUps.giveUp(i, now);
                } else {
                    spawner.respawn(i, now);
                }
            }
        }
    }
}
