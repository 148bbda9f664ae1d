package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import m0.core.Counts;
import m0.core.Page;
import m0.core.PageLayout;
import m0.server.jnr.Processes;
import m0.server.share.SharedPage;
import m0.server.stats.WorkerCounters;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 9, the process half, on the real binary: descriptor exhaustion is a state (the worker
 * stops accepting, its loop passes only for its timers and its log says so once a second, and it
 * serves again once load drops; counted from its stats, not timed), and a worker
 * SIGTERMed from outside is replaced. 127.0.0.1, ephemeral ports, bounded loops; every pid and
 * socket is cleaned up after each test.
 */
@Timeout(180)
class HostileProcessIntegrationTest {

    /** The shape: the server under a 256-descriptor limit, a thousand clients held. */
    private static final int FD_LIMIT = 256;
    private static final int HELD_CLIENTS = 1000;
    /**
     * How long the held state is watched: an observation, not a synchronisation (nothing is
     * waited for; what the workers did meanwhile is counted).
     */
    private static final long WATCH_MS = 3_000;
    /**
     * Loop passes per worker while held, at most. Held, a worker wakes for its timers alone (the
     * 25 ms rebalance look while it holds idle connections, a heal look a second; at EMFILE the
     * 100 ms back-off's end and the accept that fails again): 90-180 over the watch as measured,
     * so a loaded machine would have to stretch the watch fivefold to reach the bound. A
     * listener left in the interest set wakes the loop at every wait: 150 000-850 000.
     */
    private static final long MAX_PASSES = 1_000;
    /**
     * Log lines (both workers) over the watch, at most. A repeated failure is one line a second
     * per worker (RateLimitedLog); a line per failed accept would be ten a second per worker at
     * the 100 ms back-off (60 over the watch), and millions without it.
     */
    private static final int MAX_LOG_LINES = 20;
    private static final long CLOCK_TICKS_PER_SECOND = 100; // USER_HZ on Linux x86_64

    private final List<ServerProcess> servers = new ArrayList<>();
    private final List<SocketChannel> held = new ArrayList<>();

    @AfterEach
    void cleanUp() throws IOException {
        for (SocketChannel c : held) {
            c.close();
        }
        held.clear();
        for (ServerProcess s : servers) {
            s.close();
        }
    }

    /**
     * Under {@code prlimit --nofile=256:256}, with the cap derived from the limit (the default)
     * and with the cap out of the way (so accept4 itself reaches EMFILE and the back-off runs).
     */
    @ParameterizedTest(name = "--max-connections {0}")
    @ValueSource(ints = {0, 100_000})
    void atTheDescriptorLimitWorkersStayCheapAndQuietAndServeOnceLoadDrops(int maxConnections) throws Exception {
        ServerProcess s = ServerProcess.start(List.of("prlimit", "--nofile=" + FD_LIMIT + ":" + FD_LIMIT), Map.of(),
                "--workers", "2", "--max-connections", Integer.toString(maxConnections),
                // Held clients send nothing: long timeouts keep their descriptors held all along.
                "--idle-timeout-ms", "120000", "--header-timeout-ms", "120000");
        servers.add(s);
        assertNotNull(s.awaitReady(60), "both workers started");
        List<Long> workers = workerPids(s);
        assertEquals(2, workers.size(), "two worker JVMs: " + workers);

        // Bounded: HELD_CLIENTS connects; past what the workers hold, the kernel's backlog holds
        // them (4096), so each connect completes without being accepted.
        for (int i = 0; i < HELD_CLIENTS; i++) {
            SocketChannel c = SocketChannel.open();
            held.add(c);
            c.socket().connect(new InetSocketAddress("127.0.0.1", s.port), 10_000);
        }
        // The workers have taken all they will: each has said that it stopped accepting (its cap,
        // or EMFILE). Measure the held state only.
        awaitBothHeld(s);
        List<WorkerCounters> counters = new ArrayList<>();
        for (long pid : workers) {
            counters.add(WorkerCounters.attach(pid).orElseThrow(() -> new AssertionError("no counters of " + pid)));
        }
        long[] passes0 = words(counters, WorkerCounters.WAKEUPS);
        long[] accepted0 = words(counters, WorkerCounters.ACCEPTED);
        long cpu0 = cpuTicks(workers);
        int log0 = s.stderr().split("\n", -1).length;
        Thread.sleep(WATCH_MS); // the observation itself: what the held workers do meanwhile is counted below
        long[] passes = minus(words(counters, WorkerCounters.WAKEUPS), passes0);
        long[] accepted = minus(words(counters, WorkerCounters.ACCEPTED), accepted0);
        int logLines = s.stderr().split("\n", -1).length - log0;
        // CPU is printed, not asserted: a rate is the benchmark's figure (docs/bench-archive.md, "At
        // the descriptor limit", prod-server/bench/fd-limit.sh; issue 9's goal there: <= 5 %).
        System.out.printf("fd limit %d, --max-connections %d, %d clients held, over %d ms: loop passes %s, accepts %s,"
                        + " log lines %d, worker CPU %.1f %% (figure only), descriptors held %d; stderr tail: %s%n",
                FD_LIMIT, maxConnections, HELD_CLIENTS, WATCH_MS, Arrays.toString(passes), Arrays.toString(accepted),
                logLines, 100.0 * (cpuTicks(workers) - cpu0) / CLOCK_TICKS_PER_SECOND / (WATCH_MS / 1000.0) / workers.size(),
                openDescriptors(workers), lastLine(s.stderr()));
        for (int w = 0; w < workers.size(); w++) {
            assertTrue(passes[w] <= MAX_PASSES, "worker " + w + " passed " + passes[w] + " times over " + WATCH_MS
                    + " ms held at the descriptor limit: its loop spins (at most " + MAX_PASSES + ")");
            assertEquals(0, accepted[w], "worker " + w + " accepted while held at the descriptor limit");
        }
        assertTrue(logLines <= MAX_LOG_LINES, logLines + " log lines over " + WATCH_MS + " ms held (at most "
                + MAX_LOG_LINES + "): a repeated failure is one line a second per worker");

        // Load drops: the held clients go; a fresh keep-alive client is served, twice on one connection.
        for (SocketChannel c : held) {
            c.close();
        }
        held.clear();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        Http.Response first = null;
        Http.Response second = null;
        while (second == null && System.nanoTime() - deadline < 0) {
            try (Http h = new Http(s.port, 5_000)) {
                h.send(Http.get("/"));
                first = h.read();
                h.send(Http.get("/pid"));
                second = h.read();
            } catch (IOException e) {
                Thread.sleep(50); // the backlog's dead clients are still being accepted and closed
            }
        }
        assertNotNull(second, "a fresh keep-alive client served within 30 s of the load dropping");
        assertEquals(200, first.status());
        assertEquals(200, second.status());
        assertTrue(s.process.isAlive());
        assertEquals(workers, workerPids(s), "no worker died");
        // Counts never drift: whatever was handed off at the limit (lost receipts included) has
        // been taken and retired, so nothing reads as in flight once the pass that took it ended.
        Page page = SharedPage.attach(s.pid()).page();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (inFlight(page) != 0 && System.nanoTime() - until < 0) {
            Thread.sleep(20); // a pass still open
        }
        System.out.printf("  after the load: lost %d, re-homed %d, pending - taken per line summed %d%n",
                page.getVolatile(PageLayout.LOST_WORD), page.getVolatile(PageLayout.REHOMED_WORD), inFlight(page));
        assertEquals(0, inFlight(page), "pending - taken returns to 0 on every line");
    }

    private static long inFlight(Page page) {
        long sum = 0;
        int lines = (page.words() - PageLayout.HEADER_WORDS) / PageLayout.LINE_WORDS;
        for (int i = 0; i < lines; i++) {
            sum += Math.abs(Counts.inFlight(page.getVolatile(PageLayout.countsWord(i))));
        }
        return sum;
    }

    /** Issue 9 item 4: two stray SIGTERMs to workers, one after the other; the service stays up. */
    @Test
    void twoStraySigtermsLeaveTheServiceUp() throws Exception {
        ServerProcess s = ServerProcess.start(Map.of(), "--workers", "2");
        servers.add(s);
        assertNotNull(s.awaitReady(60), "both workers started");
        Page page = SharedPage.attach(s.pid()).page();
        Set<Long> seen = new HashSet<>(workerPids(s));
        for (int round = 1; round <= 2; round++) {
            List<Long> before = workerPids(s);
            assertEquals(2, before.size(), "round " + round + ": two workers " + before);
            long victim = before.get(0);
            assertTrue(Processes.kill((int) victim, Processes.SIGTERM), "SIGTERM to worker pid " + victim);
            int served = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            // The port serves throughout: a fresh connection per request until the replacement is in.
            while (!(replaced(s, victim, seen) && bothStarted(page))) {
                assertTrue(System.nanoTime() - deadline < 0, "round " + round + ": worker pid " + victim
                        + " not replaced within 60 s; stderr:\n" + s.stderr());
                try (Http h = new Http(s.port, 10_000)) {
                    h.send(Http.get("/"));
                    Http.Response r = h.read();
                    assertNotNull(r, "round " + round + ": a request closed unanswered while a worker left");
                    assertEquals(200, r.status());
                }
                served++;
                Thread.sleep(20); // paced: a client, not a load
            }
            seen.addAll(workerPids(s));
            System.out.printf("stray SIGTERM %d: worker pid %d replaced, %d requests served meanwhile, workers now %s%n",
                    round, victim, served, workerPids(s));
        }
        assertTrue(s.process.isAlive(), "the supervisor serves on");
        try (Http h = new Http(s.port)) {
            h.send(Http.get("/"));
            assertEquals(200, h.read().status());
        }
        assertTrue(s.stderr().contains("exit 0; respawning"), s.stderr());
    }

    private static boolean replaced(ServerProcess s, long victim, Set<Long> seen) {
        List<Long> now = workerPids(s);
        return now.size() == 2 && !now.contains(victim) && now.stream().anyMatch(p -> !seen.contains(p));
    }

    private static boolean bothStarted(Page page) {
        int started = 0;
        int lines = (page.words() - PageLayout.HEADER_WORDS) / PageLayout.LINE_WORDS;
        for (int i = 0; i < lines; i++) {
            long st = page.getVolatile(PageLayout.stateWord(i));
            if (st == PageLayout.PARKED || PageLayout.inPass(st)) {
                started++;
            }
        }
        return started == 2;
    }

    /** The supervisor's live children: its worker JVMs. */
    private static List<Long> workerPids(ServerProcess s) {
        return s.process.toHandle().children().filter(ProcessHandle::isAlive).map(ProcessHandle::pid).sorted().toList();
    }

    /** utime + stime of every pid, in clock ticks (/proc/PID/stat fields 14 and 15). */
    private static long cpuTicks(List<Long> pids) throws IOException {
        long ticks = 0;
        for (long pid : pids) {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" "); // f[0] is field 3
            ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
        }
        return ticks;
    }

    private static int openDescriptors(List<Long> pids) {
        int n = 0;
        for (long pid : pids) {
            String[] fds = new java.io.File("/proc/" + pid + "/fd").list();
            n += fds == null ? 0 : fds.length;
        }
        return n;
    }

    /** Until each worker has logged that it stopped accepting: at its cap, or at EMFILE. */
    private static void awaitBothHeld(ServerProcess s) throws InterruptedException, IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!(held(s.stderr(), 0) && held(s.stderr(), 1))) {
            if (System.nanoTime() - deadline >= 0) {
                throw new AssertionError("a worker never said it stopped accepting within 60 s; descriptors "
                        + openDescriptors(workerPids(s)) + "; stderr:\n" + s.stderr());
            }
            Thread.sleep(100); // polling the log, bounded by a deadline only a hang reaches
        }
    }

    private static boolean held(String stderr, int index) {
        String me = "m0serve worker " + index + ": ";
        return stderr.lines().anyMatch(l -> l.startsWith(me)
                && (l.contains("not accepting until a connection closes") || l.contains("not accepting for")));
    }

    private static long[] words(List<WorkerCounters> counters, int word) {
        return counters.stream().mapToLong(c -> c.word(word)).toArray();
    }

    private static long[] minus(long[] a, long[] b) {
        long[] d = new long[a.length];
        for (int i = 0; i < a.length; i++) {
            d[i] = a[i] - b[i];
        }
        return d;
    }

    private static String lastLine(String text) {
        String[] lines = text.strip().split("\n");
        return lines.length == 0 ? "" : lines[lines.length - 1];
    }

}
