package m0.server.supervisor;

import m0.server.jnr.Processes.WaitStatus;
import m0.server.launch.ExitCodes;

/**
 * What a reap decides about a dead worker's index: respawn it, or give it up and whether to say
 * so. Pure: it reads the facts it is given and asks the respawn budget only about a death
 * nobody asked for (so that leavers never spend it). The reap does the rest: RP's mark first,
 * then the respawn or the give-up drain ({@link Reaper}).
 *
 * <p>The rules, first match wins (docs/adr/0006, 0010):
 * <ol>
 * <li>the server is stopping: given up, quietly;
 * <li>it was asked to leave (a reload's retire, SIGTTOU): not replaced, quietly when it exited 0;
 * <li>it is the old worker of the reload step in progress: not replaced, the step's
 *     replacement takes over;
 * <li>it exited {@link ExitCodes#CONFIG}: not replaced, it would only fail again;
 * <li>any other death, exit 0 included (a stray SIGTERM): respawned while the budget allows.
 * </ol>
 *
 * @param whyNot why the index is not replaced; null: respawn it
 * @param quiet  the give-up is expected: no line on stderr
 */
record ReapDecision(String whyNot, boolean quiet) {

    private static final ReapDecision RESPAWN = new ReapDecision(null, false);

    /** The respawn budget's say on a death nobody asked for (RespawnBudget#onDeath, bound). */
    @FunctionalInterface
    interface Budget {
        /** Counts the death; null: respawn it, otherwise why not. */
        String onDeath();
    }

    /**
     * @param stopping        SIGTERM or SIGINT reached the supervisor
     * @param retiring        the supervisor asked this worker to leave
     * @param reloadReplacing it is the old worker of the reload step in progress
     * @param status          how it died
     * @param budget          asked only by the last rule
     */
    static ReapDecision decide(boolean stopping, boolean retiring, boolean reloadReplacing, WaitStatus status,
                               Budget budget) {
        if (stopping) {
            return new ReapDecision("stopping", true);
        }
        if (retiring) {
            return new ReapDecision("it was asked to leave", status.exited() && status.exitCode() == 0);
        }
        if (reloadReplacing) {
            return new ReapDecision("a reload is replacing it", false);
        }
        if (status.exited() && status.exitCode() == ExitCodes.CONFIG) {
            return new ReapDecision("it exited " + status.exitCode(), false);
        }
        // Not asked to leave, so replaced whatever its status, exit 0 included (a stray SIGTERM
        // makes a worker leave gracefully and exit 0): docs/adr/0010.
        String why = budget.onDeath();
        return why == null ? RESPAWN : new ReapDecision(why, false);
    }

    boolean respawn() {
        return whyNot == null;
    }
}
