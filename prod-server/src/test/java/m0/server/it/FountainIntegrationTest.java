package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import m0.core.PageLayout;
import m0.server.jnr.Processes;
import m0.server.stats.PassWatch;
import m0.server.stats.WorkerCounters;
import m0.server.stats.WorkerProcesses;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code --accept-policy fountain} on the real binary (docs/adr/0019, 0022), two workers.
 *
 * <ul>
 *   <li>A slow ramp of new connections is answered by worker 0 alone: worker 1 has the listener
 *       out of its epoll set and only looks at it. The same ramp under share is the control that
 *       the check can fail (share spreads it).
 *   <li>Worker 0 SIGSTOPped while parked: worker 1 answers each new connection, the first within
 *       the 2 ms bound (client-side, connect to response) and the next ones at once; after
 *       SIGCONT every connection was answered exactly once. The negative control is a fountain
 *       server whose looks come later than the core's deadline ({@code --dev-look-late-ms}):
 *       the server half's own duty is to look when the core says, and with that broken the same
 *       check must fail. Share is no control here: under share nothing waits (the kernel wakes
 *       worker 1 for the connection at once), so it would pass for a reason that is not the look.
 * </ul>
 *
 * <p>On a loaded machine a worker can be runnable and still not run for milliseconds. The kernel
 * counts that time ({@code /proc/.../schedstat}, run-queue wait): the takeover is judged net of
 * what the loop threads involved and this client waited for a CPU, and of the floor (the same
 * client asking the same worker once nothing waits, measured in the same round).
 */
@Timeout(240)
class FountainIntegrationTest {

    private static final int READY_MS = 60_000;
    private static final int RAMP = 20;
    private static final long RAMP_GAP_MS = 30;
    /** Ramp attempts voided (worker 0 kept from running, or inside a pass over 2 ms) before failing. */
    private static final int RAMP_ATTEMPTS = 4;
    private static final int ROUNDS = 5;
    /** Connections per round after the first: taken at once (the stuck head stays skipped). */
    private static final int AFTER = 4;
    /** The policy's bound: a connection left to a stuck head is taken within two 1 ms looks. */
    private static final long BOUND_NANOS = 2_000_000;
    /**
     * What the bound does not cover and the run-queue wait does not show: two timed wake-ups'
     * timer slack (50 µs each by default), the poll and page reads of two looks, and a pause
     * of this JVM (a GC: its thread waits on a lock, not for a CPU).
     */
    private static final long MARGIN_NANOS = 1_000_000;
    /** No round may come near a stranding (a GC pause of this JVM fits below it): looks 20 ms late take 21 ms or more. */
    private static final long WORST_NANOS = 15_000_000;
    private static final long LATE_LOOK_MS = 20;
    /** epoll_pwait2's number on x86_64: the worker loop's wait, as /proc/.../syscall shows it. */
    private static final String EPOLL_PWAIT2 = "441";

    @Test
    void aSlowRampOfNewConnectionsIsAnsweredByWorkerZeroAlone() throws Exception {
        try (ServerProcess s = ServerProcess.start("--workers", "2", "--accept-policy", "fountain")) {
            PageWatch page = PageWatch.of(s);
            page.awaitReady(READY_MS);
            long w0 = s.workerPid(0);
            long w1 = s.workerPid(1);
            awaitLeftToHead(s, w1);
            long loop0 = loopThread(w0);
            List<String> voided = new ArrayList<>();
            for (int attempt = 1; ; attempt++) {
                page.awaitQuiescent(10_000);
                long delayedBefore = runDelay(w0, loop0);
                Map<Integer, Integer> byWorker;
                PassWatch passes = new PassWatch(page.page, 2);
                try {
                    byWorker = ramp(s);
                } finally {
                    passes.close();
                }
                long delayed = runDelay(w0, loop0) - delayedBefore;
                if (byWorker.getOrDefault(1, 0) == 0) {
                    assertEquals(Map.of(0, RAMP), byWorker);
                    System.out.printf("fountain ramp of %d, %d ms apart: %s (voided %s); %s%n", RAMP, RAMP_GAP_MS,
                            byWorker, voided, WorkerCounters.format(s.pid()).trim());
                    break;
                }
                // Worker 1 takes a connection only when worker 0 is not taking: inside one pass for
                // over 2 ms, or seen stuck (the listener readable at two looks 1 ms apart with its
                // words unchanged) -- which a worker woken but kept from the CPU that long is.
                String why = byWorker + " (worker 0 waited " + delayed / 1000 + " us for a CPU; " + passes.summary() + ")";
                assertTrue((delayed >= 1_000_000 || passes.sawSlowPass()) && attempt < RAMP_ATTEMPTS,
                        "worker 1 took part of the ramp while worker 0 was taking: " + why + "; voided before: " + voided);
                voided.add(why);
                awaitLeftToHead(s, w1);
            }
        }
        // The control: the same ramp under share is spread (least loaded), so the check above can fail.
        try (ServerProcess s = ServerProcess.start("--workers", "2")) {
            PageWatch.of(s).awaitReady(READY_MS);
            Map<Integer, Integer> byWorker = ramp(s);
            System.out.printf("share ramp of %d (the control): %s%n", RAMP, byWorker);
            assertTrue(byWorker.getOrDefault(1, 0) > 0, "share spreads a ramp: " + byWorker);
        }
    }

    @Test
    void workerOneTakesOverFromAStoppedWorkerZeroWithinTwoMilliseconds() throws Exception {
        List<Long> excess = takeovers();
        List<Long> sorted = excess.stream().sorted().toList();
        long median = sorted.get(sorted.size() / 2);
        assertTrue(median <= BOUND_NANOS + MARGIN_NANOS, "median takeover beyond the bound: " + micros(excess));
        assertTrue(sorted.get(sorted.size() - 1) <= WORST_NANOS, "a takeover near a stranding: " + micros(excess));
    }

    /** The negative control: looks later than the core's deadline, and the same check fails. */
    @Test
    void aLookLaterThanTheCoresDeadlineFailsTheSameCheck() throws Exception {
        List<Long> excess = takeovers("--dev-look-late-ms", Long.toString(LATE_LOOK_MS));
        List<Long> sorted = excess.stream().sorted().toList();
        assertTrue(sorted.get(sorted.size() / 2) > BOUND_NANOS + MARGIN_NANOS,
                "looks " + LATE_LOOK_MS + " ms late passed the takeover check: " + micros(excess));
    }

    /** Worker 0's connection cap in the held-head tests: the connections it serves half busy. */
    private static final int CAP = 4;
    /** New connections timed while worker 0 is at its cap. */
    private static final int HELD_ROUNDS = 15;

    /**
     * ADR 0038: worker 0 at {@code --max-connections} and half busy serving what it holds takes
     * no new connection, and says so on its line (HELD): worker 1 takes each new connection
     * within 2 ms (median). Without the mark worker 1 would leave them to worker 0 until two looks
     * a millisecond apart found its words unchanged, which its passes keep from happening: about
     * 4 ms a connection at half busy (issue 25). Judged as the takeover above: net of the floor
     * (a request on a connection worker 1 already serves, timed just before) and of what worker
     * 1's loop and this client waited for a CPU.
     */
    @Test
    void workerOneTakesNewConnectionsFromAHeadAtItsCapWithinTwoMilliseconds() throws Exception {
        HeldHead h = heldHead();
        assertTrue(median(h.excess) <= BOUND_NANOS, "median wait beyond the 2 ms bound: " + micros(h.excess) + " us");
        assertEquals(0, h.looks, "worker 1 left the listener to a head that takes nothing new");
    }

    /**
     * The negative control: the head's HELD mark hidden ({@code --dev-hide-held}). Worker 1
     * then leaves new connections to worker 0 whenever its words moved, and looks again: the
     * looks are the mechanism's witness (at half busy the wait they cost is often under 2 ms and
     * sometimes far over: 25-40 ms at 80 %, issue 25), so the control fails the check on them.
     */
    @Test
    void aHeadThatHidesItsHoldFailsTheSameCheck() throws Exception {
        HeldHead h = heldHead("--dev-hide-held", "on");
        assertTrue(h.looks > 0, "no look while worker 0's hold was hidden: " + micros(h.excess) + " us");
    }

    /** Per round the wait net of floor and CPU waits; and worker 1's looks at a listener it left meanwhile. */
    private record HeldHead(List<Long> excess, long looks) {
    }

    /**
     * Worker 0 fills its cap of {@link #CAP} keep-alive connections and serves them half busy;
     * then {@link #HELD_ROUNDS} new connections, one at a time, each answered by worker 1: per
     * round, its time (connect to response) less the floor and the CPU waits.
     */
    private static HeldHead heldHead(String... dev) throws Exception {
        List<Long> excess = new ArrayList<>();
        long looks;
        List<String> rounds = new ArrayList<>();
        try (ServerProcess s = ServerProcess.startWith(List.of(dev), "--workers", "2", "--accept-policy", "fountain",
                "--max-connections", Integer.toString(CAP))) {
            PageWatch page = PageWatch.of(s);
            page.awaitReady(READY_MS);
            long w0 = s.workerPid(0);
            long w1 = s.workerPid(1);
            long loop1 = loopThread(w1);
            List<Http> held = new ArrayList<>();
            HalfBusy load = null;
            Http probe = null;
            try {
                awaitLeftToHead(s, w1);
                for (int attempt = 0; held.size() < CAP; attempt++) {
                    assertTrue(attempt < 40, "worker 0 never took " + CAP + " connections: " + held.size());
                    Http h = new Http(s.port);
                    h.send(Http.get("/pid"));
                    Http.Response r = h.read();
                    assertNotNull(r);
                    if (r.body().trim().split(" ")[0].equals(Long.toString(w0))) {
                        held.add(h);
                    } else {
                        h.close(); // worker 1 was still racing for it: leave it the head again
                        awaitLeftToHead(s, w1);
                    }
                }
                load = new HalfBusy(held);
                load.start();
                page.await("worker 0 busy", p -> m0.core.BusyEstimator.perMille(p.worker(0).busy()) > 200, 10_000);
                probe = new Http(s.port); // worker 1's: the one who takes while worker 0 is at its cap
                probe.send(Http.get("/pid"));
                assertAnsweredBy(probe.read(), w1, probe);
                WorkerCounters counters1 = WorkerCounters.attach(w1).orElseThrow();
                long looksBefore = counters1.word(WorkerCounters.LOOKS);
                for (int round = 0; round < HELD_ROUNDS; round++) {
                    long f0 = System.nanoTime();
                    probe.send(Http.get("/pid"));
                    assertAnsweredBy(probe.read(), w1, probe);
                    long floor = System.nanoTime() - f0;
                    long delayedBefore = runDelay(w1, loop1) + ownRunDelay();
                    long t0 = System.nanoTime();
                    try (Http h = new Http(s.port)) {
                        h.send(Http.get("/pid"));
                        Http.Response r = h.read();
                        long took = System.nanoTime() - t0;
                        long delayed = runDelay(w1, loop1) + ownRunDelay() - delayedBefore;
                        assertAnsweredBy(r, w1, h);
                        excess.add(took - floor - delayed);
                        rounds.add(String.format("%d-%d-%d", took / 1000, floor / 1000, delayed / 1000));
                    }
                }
                looks = counters1.word(WorkerCounters.LOOKS) - looksBefore;
                System.out.printf("fountain, worker 0 at its cap of %d%s, busy %s: new connections answered by worker 1,"
                        + " net of floor and CPU waits: %s us (took-floor-waited: %s), worker 1's looks meanwhile %d%n",
                        CAP, dev.length == 0 ? "" : " " + String.join(" ", dev), page.read().worker(0).busyLabel(), micros(excess), rounds,
                        looks);
            } finally {
                if (load != null) {
                    load.stop();
                }
                for (Http h : held) {
                    h.close();
                }
                if (probe != null) {
                    probe.close();
                }
            }
        }
        return new HeldHead(excess, looks);
    }

    /**
     * Each held connection asks for 1 ms of work, then pauses 9 ms: four keep worker 0's loop
     * about half busy (its estimate read 40-55 % here). A pacing, not a synchronisation; bounded
     * by {@link #stop} and a minute.
     */
    private static final class HalfBusy {
        private final List<Http> connections;
        private final List<Thread> threads = new ArrayList<>();
        private volatile boolean stop;

        HalfBusy(List<Http> connections) {
            this.connections = connections;
        }

        void start() {
            long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
            for (Http h : connections) {
                Thread t = new Thread(() -> {
                    try {
                        while (!stop && System.nanoTime() - end < 0) {
                            h.send(Http.get("/work?us=1000"));
                            if (h.read() == null) {
                                return;
                            }
                            Thread.sleep(9);
                        }
                    } catch (IOException | InterruptedException e) {
                        // the test is over, or the server closed it: nothing more to ask
                    }
                }, "half-busy");
                t.setDaemon(true);
                threads.add(t);
                t.start();
            }
        }

        void stop() throws InterruptedException {
            stop = true;
            for (Thread t : threads) {
                t.join(5_000);
            }
        }
    }

    private static long median(List<Long> nanos) {
        List<Long> sorted = nanos.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }

    /**
     * ROUNDS times: worker 0 stopped while parked, one new connection timed (connect to
     * response) and AFTER more; each answered by worker 1; worker 0 continued. Returns, per
     * round, the first connection's time less the round's floor and less what the client and
     * worker 1's loop waited for a CPU meanwhile. Every connection is answered exactly once:
     * one response each, and the workers' accept counts add up to the connections made.
     */
    private static List<Long> takeovers(String... dev) throws Exception {
        List<Long> excess = new ArrayList<>();
        List<String> rounds = new ArrayList<>();
        try (ServerProcess s = ServerProcess.startWith(List.of(dev), "--workers", "2", "--accept-policy", "fountain")) {
            PageWatch page = PageWatch.of(s);
            page.awaitReady(READY_MS);
            int w0 = (int) s.workerPid(0);
            long w1 = s.workerPid(1);
            int made = awaitLeftToHead(s, w1);
            long loop1 = loopThread(w1);
            for (int round = 0; round < ROUNDS; round++) {
                stopParked(w0, page);
                try {
                    long delayedBefore = runDelay(w1, loop1) + ownRunDelay();
                    long t0 = System.nanoTime();
                    Http first = new Http(s.port);
                    first.send(Http.get("/pid"));
                    Http.Response r = first.read();
                    long took = System.nanoTime() - t0;
                    long delayed = runDelay(w1, loop1) + ownRunDelay() - delayedBefore;
                    made++;
                    assertAnsweredBy(r, w1, first);
                    List<Long> floor = new ArrayList<>();
                    for (int k = 0; k < AFTER; k++) {
                        long a = System.nanoTime();
                        try (Http h = new Http(s.port)) {
                            h.send(Http.get("/pid"));
                            Http.Response q = h.read();
                            floor.add(System.nanoTime() - a);
                            made++;
                            assertAnsweredBy(q, w1, h);
                        }
                    }
                    floor.sort(null);
                    long f = floor.get(floor.size() / 2);
                    excess.add(took - f - delayed);
                    rounds.add(String.format("took %d us, floor %d us, waited for a CPU %d us", took / 1000, f / 1000,
                            delayed / 1000));
                    first.close();
                } finally {
                    assertTrue(Processes.kill(w0, Processes.SIGCONT));
                }
                made += awaitLeftToHead(s, w1); // worker 0 takes one again; worker 1 leaves it the listener
            }
            System.out.printf("fountain takeover%s, net of floor and CPU waits: %s us; rounds: %s; %s%n",
                    dev.length == 0 ? "" : " " + String.join(" ", dev), micros(excess), rounds, WorkerCounters.format(s.pid()).trim());
            int expected = made;
            await("every connection counted as accepted once", () -> accepted(s) == expected, 10_000);
        }
        return excess;
    }

    /** RAMP new connections RAMP_GAP_MS apart, each asking /pid and kept open until the last: who answered. */
    private static Map<Integer, Integer> ramp(ServerProcess s) throws Exception {
        Map<Integer, Integer> byWorker = new TreeMap<>();
        List<Http> open = new ArrayList<>();
        try {
            for (int i = 0; i < RAMP; i++) {
                Http h = new Http(s.port);
                open.add(h);
                h.send(Http.get("/pid"));
                Http.Response r = h.read();
                assertNotNull(r);
                assertEquals(200, r.status());
                byWorker.merge(Integer.parseInt(r.body().trim().split(" ")[1]), 1, Integer::sum);
                Thread.sleep(RAMP_GAP_MS); // the ramp's pacing: an open-loop arrival gap, not a synchronisation
            }
        } finally {
            for (Http h : open) {
                h.close();
            }
        }
        return byWorker;
    }

    private static void assertAnsweredBy(Http.Response r, long pid, Http h) throws IOException {
        assertNotNull(r, "closed unanswered");
        assertEquals(200, r.status());
        assertEquals(Long.toString(pid), r.body().trim().split(" ")[0], "answered by worker 1 while worker 0 is stopped");
        assertEquals(0, h.socket.getInputStream().available(), "one answer per request");
    }

    /**
     * Until worker 1 has the listener out of its epoll set (it leaves connections to worker 0):
     * new connections, one at a time, each held open until then (bounded). Held, so that worker
     * 0's open count moves while worker 1 looks: after a SIGCONT worker 1 listens, racing it, until
     * it sees worker 0's words change. Returns how many were made.
     */
    private static int awaitLeftToHead(ServerProcess s, long w1) throws Exception {
        List<Http> held = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        try {
            while (WorkerProcesses.watchesListener(w1)) {
                assertTrue(System.nanoTime() - deadline < 0 && held.size() < 200,
                        "worker 1 kept the listener after " + held.size() + " connections");
                Http h = new Http(s.port);
                held.add(h);
                h.send(Http.get("/pid"));
                assertNotNull(h.read());
                Thread.sleep(5); // the next look (1 ms) has come and gone
            }
            return held.size();
        } finally {
            for (Http h : held) {
                h.close();
            }
        }
    }

    /** SIGSTOP to worker 0 while its line reads PARKED (continued and stopped again if a pass began). */
    private static void stopParked(int pid, PageWatch page) throws Exception {
        for (int attempt = 0; ; attempt++) {
            page.await("worker 0 parked", p -> p.worker(0).state() == PageLayout.PARKED, 10_000);
            assertTrue(Processes.kill(pid, Processes.SIGSTOP));
            await("worker 0 stopped", () -> procState(pid) == 'T', 10_000);
            if (page.read().worker(0).state() == PageLayout.PARKED) {
                return;
            }
            assertTrue(attempt < 20, "worker 0 never stopped while parked");
            assertTrue(Processes.kill(pid, Processes.SIGCONT));
        }
    }

    private static long accepted(ServerProcess s) {
        long n = 0;
        for (ProcessHandle w : s.descendants()) {
            n += WorkerCounters.attach(w.pid()).map(c -> c.word(WorkerCounters.ACCEPTED)).orElse(0L);
        }
        return n;
    }

    /** The worker's loop thread: the task sleeping in epoll_pwait2 (the loop parks there and nothing else does). */
    private static long loopThread(long pid) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (;;) {
            try (var tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
                for (Path task : (Iterable<Path>) tasks::iterator) {
                    try {
                        if (Files.readString(task.resolve("syscall")).split(" ")[0].trim().equals(EPOLL_PWAIT2)) {
                            return Long.parseLong(task.getFileName().toString());
                        }
                    } catch (NoSuchFileException e) {
                        // a thread that ended while we listed
                    }
                }
            }
            assertTrue(System.nanoTime() - deadline < 0, "no thread of " + pid + " waits in epoll_pwait2");
            Thread.sleep(1); // polling a condition, bounded by the deadline
        }
    }

    /** Nanoseconds {@code tid} of {@code pid} has waited runnable for a CPU (schedstat's second field). */
    private static long runDelay(long pid, long tid) throws IOException {
        return schedWait(Path.of("/proc/" + pid + "/task/" + tid + "/schedstat"));
    }

    private static long ownRunDelay() throws IOException {
        return schedWait(Path.of("/proc/thread-self/schedstat"));
    }

    private static long schedWait(Path schedstat) throws IOException {
        return Long.parseLong(Files.readString(schedstat).trim().split(" ")[1]);
    }

    private static char procState(int pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2);
        } catch (IOException e) {
            return '?';
        }
    }

    private static void await(String what, BooleanSupplier condition, long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline >= 0) {
                throw new AssertionError("not " + what + " after " + timeoutMillis + " ms");
            }
            Thread.sleep(5); // polling a condition, bounded by the deadline
        }
    }

    private static List<Long> micros(List<Long> nanos) {
        return nanos.stream().map(n -> n / 1000).toList();
    }
}
