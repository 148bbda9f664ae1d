package m0.server.stats;

import m0.core.BusyEstimator;
import m0.core.PageLayout;

/**
 * One worker's line of the shared page, read word by word (each a volatile load, so the line
 * is not one atomic snapshot: a pass may end between two loads).
 *
 * @param state     the state word: NOT_STARTED 0, LEFT -1, PARKED -2, &gt; 0 a pass's start (ns)
 * @param active    open connections, as published at the end of the worker's last pass
 * @param pending   connections passed to it and not yet retired
 * @param taken     connections it received and has not yet retired
 * @param sent      statistic: fresh accepts it passed to a sibling
 * @param received  statistic: connections it took off its channel
 * @param forwarded statistic: connections it passed on again while leaving
 * @param busy      fountain's published load: per mille, {@link BusyEstimator#FULL_BIT} while full
 *                  (0 under share and race, which do not publish it)
 */
public record WorkerLine(int index, long state, long active, long pending, long taken,
                         long sent, long received, long forwarded, long busy) {

    /** The busy word as stats prints it: "41.2%", "87.5% full", "12.0% held" (its listener out, ADR 0038). */
    public String busyLabel() {
        return String.format(java.util.Locale.ROOT, "%.1f%%%s%s", BusyEstimator.perMille(busy) / 10.0,
                BusyEstimator.full(busy) ? " full" : "", BusyEstimator.held(busy) ? " held" : "");
    }

    /** True once the worker's loop has started (or it has since left): its channel is read. */
    public boolean started() {
        return state != PageLayout.NOT_STARTED;
    }

    /** NOT_STARTED, PARKED, LEFT, or IN_PASS with how long the pass has run so far. */
    public String stateLabel(long nowNanos) {
        if (PageLayout.inPass(state)) {
            // Every worker's Clock is System.nanoTime, CLOCK_MONOTONIC: one clock for all processes.
            return String.format("IN_PASS+%.1fms", (nowNanos - state) / 1e6);
        }
        return PageLayout.stateName(state);
    }
}
