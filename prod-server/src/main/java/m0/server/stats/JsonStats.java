package m0.server.stats;

import java.util.Locale;
import m0.server.supervisor.StartupTimes;

/**
 * {@code m0serve stats --json}: the page (and the start-up record, when the pid is a
 * supervisor's) as one JSON object per line, for scripts. Hand-written: every value is a
 * number or one of the page's state names, so nothing needs escaping.
 *
 * <pre>{"pid":P,"policy":"share","rehomed":N,"lost":N,"workers":[{"index":0,"state":"PARKED","in_pass_ms":null,
 *   "active":N,"pending":N,"taken":N,"sent":N,"received":N,"forwarded":N,"busy_per_mille":N,"full":false,
 *   "keeping":false,"settled":N,
 *   "accepted":N,"empty_wakeups":N,"looks":N,"busy_s":S,"wakeups":N,"rebalanced":N,"ring_sends":N,"ring_calls":N,"writes":N,
 *   "started_ms":N,"starts":N},...],
 *   "ready_ms":N}</pre>
 * {@code started_ms} and {@code ready_ms} are null when not known (not started, or a worker's pid);
 * {@code busy_per_mille} and {@code full} (fountain's published load) are null under share and
 * race; {@code keeping} and {@code settled} (share's gate, ADR 0041, and its settled keep-alive
 * connections, ADR 0059) are null under race and fountain; the worker's own counters ({@code accepted} ... {@code rebalanced}, {@link WorkerCounters})
 * are there only for a live worker of a supervisor's pid.
 */
final class JsonStats {

    private JsonStats() {
    }

    static String format(PageSnapshot s, StartupTimes startup, java.util.Map<Integer, WorkerCounters> counters) {
        StringBuilder b = new StringBuilder(256 + 320 * s.workers().size());
        b.append("{\"pid\":").append(s.pid())
                .append(",\"policy\":").append(s.policy() == null ? "null" : "\"" + s.policy() + "\"")
                .append(",\"rehomed\":").append(s.rehomed())
                .append(",\"lost\":").append(s.lost()).append(",\"workers\":[");
        for (WorkerLine w : s.workers()) {
            boolean inPass = m0.core.PageLayout.inPass(w.state());
            b.append(w.index() == 0 ? "" : ",").append("{\"index\":").append(w.index())
                    .append(",\"state\":\"").append(inPass ? "IN_PASS" : m0.core.PageLayout.stateName(w.state())).append('"')
                    .append(",\"in_pass_ms\":").append(inPass ? millis((s.readAtNanos() - w.state()) / 1e6) : "null")
                    .append(",\"active\":").append(w.active())
                    .append(",\"pending\":").append(w.pending())
                    .append(",\"taken\":").append(w.taken())
                    .append(",\"sent\":").append(w.sent())
                    .append(",\"received\":").append(w.received())
                    .append(",\"forwarded\":").append(w.forwarded());
            if (s.busyPublished()) {
                b.append(",\"busy_per_mille\":").append(m0.core.BusyEstimator.perMille(w.busy()))
                        .append(",\"full\":").append(m0.core.BusyEstimator.full(w.busy()));
            } else {
                b.append(",\"busy_per_mille\":null,\"full\":null");
            }
            if ("share".equals(s.policy())) {
                b.append(",\"keeping\":").append((w.busy() & m0.core.AcceptShare.KEEPING_BIT) != 0)
                        .append(",\"settled\":").append(w.busy() & m0.core.AcceptShare.SETTLED_MASK);
            } else {
                b.append(",\"keeping\":null,\"settled\":null");
            }
            WorkerCounters c = counters.get(w.index());
            if (c != null) {
                b.append(",\"accepted\":").append(c.word(WorkerCounters.ACCEPTED))
                        .append(",\"empty_wakeups\":").append(c.word(WorkerCounters.EMPTY_WAKEUPS))
                        .append(",\"looks\":").append(c.word(WorkerCounters.LOOKS))
                        .append(",\"busy_s\":").append(String.format(Locale.ROOT, "%.6f",
                                c.word(WorkerCounters.BUSY_NANOS) / 1e9))
                        .append(",\"pool_busy_s\":").append(String.format(Locale.ROOT, "%.6f",
                                c.word(WorkerCounters.POOL_BUSY_NANOS) / 1e9))
                        .append(",\"wakeups\":").append(c.word(WorkerCounters.WAKEUPS))
                        .append(",\"rebalanced\":").append(c.word(WorkerCounters.REBALANCED))
                        .append(",\"ring_sends\":").append(word(c, WorkerCounters.RING_SENDS))
                        .append(",\"ring_calls\":").append(word(c, WorkerCounters.RING_CALLS))
                        .append(",\"writes\":").append(word(c, WorkerCounters.WRITES))
                        .append(",\"sendfiles\":").append(word(c, WorkerCounters.SENDFILES))
                        .append(",\"sendfile_bytes\":").append(word(c, WorkerCounters.SENDFILE_BYTES));
            }
            if (startup != null && w.index() < startup.lines()) {
                double ms = startup.startedMillis(w.index());
                b.append(",\"started_ms\":").append(ms < 0 ? "null" : millis(ms))
                        .append(",\"starts\":").append(startup.starts(w.index()));
            }
            b.append('}');
        }
        b.append(']');
        if (startup != null) {
            double r = startup.readyMillis();
            b.append(",\"ready_ms\":").append(r < 0 ? "null" : millis(r));
        }
        return b.append('}').toString();
    }

    /** A counter, or null where the worker's build has no such word (an older one). */
    private static String word(WorkerCounters c, int w) {
        return c.has(w) ? Long.toString(c.word(w)) : "null";
    }

    private static String millis(double ms) {
        return String.format(Locale.ROOT, "%.3f", ms);
    }
}
