package m0.server.supervisor;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import m0.core.BusyEstimator;
import m0.core.Counts;
import m0.core.Page;
import m0.core.PageLayout;
import m0.server.stats.RequestStats;
import m0.server.stats.WorkerCounters;

/**
 * The server as Prometheus text exposition format 0.0.4 (docs/adr/0017): the shared page's
 * words per worker and per server, the supervisor's own counts, each live worker's request
 * counters from its {@link RequestStats} memfd and its loop's from its {@link WorkerCounters}
 * memfd (busy seconds, accepts, wake-ups that accepted nothing, fountain's looks, wake-ups, rebalanced;
 * docs/adr/0022), and under fountain each worker's published busy estimate and full flag. One
 * sample per live worker index ({@code worker="i"}); a reloaded or respawned worker's memfd
 * counters start again at 0.
 */
final class PrometheusText {

    private static final String[] CLASSES = {"1xx", "2xx", "3xx", "4xx", "5xx"};
    private static final String[] LE = new String[RequestStats.BUCKETS];

    static {
        for (int k = 0; k < RequestStats.BOUNDS_MICROS.length; k++) {
            LE[k] = seconds(RequestStats.BOUNDS_MICROS[k]);
        }
        LE[RequestStats.BOUNDS_MICROS.length] = "+Inf";
    }

    private final Page page;
    private final ServerCounters counters;
    /** The workers run fountain: their busy words are published (share and race leave them 0). */
    private final boolean fountain;

    PrometheusText(Page page, ServerCounters counters, boolean fountain) {
        this.page = page;
        this.counters = counters;
        this.fountain = fountain;
    }

    private static String seconds(long micros) {
        return BigDecimal.valueOf(micros, 6).stripTrailingZeros().toPlainString();
    }

    /** One scrape. */
    String render() {
        List<Integer> live = new ArrayList<>();
        List<RequestStats> stats = new ArrayList<>();
        List<WorkerCounters> loops = new ArrayList<>();
        for (int i = 0; i < counters.lines(); i++) {
            int pid = counters.pid(i);
            if (pid > 0) {
                live.add(i);
                Optional<RequestStats> r = RequestStats.attach(pid);
                stats.add(r.orElse(null)); // none yet: a worker still starting
                loops.add(WorkerCounters.attach(pid).orElse(null));
            }
        }
        StringBuilder b = new StringBuilder(4096);
        head(b, "m0serve_worker_state", "gauge", "1 for the state each worker's line of the shared page holds");
        for (int i : live) {
            b.append("m0serve_worker_state{worker=\"").append(i).append("\",state=\"")
                    .append(stateName(page.getVolatile(PageLayout.stateWord(i)))).append("\"} 1\n");
        }
        perWorker(b, live, "m0serve_worker_open_connections", "gauge",
                "open connections, published at the end of the worker's last pass", Counts::active);
        perWorker(b, live, "m0serve_worker_pending", "gauge",
                "connections passed to the worker and not yet retired", Counts::pending);
        perWorker(b, live, "m0serve_worker_taken", "gauge",
                "connections the worker received and has not yet retired", Counts::taken);
        perWorker(b, live, "m0serve_worker_handoffs_sent_total", "counter",
                "fresh accepts passed to a sibling, this index's workers together", PageLayout.SENT_OFFSET);
        perWorker(b, live, "m0serve_worker_handoffs_received_total", "counter",
                "connections taken off this index's channel", PageLayout.RECEIVED_OFFSET);
        perWorker(b, live, "m0serve_worker_handoffs_forwarded_total", "counter",
                "connections passed on again while leaving", PageLayout.FORWARDED_OFFSET);
        if (fountain) {
            head(b, "m0serve_worker_busy_ratio", "gauge",
                    "fountain's published busy estimate (smoothed share of the loop's time outside epoll_wait, plus surge)");
            for (int i : live) {
                long w = page.getVolatile(PageLayout.busyWord(i));
                b.append("m0serve_worker_busy_ratio{worker=\"").append(i).append("\"} ")
                        .append(BigDecimal.valueOf(BusyEstimator.perMille(w), 3).toPlainString()).append('\n');
            }
            head(b, "m0serve_worker_full", "gauge", "1 while fountain judges the worker full (from 85 %, free below 70 %)");
            for (int i : live) {
                b.append("m0serve_worker_full{worker=\"").append(i).append("\"} ")
                        .append(BusyEstimator.full(page.getVolatile(PageLayout.busyWord(i))) ? 1 : 0).append('\n');
            }
        }
        loopWord(b, live, loops, "m0serve_worker_busy_seconds_total",
                "the worker loop's time outside epoll_wait", WorkerCounters.BUSY_NANOS, true);
        loopWord(b, live, loops, "m0serve_worker_pool_busy_seconds_total",
                "the worker's blocking pool threads' time inside a task", WorkerCounters.POOL_BUSY_NANOS, true);
        loopWord(b, live, loops, "m0serve_worker_accepted_total",
                "connections the worker accepted from the listener", WorkerCounters.ACCEPTED, false);
        loopWord(b, live, loops, "m0serve_worker_listener_empty_wakeups_total",
                "listener readiness the worker was woken for that accepted nothing", WorkerCounters.EMPTY_WAKEUPS, false);
        loopWord(b, live, loops, "m0serve_worker_listener_looks_total",
                "fountain: zero-timeout looks at a listener left to an earlier worker", WorkerCounters.LOOKS, false);
        loopWord(b, live, loops, "m0serve_worker_wakeups_total",
                "returns from epoll_wait: the worker loop's passes", WorkerCounters.WAKEUPS, false);
        loopWord(b, live, loops, "m0serve_worker_rebalanced_total",
                "idle connections the worker handed to a lighter sibling", WorkerCounters.REBALANCED, false);
        loopWord(b, live, loops, "m0serve_worker_picks_passed_over_slow_total",
                "siblings the worker's picks passed over for being over 2 ms into one pass when the batch began",
                WorkerCounters.PASSED_OVER_SLOW, false);
        loopWord(b, live, loops, "m0serve_worker_picked_again_total",
                "sends not raised and keeps not published because the counts they were decided on moved, picked again",
                WorkerCounters.PICKED_AGAIN, false);
        loopWord(b, live, loops, "m0serve_worker_ring_sends_total",
                "answers' sends the worker made through io_uring", WorkerCounters.RING_SENDS, false);
        loopWord(b, live, loops, "m0serve_worker_ring_calls_total",
                "io_uring_enter calls that carried the worker's answers' sends", WorkerCounters.RING_CALLS, false);
        loopWord(b, live, loops, "m0serve_worker_writes_total",
                "answers' write(2) calls the worker's loop made (a --main handler's own writes to its socket are not counted here; their bytes are)", WorkerCounters.WRITES, false);
        loopWord(b, live, loops, "m0serve_worker_handler_failures_total",
                "requests whose app code threw or answered nothing: answered 500, or cut after what was sent",
                WorkerCounters.HANDLER_FAILURES, false);
        loopWord(b, live, loops, "m0serve_worker_sendfiles_total",
                "file answers' sendfile(2) calls the worker made", WorkerCounters.SENDFILES, false);
        loopWord(b, live, loops, "m0serve_worker_sendfile_bytes_total",
                "bytes the worker's sendfile(2) calls sent, file to socket in the kernel", WorkerCounters.SENDFILE_BYTES, false);
        head(b, "m0serve_worker_tls_handshakes_total", "counter",
                "TLS handshakes the worker finished: full (a key exchange and a signature) or resumed (a session ticket)");
        for (int k = 0; k < live.size(); k++) {
            WorkerCounters c = loops.get(k);
            for (String kind : new String[] {"full", "resumed"}) {
                long v = c == null ? 0 : c.word(kind.equals("full") ? WorkerCounters.TLS_FULL_HANDSHAKES
                        : WorkerCounters.TLS_RESUMED_HANDSHAKES);
                b.append("m0serve_worker_tls_handshakes_total{worker=\"").append(live.get(k)).append("\",kind=\"")
                        .append(kind).append("\"} ").append(v).append('\n');
            }
        }
        server(b, "m0serve_handoffs_lost_total", "counter",
                "hand-offs that arrived without their descriptor (all workers)", page.getVolatile(PageLayout.LOST_WORD));
        server(b, "m0serve_rehomed_total", "counter",
                "connections queued to a given-up index and re-homed to a live worker",
                page.getVolatile(PageLayout.REHOMED_WORD));
        server(b, "m0serve_respawns_total", "counter", "workers replaced after dying unasked", counters.respawns());
        server(b, "m0serve_given_up_total", "counter", "worker indices given up", counters.givenUp());
        server(b, "m0serve_reloads_total", "counter", "SIGHUP reloads begun", counters.reloads());
        server(b, "m0serve_workers_live", "gauge", "worker processes running", live.size());

        head(b, "m0serve_requests_total", "counter", "responses by status class");
        for (int k = 0; k < live.size(); k++) {
            RequestStats r = stats.get(k);
            for (int c = 1; c <= 5; c++) {
                b.append("m0serve_requests_total{worker=\"").append(live.get(k)).append("\",code=\"")
                        .append(CLASSES[c - 1]).append("\"} ").append(r == null ? 0 : r.requests(c)).append('\n');
            }
        }
        head(b, "m0serve_request_duration_seconds", "histogram",
                "from the loop pass that parsed the request to its response queued for writing");
        for (int k = 0; k < live.size(); k++) {
            RequestStats r = stats.get(k);
            String w = "m0serve_request_duration_seconds_bucket{worker=\"" + live.get(k) + "\",le=\"";
            long cumulative = 0;
            for (int q = 0; q < RequestStats.BUCKETS; q++) {
                cumulative += r == null ? 0 : r.word(RequestStats.FIRST_BUCKET + q);
                b.append(w).append(LE[q]).append("\"} ").append(cumulative).append('\n');
            }
            String lw = "{worker=\"" + live.get(k) + "\"} ";
            b.append("m0serve_request_duration_seconds_sum").append(lw)
                    .append(seconds(r == null ? 0 : r.word(RequestStats.DURATION_SUM_MICROS))).append('\n');
            b.append("m0serve_request_duration_seconds_count").append(lw).append(cumulative).append('\n');
        }
        requestWord(b, live, stats, "m0serve_received_bytes_total", "bytes read from connections", RequestStats.BYTES_IN);
        requestWord(b, live, stats, "m0serve_sent_bytes_total", "bytes written to connections", RequestStats.BYTES_OUT);
        return b.toString();
    }

    private static String stateName(long state) {
        if (PageLayout.inPass(state)) {
            return "in_pass";
        }
        return state == PageLayout.PARKED ? "parked" : state == PageLayout.LEFT ? "left"
                : state == PageLayout.NOT_STARTED ? "not_started" : "unknown";
    }

    private static void head(StringBuilder b, String name, String type, String help) {
        b.append("# HELP ").append(name).append(' ').append(help).append('\n');
        b.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    private void perWorker(StringBuilder b, List<Integer> live, String name, String type, String help, int offset) {
        head(b, name, type, help);
        for (int i : live) {
            b.append(name).append("{worker=\"").append(i).append("\"} ")
                    .append(page.getVolatile(PageLayout.lineOf(i) + offset)).append('\n');
        }
    }

    /** A field of each live worker's counts word (one load each: pending and taken agree). */
    private void perWorker(StringBuilder b, List<Integer> live, String name, String type, String help,
                           java.util.function.LongUnaryOperator field) {
        head(b, name, type, help);
        for (int i : live) {
            b.append(name).append("{worker=\"").append(i).append("\"} ")
                    .append(field.applyAsLong(page.getVolatile(PageLayout.countsWord(i)))).append('\n');
        }
    }

    private static void server(StringBuilder b, String name, String type, String help, long value) {
        head(b, name, type, help);
        b.append(name).append(' ').append(value).append('\n');
    }

    private static void loopWord(StringBuilder b, List<Integer> live, List<WorkerCounters> loops, String name,
                                 String help, int word, boolean nanosAsSeconds) {
        head(b, name, "counter", help);
        for (int k = 0; k < live.size(); k++) {
            WorkerCounters c = loops.get(k);
            long v = c == null ? 0 : c.word(word);
            b.append(name).append("{worker=\"").append(live.get(k)).append("\"} ")
                    .append(nanosAsSeconds ? BigDecimal.valueOf(v, 9).toPlainString() : Long.toString(v)).append('\n');
        }
    }

    private static void requestWord(StringBuilder b, List<Integer> live, List<RequestStats> stats, String name,
                                    String help, int word) {
        head(b, name, "counter", help);
        for (int k = 0; k < live.size(); k++) {
            RequestStats r = stats.get(k);
            b.append(name).append("{worker=\"").append(live.get(k)).append("\"} ")
                    .append(r == null ? 0 : r.word(word)).append('\n');
        }
    }
}
