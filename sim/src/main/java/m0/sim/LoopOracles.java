package m0.sim;

import java.util.Arrays;
import m0.core.AcceptShare;
import m0.core.BusyEstimator;
import m0.core.Counts;
import m0.core.PageLayout;
import m0.core.loop.WorkerLoop;

/**
 * Rules that only the worker's loop keeps (issue 45): what the loop's own timers and its pass
 * end's order promise the siblings, judged on the page and on virtual time, each on in the worlds
 * that ask for it ({@link LoopScenarios}).
 * <ul>
 *   <li>HEAL-LOOK (ADR 0024): a heal request on a live worker's index is served (its bit cleared)
 *       within one heal look ({@link WorkerLoop#HEAL_LOOK_NANOS}) of being raised, even when nothing
 *       else wakes the worker: "an idle worker heals within a second of the reap".
 *   <li>SETTLED-SEEN (ADR 0059): a live worker's settled load as a sibling's keeping look reads it
 *       ({@code pending}, then the published settled count) never misses a settled connection it
 *       holds: a moved connection leaves pending only after it is counted settled. Connections it
 *       accepted since its last publish are left out (m0serve counts a fresh accept settled only at
 *       its second request; the simulator calls every served connection settled).
 *   <li>SAMPLE (ADR 0019): a live fountain worker hands its busy time to the core "at every pass
 *       end and at least every 20 ms": no sample is older than two sample periods, so an idle
 *       worker's published busy word (full, say) is never left standing by a loop with nothing to do.
 * </ul>
 * The time rules are judged when virtual time is about to move on, the page rule after every step.
 */
final class LoopOracles {

    /** A pass that takes virtual time (a world's request load) may end a timer's wake-up this late. */
    static final long PASS_SLACK = 5 * Sim.MS;
    static final long HEAL_BOUND = WorkerLoop.HEAL_LOOK_NANOS + PASS_SLACK;
    static final long SAMPLE_BOUND = 2 * BusyEstimator.SAMPLE_NANOS;

    private final Sim sim;
    boolean healLook;
    boolean settledSeen;
    boolean sampleAge;
    /** Per index: since when a live worker there has had a heal request on its counts (-1: none). */
    private final long[] healAskedAt;

    LoopOracles(Sim sim) {
        this.sim = sim;
        this.healAskedAt = new long[sim.workers];
        Arrays.fill(healAskedAt, -1);
    }

    /** A worker whose loop runs: started, not killed, exited, leaving or stopped. */
    private static boolean live(Worker w) {
        return w != null && w.actor != null && w.started && !w.dead && !w.exited && !w.left && !w.actor.stopped;
    }

    void afterStep() {
        if (healLook) {
            for (int i = 0; i < sim.workers; i++) {
                boolean asked = live(sim.current[i])
                        && Counts.healRequested(sim.raw.getVolatile(PageLayout.countsWord(i)));
                if (!asked) {
                    healAskedAt[i] = -1;
                } else if (healAskedAt[i] < 0) {
                    healAskedAt[i] = sim.now;
                }
            }
        }
        if (settledSeen) {
            for (int i = 0; i < sim.workers; i++) {
                if (settled(i)) {
                    return;
                }
            }
        }
    }

    /** SETTLED-SEEN for index i; true when said. */
    private boolean settled(int i) {
        Worker w = sim.current[i];
        if (!live(w) || !w.share.policy().judgesShape()) {
            return false;
        }
        long held = 0;
        for (Conn c : w.actor.held) {
            if (!c.inCore && c.served && !c.unsettled && !w.acceptedSincePublish.contains(c)) {
                held++;
            }
        }
        long pending = Counts.pending(sim.raw.getVolatile(PageLayout.countsWord(i)));
        long published = sim.raw.getVolatile(PageLayout.busyWord(i)) & AcceptShare.SETTLED_MASK;
        if (pending + published < held) {
            sim.violation("SETTLED-SEEN", w + " holds " + held + " settled connection(s); a sibling's look reads pending "
                    + pending + " + settled " + published + ": a moved one left pending before it was counted settled");
            return true;
        }
        return false;
    }

    /** Time is about to move on to {@code t}: HEAL-LOOK and SAMPLE. */
    void beforeTimeAdvance(long t) {
        if (healLook) {
            for (int i = 0; i < sim.workers; i++) {
                if (healAskedAt[i] >= 0 && t - healAskedAt[i] > HEAL_BOUND) {
                    sim.violation("HEAL-LOOK", sim.current[i] + "'s heal request, raised at " + Sim.ms(healAskedAt[i])
                            + ", is still not served at " + Sim.ms(t) + " (a heal look is "
                            + WorkerLoop.HEAL_LOOK_NANOS / Sim.MS + " ms)");
                    return;
                }
            }
        }
        if (sampleAge) {
            for (Worker w : sim.current) {
                if (live(w) && w.share.policy().samplesBusy() && t - w.sampledAt > SAMPLE_BOUND) {
                    sim.violation("SAMPLE", w + "'s last busy sample was at " + Sim.ms(w.sampledAt) + "; at "
                            + Sim.ms(t) + " it is over " + SAMPLE_BOUND / Sim.MS + " ms old");
                    return;
                }
            }
        }
    }
}
