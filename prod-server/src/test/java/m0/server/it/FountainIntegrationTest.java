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
 *   <li>Worker 0 SIGSTOPped while parked, worker 1 having left it the listener (out of its epoll
 *       set): worker 1 takes over, answering each new connection, the first by its look at the
 *       listener; after SIGCONT every connection was answered exactly once and counted accepted
 *       once. Without the look (worker 1 never looks at a listener it left), the first
 *       connection waits for worker 0's SIGCONT and is answered by worker 0: the check fails.
 *   <li>Worker 0 at its connection cap says so (HELD): worker 1 takes each new connection without
 *       one look; with the mark hidden it looks.
 * </ul>
 *
 * <p>How soon the takeover comes (the policy's bound is 2 ms) is a figure, printed per round
 * net of the floor and of the CPU waits that {@code /proc/.../schedstat} counts, and quoted in
 * docs/bench.md; it is not asserted: two loaded cores can miss any wall-clock bound.
 */
@Timeout(240)
class FountainIntegrationTest {

    private static final int READY_MS = 60_000;
    private static final int RAMP = 20;
    private static final long RAMP_GAP_MS = 30;
    /** Ramp attempts made for one that worker 0 answers alone; in each other, every take of worker 1 must be witnessed. */
    private static final int RAMP_ATTEMPTS = 4;
    private static final int ROUNDS = 5;
    /** Connections per round after the first: taken at once (the stuck head stays skipped). */
    private static final int AFTER = 4;
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
            String clean = null;
            for (int attempt = 1; attempt <= RAMP_ATTEMPTS && clean == null; attempt++) {
                page.awaitQuiescent(10_000);
                List<Arrival> arrivals;
                PassWatch passes = new PassWatch(page.page, 2);
                try {
                    arrivals = ramp(s, () -> runDelay(w0, loop0));
                } finally {
                    passes.close();
                }
                Map<Integer, Integer> byWorker = byWorker(arrivals);
                if (byWorker.getOrDefault(1, 0) == 0) {
                    assertEquals(Map.of(0, RAMP), byWorker);
                    clean = byWorker.toString();
                    break;
                }
                // Worker 1 takes a connection only when worker 0 is not taking: inside one pass for
                // over 2 ms, or seen stuck (the listener readable at two looks 1 ms apart with its
                // words unchanged) -- which a worker woken but kept from the CPU that long is. A
                // stuck mark stands until worker 0's words move (it takes a connection), so worker
                // 1 may go on taking after it: each run of worker 1's takes must begin with that
                // witness in its first arrival's window.
                List<Arrival> unexplained = unwitnessedRuns(arrivals);
                String why = byWorker + " (worker 1's, with worker 0's CPU wait in each one's window: "
                        + arrivals.stream().filter(a -> a.worker() == 1).map(a -> a.workerZeroWaitedNanos() / 1000 + " us")
                                .toList() + "; " + passes.summary() + ")";
                assertTrue(unexplained.isEmpty() || passes.sawSlowPass(),
                        "worker 1 took part of the ramp while worker 0 was taking: " + why + "; voided before: " + voided);
                voided.add(why);
                awaitLeftToHead(s, w1);
            }
            // Loaded, every attempt may be voided: each take of worker 1 was then judged by its witness above.
            System.out.printf("fountain ramp of %d, %d ms apart: %s (voided %s); %s%n", RAMP, RAMP_GAP_MS,
                    clean == null ? "no attempt without a take by worker 1, each take witnessed" : clean, voided,
                    WorkerCounters.format(s.pid()).trim());
        }
        // The control: the same ramp under share is spread (least loaded), so the check above can fail.
        try (ServerProcess s = ServerProcess.start("--workers", "2")) {
            PageWatch.of(s).awaitReady(READY_MS);
            Map<Integer, Integer> byWorker = byWorker(ramp(s, () -> 0L));
            System.out.printf("share ramp of %d (the control): %s%n", RAMP, byWorker);
            assertTrue(byWorker.getOrDefault(1, 0) > 0, "share spreads a ramp: " + byWorker);
        }
    }

    /**
     * Worker 1's takes that begin a run (after worker 0's last take, or the ramp's start) without
     * worker 0 having waited 1 ms or more for the CPU in that arrival's window.
     */
    private static List<Arrival> unwitnessedRuns(List<Arrival> arrivals) {
        List<Arrival> unexplained = new ArrayList<>();
        boolean stuckSeen = false;
        for (Arrival a : arrivals) {
            if (a.worker() == 0) {
                stuckSeen = false; // its words moved: the mark is gone
            } else if (a.workerZeroWaitedNanos() >= 1_000_000) {
                stuckSeen = true;
            } else if (!stuckSeen) {
                unexplained.add(a);
            }
        }
        return unexplained;
    }

    /**
     * The takeover: {@link #ROUNDS} times worker 0 stopped while parked, and each new connection
     * answered by worker 1, which had left worker 0 the listener and took it back by looking
     * (its look count rose); none lost, none answered twice, each accepted once.
     */
    @Test
    void workerOneTakesOverFromAStoppedWorkerZero() throws Exception {
        Takeovers t = takeovers();
        assertEquals(ROUNDS, t.rounds(), "every round taken over by worker 1");
        assertTrue(t.looks() >= ROUNDS, "worker 1 looked at the listener it had left: " + t.looks() + " looks");
    }

    /** Worker 0's connection cap in the held-head tests: the connections it serves half busy. */
    private static final int CAP = 4;
    /** New connections timed while worker 0 is at its cap. */
    private static final int HELD_ROUNDS = 15;

    /**
     * ADR 0038: worker 0 at {@code --max-connections} and half busy serving what it holds takes
     * no new connection, and says so on its line (HELD): worker 1 takes each new connection with
     * the listener in its own epoll set, not one look. Without the mark worker 1 would leave them
     * to worker 0 until two looks a millisecond apart found its words unchanged, which its passes
     * keep from happening: about 4 ms a connection at half busy (issue 25). That wait, net of the
     * floor and of the CPU waits, is printed (the policy's figure, not asserted).
     */
    @Test
    void workerOneTakesNewConnectionsFromAHeadAtItsCapWithoutLooking() throws Exception {
        HeldHead h = heldHead();
        assertEquals(HELD_ROUNDS, h.excess.size(), "every new connection answered by worker 1");
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

    /** The takeover rounds that worker 1 answered, and its looks inside them (each round's first connection). */
    private record Takeovers(int rounds, long looks) {
    }

    /**
     * ROUNDS times: worker 0 stopped while parked, one new connection (connect to response) and
     * AFTER more; each answered by worker 1, whose look count rose while worker 0 was stopped;
     * worker 0 continued. Every connection is answered exactly once: one response each, and the
     * workers' accept counts add up to the connections made. Per round it prints the first
     * connection's time less the round's floor and less what the client and worker 1's loop
     * waited for a CPU meanwhile: the takeover's figure, not asserted.
     */
    private static Takeovers takeovers() throws Exception {
        List<Long> excess = new ArrayList<>();
        List<String> rounds = new ArrayList<>();
        int answered = 0;
        long looks = 0;
        try (ServerProcess s = ServerProcess.start("--workers", "2", "--accept-policy", "fountain")) {
            PageWatch page = PageWatch.of(s);
            page.awaitReady(READY_MS);
            int w0 = (int) s.workerPid(0);
            long w1 = s.workerPid(1);
            WorkerCounters counters1 = WorkerCounters.attach(w1).orElseThrow();
            int made = awaitLeftToHead(s, w1);
            long loop1 = loopThread(w1);
            for (int round = 0; round < ROUNDS; round++) {
                stopParked(w0, page);
                try {
                    long looksBefore = counters1.word(WorkerCounters.LOOKS);
                    long delayedBefore = runDelay(w1, loop1) + ownRunDelay();
                    long t0 = System.nanoTime();
                    Http first = new Http(s.port);
                    first.send(Http.get("/pid"));
                    Http.Response r = readOrFail(first, "no takeover: nothing answered the new connection while"
                            + " worker 0 was stopped (round " + round + ")");
                    long took = System.nanoTime() - t0;
                    long delayed = runDelay(w1, loop1) + ownRunDelay() - delayedBefore;
                    made++;
                    assertAnsweredBy(r, w1, first);
                    // Published at the end of the pass that answered: awaited, bounded.
                    await("worker 1's look counted", () -> counters1.word(WorkerCounters.LOOKS) > looksBefore, 10_000);
                    looks += counters1.word(WorkerCounters.LOOKS) - looksBefore;
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
                    answered++;
                } finally {
                    assertTrue(Processes.kill(w0, Processes.SIGCONT));
                }
                made += awaitLeftToHead(s, w1); // worker 0 takes one again; worker 1 leaves it the listener
            }
            System.out.printf("fountain takeover, net of floor and CPU waits: %s us; rounds: %s; %s%n",
                    micros(excess), rounds, WorkerCounters.format(s.pid()).trim());
            int expected = made;
            await("every connection counted as accepted once", () -> accepted(s) == expected, 10_000);
        }
        return new Takeovers(answered, looks);
    }

    /**
     * RAMP new connections RAMP_GAP_MS apart, each asking /pid and kept open until the last: who
     * answered each, and what worker 0 waited for a CPU around it.
     */
    private static List<Arrival> ramp(ServerProcess s, DelayReader workerZeroDelay) throws Exception {
        List<Arrival> arrivals = new ArrayList<>();
        List<Http> open = new ArrayList<>();
        try {
            for (int i = 0; i < RAMP; i++) {
                long before = workerZeroDelay.read();
                Http h = new Http(s.port);
                open.add(h);
                h.send(Http.get("/pid"));
                Http.Response r = h.read();
                assertNotNull(r);
                assertEquals(200, r.status());
                Thread.sleep(RAMP_GAP_MS); // the ramp's pacing: an open-loop arrival gap, not a synchronisation
                // Read after the gap: a wait is counted once the waiting thread runs again.
                arrivals.add(new Arrival(Integer.parseInt(r.body().trim().split(" ")[1]), workerZeroDelay.read() - before));
            }
        } finally {
            for (Http h : open) {
                h.close();
            }
        }
        return arrivals;
    }

    /** One ramp connection: the index that answered it, and what worker 0's loop waited for a CPU from its connect to the next. */
    private record Arrival(int worker, long workerZeroWaitedNanos) {
    }

    /** Worker 0's loop's run-queue wait so far (schedstat), or 0 where it is not measured. */
    private interface DelayReader {
        long read() throws IOException;
    }

    private static Map<Integer, Integer> byWorker(List<Arrival> arrivals) {
        Map<Integer, Integer> n = new TreeMap<>();
        arrivals.forEach(a -> n.merge(a.worker(), 1, Integer::sum));
        return n;
    }

    /** The response, or a failure that says what did not happen when none came in the read's timeout. */
    private static Http.Response readOrFail(Http h, String what) throws IOException {
        try {
            return h.read();
        } catch (java.net.SocketTimeoutException e) {
            throw new AssertionError(what + " (" + e.getMessage() + ")", e);
        }
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
