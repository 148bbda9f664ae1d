package m0.server.stats;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import m0.server.control.ServerTarget;
import m0.server.supervisor.StartupTimes;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code m0serve stats --bind HOST:PORT} (or {@code --pid-file FILE}, {@code --pid P}): a running server's shared page, per worker, read-only and
 * while it serves. Exit 0; 1 when the page cannot be found or read, or {@code --wait-ready-ms}
 * runs out.
 */
@Command(name = "stats", mixinStandardHelpOptions = true,
        description = "Print a running server's page per worker: state, active, pending, taken, "
                + "sent, received, forwarded, re-homed and lost; then start-up times (spawn to PARKED per worker, "
                + "launch to ready), idle connections each live worker rebalanced, and its listener counters "
                + "(accepted, wake-ups that accepted nothing, fountain's looks, loop busy seconds).")
public final class StatsCommand implements Callable<Integer> {

    /** --bind, --pid-file or --pid (a worker's pid works with --workers): docs/adr/0067. */
    @ArgGroup(exclusive = true, multiplicity = "1")
    ServerTarget target;

    /** The pid the target resolved to. */
    private long pid;

    @Option(names = "--workers", defaultValue = "0",
            description = "worker count; default: the supervisor's (command line, M0SERVE_WORKERS or its config file)")
    int workers;

    @Option(names = "--interval-ms", defaultValue = "0",
            description = "print again every MS milliseconds (default: once)")
    long intervalMillis;

    @Option(names = "--count", defaultValue = "0",
            description = "with --interval-ms: how many tables (default: until interrupted)")
    long count;

    @Option(names = "--wait-ready-ms", defaultValue = "0",
            description = "first wait up to MS ms until every worker serves (its epoll set watches the "
                    + "listener and, under share, its state has left NOT_STARTED); exit 1 if not")
    long waitReadyMillis;

    @Option(names = "--passes-ms", defaultValue = "0",
            description = "then sample the page for MS ms and print each worker's longest pass "
                    + "(* past 2 ms: a pick whose batch began then skips the worker)")
    long passesMillis;

    @Option(names = "--json", description = "one JSON object per table (per line), for scripts")
    boolean json;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        SupervisorPage page;
        try {
            pid = target.resolve();
            page = SupervisorPage.open(pid, workers);
        } catch (IOException | RuntimeException e) {
            err.println("m0serve stats: " + e.getMessage());
            err.flush();
            return 1;
        }
        if (waitReadyMillis > 0) {
            long start = System.nanoTime();
            long deadline = start + TimeUnit.MILLISECONDS.toNanos(waitReadyMillis);
            while (!WorkerProcesses.allReady(page)) {
                if (System.nanoTime() - deadline >= 0) {
                    err.println("m0serve stats: not every worker of pid " + pid + " is serving after "
                            + waitReadyMillis + " ms");
                    err.print(page.read().format());
                    err.flush();
                    return 1;
                }
                Thread.sleep(10); // polling a condition, bounded by the deadline
            }
            out.printf("ready after %d ms%n", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        }
        for (long k = 0; count <= 0 || k < count; k++) {
            if (k > 0) {
                Thread.sleep(intervalMillis);
            }
            PageSnapshot snapshot = page.read();
            if (json) {
                out.println(JsonStats.format(snapshot, StartupTimes.attach(pid).orElse(null),
                        WorkerCounters.ofLiveWorkers(pid)));
                out.flush();
                if (intervalMillis <= 0) {
                    break;
                }
                continue;
            }
            out.print(snapshot.format());
            // Held by a supervisor only; a worker's pid shows the page alone.
            StartupTimes.attach(pid).ifPresent(t -> out.print(t.format(snapshot.workers().size())));
            out.print(WorkerCounters.format(pid));
            out.flush();
            if (intervalMillis <= 0) {
                break;
            }
        }
        if (passesMillis > 0) {
            PassWatch passes = new PassWatch(page, page.workers());
            out.println("sampling passes for " + passesMillis + " ms");
            out.flush();
            Thread.sleep(passesMillis); // the sampling window itself
            passes.close();
            out.println("longest pass ms over " + passesMillis + " ms: " + passes.longestPasses());
            out.flush();
        }
        return 0;
    }
}
