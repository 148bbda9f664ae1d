package m0.server.stats;

import java.util.List;

/**
 * The shared page as an observer read it: every worker's line and the header's re-homed and lost counts.
 *
 * @param readAtNanos System.nanoTime when the read began (IN_PASS ages are measured from it)
 * @param policy      the accept policy the workers run, null when unknown: only fountain
 *                    publishes the busy word
 */
public record PageSnapshot(long pid, long readAtNanos, long rehomed, long lost, List<WorkerLine> workers,
                           String policy) {

    public PageSnapshot {
        workers = List.copyOf(workers);
    }

    public WorkerLine worker(int index) {
        return workers.get(index);
    }

    /** True when every index's loop has started: the page's own readiness signal (share only). */
    public boolean allStarted() {
        return workers.stream().allMatch(WorkerLine::started);
    }

    /** Nothing open and nothing in flight on any line: the state between two probe rounds. */
    public boolean quiescent() {
        return workers.stream().allMatch(w -> w.active() == 0 && w.pending() == 0 && w.taken() == 0);
    }

    public long totalActive() {
        return workers.stream().mapToLong(WorkerLine::active).sum();
    }

    public long totalSent() {
        return workers.stream().mapToLong(WorkerLine::sent).sum();
    }

    public long totalReceived() {
        return workers.stream().mapToLong(WorkerLine::received).sum();
    }

    /** True when the busy words are published (fountain): else the column shows "-". */
    public boolean busyPublished() {
        return "fountain".equals(policy);
    }

    /** Share: "keeping" while the worker's arrivals close short and it hands nothing off (ADR 0041). */
    private String keepingLabel(WorkerLine w) {
        return "share".equals(policy) && (w.busy() & m0.core.AcceptShare.KEEPING_BIT) != 0 ? "keeping" : "-";
    }

    /** The table {@code m0serve stats} prints. */
    public String format() {
        StringBuilder out = new StringBuilder();
        out.append(String.format("m0serve stats: pid %d, %d workers, re-homed %d, lost %d%s%n", pid, workers.size(),
                rehomed, lost, policy == null ? "" : ", accept policy " + policy));
        out.append(String.format("%-6s %-16s %8s %8s %8s %10s %10s %10s %11s%n",
                "worker", "state", "active", "pending", "taken", "sent", "received", "forwarded", "busy"));
        for (WorkerLine w : workers) {
            out.append(String.format("%-6d %-16s %8d %8d %8d %10d %10d %10d %11s%n", w.index(), w.stateLabel(readAtNanos),
                    w.active(), w.pending(), w.taken(), w.sent(), w.received(), w.forwarded(),
                    busyPublished() ? w.busyLabel() : keepingLabel(w)));
        }
        if ("share".equals(policy)) {
            // What a keeping worker's rebalance evens under a mixed load (ADR 0059).
            out.append("settled (reused keep-alive connections held):");
            for (WorkerLine w : workers) {
                out.append(" w").append(w.index()).append('=').append(w.busy() & m0.core.AcceptShare.SETTLED_MASK);
            }
            out.append(System.lineSeparator());
        }
        return out.toString();
    }
}
