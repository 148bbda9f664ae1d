package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import m0.server.probe.Shape;
import m0.server.probe.Spread;
import m0.server.probe.SpreadProbe;
import m0.server.stats.PageSnapshot;
import m0.server.stats.PassWatch;
import m0.server.stats.WorkerCounters;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The seed's spread gate on real processes, accept policy {@code share}: every round of every
 * shape splits exactly evenly. Before measuring, every worker must serve (read from the page
 * and the workers' epoll sets, not slept for), one warm-up round runs unasserted (the JIT),
 * and each round starts from a quiescent page (the last round's closes published). A round
 * outside the protocol's exactness promise (a pick that passed over a sibling in a slow pass)
 * may be voided and re-run (bounded; printed): see assertEvenRounds.
 */
@Timeout(120)
class SpreadIntegrationTest {

    private static final int ROUNDS = 3;
    private static final int READY_MS = 30_000;
    private static final int QUIET_MS = 30_000; // a deadline only a hang reaches
    private static final int PROBE_TIMEOUT_MS = 10_000;
    /** Rounds voided (a sibling passed over in a slow pass) before the test gives up (see assertEvenRounds). */
    private static final int MAX_VOID = 10;

    private static ServerProcess two;
    private static PageWatch twoPage;

    @BeforeAll
    static void startTwoWorkers() throws Exception {
        two = ServerProcess.start("--workers", "2");
        twoPage = PageWatch.of(two);
        twoPage.awaitReady(READY_MS);
    }

    @AfterAll
    static void stop() throws Exception {
        if (two != null) {
            two.close();
        }
    }

    /** ASKING is not in the gate: it measures landing under passes that read, ADR 0054's open question. */
    @ParameterizedTest
    @EnumSource(value = Shape.class, names = {"BURST", "RAMP", "BURSTS8"})
    void twoWorkersSplitThirtyTwoSixteenSixteenInEveryRound(Shape shape) throws Exception {
        assertEvenRounds(two, twoPage, shape, 32, 2);
    }

    /** --by-pid (how nginx and uvicorn are probed) counts what the index counts, by the workers' pids. */
    @Test
    void countingByPidNamesTheWorkerProcesses() throws Exception {
        SpreadProbe probe = new SpreadProbe(new InetSocketAddress("127.0.0.1", two.port), PROBE_TIMEOUT_MS,
                SpreadProbe.Key.PID, List.of());
        List<Long> workerPids = two.descendants().stream().map(ProcessHandle::pid).sorted().toList();
        twoPage.awaitQuiescent(QUIET_MS);
        Spread spread = probe.round(Shape.RAMP, 32, 2);
        // A ramp reaches both workers (each connection is served before the next opens, and the
        // idle worker is the lighter one), so both pids are seen, and only theirs.
        assertEquals(workerPids, probe.pids().stream().sorted().toList(), "pids seen by the probe");
        assertEquals(32, spread.perWorker().values().stream().mapToInt(Integer::intValue).sum());
    }

    @Test
    void fourWorkersSplitABurstOfSixtyFourSixteenEach() throws Exception {
        try (ServerProcess four = ServerProcess.start("--workers", "4")) {
            PageWatch page = PageWatch.of(four);
            page.awaitReady(READY_MS);
            assertEvenRounds(four, page, Shape.BURST, 64, 4);
        }
    }

    /** Picks that passed over a sibling inside a slow pass, all live workers together (their counters). */
    private static long passedOverSlow(ServerProcess server) {
        return WorkerCounters.ofLiveWorkers(server.pid()).values().stream()
                .mapToLong(c -> c.word(WorkerCounters.PASSED_OVER_SLOW)).sum();
    }

    private static String loadAverage() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim();
        } catch (java.io.IOException e) {
            return "?";
        }
    }

    /**
     * One unasserted warm-up round, then rounds until ROUNDS of them were exactly even.
     *
     * <p>The protocol promises an exact split, with one acceptor or several (ADR 0043, ADR 0053),
     * as long as no pick passes over a sibling for being inside one pass for over 2 ms: pick skips such a
     * sibling by design (the seed: a slow view must not be handed more), and on this shared
     * 2-core machine a worker descheduled mid-pass is one. A round that is not even is void (and
     * re-run, bounded, printed) only when the workers' own counters show such a pick in it
     * ({@link WorkerCounters#PASSED_OVER_SLOW}); any other uneven round fails.
     */
    static void assertEvenRounds(ServerProcess server, PageWatch page, Shape shape, int connections,
                                         int workers) throws Exception {
        SpreadProbe probe = new SpreadProbe(new InetSocketAddress("127.0.0.1", server.port), PROBE_TIMEOUT_MS);
        Map<Integer, Integer> even = new HashMap<>();
        for (int i = 0; i < workers; i++) {
            even.put(i, connections / workers);
        }
        page.awaitQuiescent(QUIET_MS);
        probe.round(shape, connections, workers); // warm-up: the JIT, not the mechanism
        List<String> seen = new ArrayList<>();
        List<String> voided = new ArrayList<>();
        int clean = 0;
        for (int attempt = 1; clean < ROUNDS; attempt++) {
            PageSnapshot before = page.awaitQuiescent(QUIET_MS);
            long passedOverBefore = passedOverSlow(server);
            Spread spread;
            PassWatch passes = new PassWatch(page.page, workers);
            try {
                spread = probe.round(shape, connections, workers);
            } finally {
                passes.close();
            }
            seen.add(spread.counts());
            if (even.equals(spread.perWorker())) {
                clean++;
                continue;
            }
            PageSnapshot after = page.awaitQuiescent(QUIET_MS);
            long passedOver = passedOverSlow(server) - passedOverBefore;
            List<Long> accepted = new ArrayList<>();
            int acceptors = 0;
            for (int i = 0; i < workers; i++) {
                long a = spread.perWorker().get(i) - (after.worker(i).received() - before.worker(i).received())
                        + (after.worker(i).sent() - before.worker(i).sent());
                accepted.add(a);
                acceptors += a > 0 ? 1 : 0;
            }
            String why = spread.counts() + " (accepted per worker " + accepted + ", " + acceptors
                    + " acceptor(s); siblings passed over in a slow pass " + passedOver + "; " + passes.summary()
                    + "; load average " + loadAverage() + ")";
            if (passedOver > 0 && voided.size() < MAX_VOID) {
                voided.add(why);
                continue;
            }
            throw new AssertionError(shape.flag() + " x" + connections + " on " + workers + " workers: round "
                    + attempt + " split " + why + "; expected " + even + "; rounds so far " + seen
                    + (voided.isEmpty() ? "" : "; voided: " + voided)
                    + "\npage before the round:\n" + before.format() + "page after:\n" + after.format());
        }
        System.out.printf("spread %s x%d on %d workers: %d even rounds %s, %d voided%s%n", shape.flag(), connections,
                workers, clean, seen, voided.size(), voided.isEmpty() ? "" : " " + voided);
    }
}
