package m0.server.it;

import static m0.core.PageLayout.LEFT;
import static m0.core.PageLayout.NOT_STARTED;
import static m0.core.PageLayout.PARKED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;
import m0.core.Counts;
import m0.core.Page;
import m0.core.PageLayout;
import m0.server.jnr.Processes;
import m0.server.probe.Shape;
import m0.server.probe.Spread;
import m0.server.probe.SpreadProbe;
import m0.server.share.SharedPage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The seed's corrections on real processes (issue 6): a worker held before start (NS), killed
 * while parked (RP), stopped with hand-offs queued then killed (RB), SIGTERM to one worker
 * during a burst (B25), a rolling reload under load, SIGTTIN / SIGTTOU, and a respawn storm.
 * Two workers each; the page is read from the test through the supervisor's memfd; every
 * process is killed by pid afterwards.
 */
@Timeout(120)
class SharingLifecycleIntegrationTest {

    private static final long READY_MS = 40_000;
    private static final int PROBE_TIMEOUT_MS = 10_000;

    private final List<ServerProcess> servers = new ArrayList<>();
    private final List<Http> clients = new ArrayList<>();
    private final List<Long> stopped = new ArrayList<>();

    @AfterEach
    void killEverything() throws IOException {
        for (long pid : stopped) {
            Processes.kill((int) pid, Processes.SIGCONT); // a stopped worker must be able to die
        }
        for (Http h : clients) {
            h.close();
        }
        for (ServerProcess s : servers) {
            s.close();
        }
    }

    // ---- the seed's gates ----

    /** NS: worker 1 held 3 s between bind and start; a burst is answered by worker 0 alone, nothing passed. */
    @Test
    void aWorkerHeldBeforeStartIsHandedNothing() throws Exception {
        ServerProcess s = start("--dev-arm-gap-ms", "3000", "--dev-arm-gap-index", "1");
        Page page = page(s);
        await("worker 0 started", () -> state(page, 0) == PARKED);
        await("worker 1 in its hold", () -> stderr(s).contains("worker 1: --dev-arm-gap-ms: holding"));
        assertEquals(NOT_STARTED, state(page, 1), "worker 1 is held before start");
        warmUp(s); // one request, so the burst does not pay for class loading

        long t0 = System.nanoTime();
        Spread spread = probe(s).round(Shape.BURST, 32, 2);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);

        System.out.printf("held worker: burst of 32 answered %s in %d ms, sent by worker 0: %d%n",
                spread, ms, page.getVolatile(PageLayout.sentWord(0)));
        assertEquals(NOT_STARTED, state(page, 1), "worker 1 was held for the whole burst");
        assertEquals(32, spread.perWorker().get(0), spread.toString());
        assertEquals(0, page.getVolatile(PageLayout.sentWord(0)), "nothing passed");
        assertEquals(0, Counts.pending(page.getVolatile(PageLayout.countsWord(1))), "nothing pending to the held worker");
    }

    /** RP: worker 1 SIGKILLed while parked, no respawns: the reap marks it LEFT; 32 of 32 go to worker 0. */
    @Test
    void aWorkerKilledWhileParkedIsHandedNothing() throws Exception {
        ServerProcess s = start("--dev-max-respawns", "0");
        Page page = page(s);
        awaitBothStarted(page);
        long victim = workerPid(s, 1);
        assertTrue(ProcessHandle.of(victim).orElseThrow().destroyForcibly());
        await("worker 1 reaped and marked", () -> state(page, 1) == LEFT);

        Spread spread = probe(s).round(Shape.BURST, 32, 2);

        System.out.printf("killed parked worker: burst of 32 answered %s, sent by worker 0: %d%n",
                spread, page.getVolatile(PageLayout.sentWord(0)));
        assertEquals(32, spread.perWorker().get(0), spread.toString());
        assertEquals(0, page.getVolatile(PageLayout.sentWord(0)), "nothing handed to the dead worker");
        assertTrue(s.process.isAlive());
        assertEquals(1, s.descendants().size(), "not respawned (--dev-max-respawns 0)");
    }

    /**
     * RB: worker 1 SIGSTOPped while parked reads idle, so worker 0 queues about half a burst to
     * it; after its SIGKILL (no respawns) the give-up drain re-homes every one to worker 0: each
     * answered there, the drain's line and the page's re-homed count saying how many, none lost
     * or closed, the index's counts settled. How soon (the drain's bound is 250 ms) is the
     * drain line's figure, printed, not asserted: two loaded cores can miss any wall-clock bound.
     */
    @Test
    void connectionsQueuedToAStoppedWorkerAreReHomedAfterItsKill() throws Exception {
        ServerProcess s = start("--dev-max-respawns", "0");
        Page page = page(s);
        awaitBothStarted(page);
        warmUp(s);
        int victim = (int) workerPid(s, 1);
        stopped.add((long) victim);
        // Stopped while PARKED and idle, as in the seed: a stop that lands inside a pass (the
        // warm-up's close, say) leaves a state that pick rightly skips after 2 ms. Then continue it
        // and stop it again; bounded.
        for (int attempt = 0; ; attempt++) {
            assertTrue(Processes.kill(victim, Processes.SIGSTOP));
            await("worker 1 stopped", () -> procState(victim) == 'T');
            if (state(page, 1) == PARKED && Counts.active(page.getVolatile(PageLayout.countsWord(1))) == 0) {
                break;
            }
            assertTrue(attempt < 20, "worker 1 never stopped parked and idle: " + PageLayout.stateName(state(page, 1)));
            assertTrue(Processes.kill(victim, Processes.SIGCONT));
            await("worker 1 parked and idle", () -> state(page, 1) == PARKED
                    && Counts.active(page.getVolatile(PageLayout.countsWord(1))) == 0);
        }

        List<Http> burst = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            Http h = new Http(s.port, 30_000); // a generous wait for the re-homed answer, not a bound on it
            clients.add(h);
            burst.add(h);
        }
        for (Http h : burst) {
            h.send(Http.get("/pid"));
        }
        // Worker 0 answers what it kept and publishes what it passed: together, the burst.
        List<Http> queued = new ArrayList<>(burst);
        AtomicInteger answered = new AtomicInteger();
        await("worker 0's share answered", () -> {
            for (Http h : new ArrayList<>(queued)) {
                try {
                    if (h.socket.getInputStream().available() > 0) {
                        assertEquals("0", index(h.read()));
                        queued.remove(h);
                        answered.incrementAndGet();
                    }
                } catch (IOException e) {
                    throw new AssertionError(e);
                }
            }
            return answered.get() + page.getVolatile(PageLayout.sentWord(0)) == 32;
        });
        long passed = page.getVolatile(PageLayout.sentWord(0));
        assertEquals(passed, queued.size());
        assertTrue(passed >= 8, "about half the burst queued to the stopped worker: " + passed);
        for (Http h : queued) {
            assertEquals(0, h.socket.getInputStream().available(), "nothing answers while it is stopped");
        }
        assertEquals(passed, Counts.pending(page.getVolatile(PageLayout.countsWord(1))), "pending counts what is queued");

        long kill = System.nanoTime();
        assertTrue(Processes.kill(victim, Processes.SIGKILL));
        long last = kill;
        long first = 0;
        for (Http h : queued) {
            Http.Response r;
            try {
                r = h.read();
            } catch (java.net.SocketTimeoutException e) {
                throw new AssertionError("a queued connection was not re-homed: no answer in 30 s; " + stderr(s), e);
            }
            last = System.nanoTime();
            first = first == 0 ? last : first;
            assertNotNull(r, "a queued connection was closed unanswered");
            assertEquals("0", index(r));
        }
        long ms = TimeUnit.NANOSECONDS.toMillis(last - kill);
        await("the drain logged", () -> stderr(s).contains("given up: "));
        String drain = stderr(s).lines().filter(l -> l.contains("given up: ")).findFirst().orElse("");
        System.out.printf("stopped then killed worker: %d answered by worker 0 at once, %d queued to worker 1, "
                + "all %d re-homed and answered by worker 0 within %d ms of the kill (first after %d ms; "
                + "REHOMED %d; supervisor: %s)%n", answered.get(), passed, passed, ms,
                TimeUnit.NANOSECONDS.toMillis(first - kill), page.getVolatile(PageLayout.REHOMED_WORD), drain);
        // The give-up, as the supervisor recorded it: every queued connection re-homed, none closed.
        assertTrue(drain.contains("m0serve: index 1 given up: " + passed + " queued connection(s) re-homed, 0 closed"),
                drain);
        assertEquals(passed, page.getVolatile(PageLayout.REHOMED_WORD), "the page counts the re-homed");
        assertEquals(0, page.getVolatile(PageLayout.LOST_WORD), "none lost");
        assertEquals(0, Counts.pending(page.getVolatile(PageLayout.countsWord(1))), "the give-up retired the index");
        assertEquals(0, Counts.taken(page.getVolatile(PageLayout.countsWord(1))));
    }

    /** B25: SIGTERM to worker 1 half-way through a burst of 32: every connection is answered. */
    @Test
    void sigtermToOneWorkerDuringABurstLosesNoConnection() throws Exception {
        ServerProcess s = start();
        Page page = page(s);
        awaitBothStarted(page);
        warmUp(s);
        long leaver = workerPid(s, 1);
        ProcessHandle leaverHandle = ProcessHandle.of(leaver).orElseThrow();

        List<Http> burst = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            if (i == 16) {
                assertTrue(Processes.kill((int) leaver, Processes.SIGTERM));
            }
            Http h = new Http(s.port, 5_000);
            clients.add(h);
            burst.add(h);
        }
        Map<String, Integer> perIndex = new TreeMap<>();
        for (Http h : burst) {
            h.send(Http.get("/pid"));
            Http.Response r = h.read();
            assertNotNull(r, "a connection was closed unanswered");
            assertEquals(200, r.status());
            perIndex.merge(index(r), 1, Integer::sum);
        }
        leaverHandle.onExit().get(20, TimeUnit.SECONDS);
        System.out.printf("SIGTERM during a burst: 32 of 32 answered %s; worker 1 forwarded/handed over %d, "
                + "received %d%n", perIndex, page.getVolatile(PageLayout.forwardedWord(1)),
                page.getVolatile(PageLayout.receivedWord(1)));
        assertEquals(32, perIndex.values().stream().mapToInt(Integer::intValue).sum());
        assertFalse(leaverHandle.isAlive());
        // Not asked to leave by the supervisor, so replaced (docs/adr/0010): its reap marks the
        // index LEFT, then the replacement binds and starts over it.
        await("the leaver reaped and respawned", () -> stderr(s).contains("(pid " + leaver + ") exit 0; respawning"));
        await("the replacement started", () -> state(page, 1) == PageLayout.PARKED || PageLayout.inPass(state(page, 1)));
        assertEquals(0, Counts.inFlight(page.getVolatile(PageLayout.countsWord(1))));
        assertTrue(s.process.isAlive(), "the server serves on");
        assertEquals(200, warmUp(s).status());
    }

    /** SIGHUP: rolling reload under a bounded load: no socket error, no non-2xx, every worker replaced. */
    @Test
    void aRollingReloadUnderLoadLosesNothing() throws Exception {
        ServerProcess s = start();
        Page page = page(s);
        awaitBothStarted(page);
        Set<Long> before = childPids(s);
        assertEquals(2, before.size());

        AtomicBoolean done = new AtomicBoolean();
        List<String> errors = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger requests = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        long loadDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (int t = 0; t < 3; t++) {
            boolean keepAlive = t < 2;
            Thread th = new Thread(() -> load(s.port, keepAlive, done, loadDeadline, requests, errors), "load-" + t);
            th.start();
            threads.add(th);
        }
        try {
            await("load running", () -> requests.get() >= 30);
            int atHup = requests.get();
            assertTrue(Processes.kill((int) s.pid(), 1 /* SIGHUP */));
            await("both workers replaced", () -> {
                Set<Long> now = childPids(s);
                return now.size() == 2 && Collections.disjoint(now, before) && startedIndices(page).size() == 2;
            }, 60_000);
            int atReload = requests.get();
            await("load after the reload", () -> requests.get() >= atReload + 30
                    || threads.stream().noneMatch(Thread::isAlive));
            done.set(true);
            for (Thread th : threads) {
                th.join(TimeUnit.SECONDS.toMillis(30));
            }
            Set<Integer> indices = startedIndices(page);
            System.out.printf("SIGHUP under load: %d requests (%d before the HUP, %d during the reload), errors %d, "
                    + "workers now at indices %s; supervisor:%n%s%n", requests.get(), atHup, atReload - atHup,
                    errors.size(), indices, String.join("\n", stderr(s).lines()
                            .filter(l -> l.contains("reload") || l.contains("SIGHUP")).toList()));
            assertEquals(List.of(), errors);
            assertTrue(requests.get() > atReload, "requests served after the reload");
            assertTrue(indices.contains(2), "the first replacement took the spare index 2: " + indices);
            // One at a time: each replacement starts, then its predecessor leaves, then the next.
            List<String> steps = stderr(s).lines().filter(l -> l.startsWith("m0serve: reload")).map(
                    l -> l.endsWith("starting") ? "start" : l.endsWith("leaving") ? "leave" : l).toList();
            assertEquals(List.of("start", "leave", "start", "leave"), steps, stderr(s));
            assertTrue(s.process.isAlive());
        } finally {
            done.set(true);
        }
    }

    /** SIGTTIN brings up a third worker at a spare index; SIGTTOU retires one again. */
    @Test
    void ttinAndTtouScaleByOneWorker() throws Exception {
        ServerProcess s = start();
        Page page = page(s);
        awaitBothStarted(page);
        assertTrue(Processes.kill((int) s.pid(), 21 /* SIGTTIN */));
        await("three workers started", () -> startedIndices(page).size() == 3 && childPids(s).size() == 3);
        Set<Integer> three = startedIndices(page);
        assertTrue(Processes.kill((int) s.pid(), 22 /* SIGTTOU */));
        await("back to two workers", () -> childPids(s).size() == 2 && startedIndices(page).size() == 2);
        System.out.printf("SIGTTIN: workers at %s; SIGTTOU: at %s%n", three, startedIndices(page));
        assertEquals(Set.of(0, 1, 2), three);
        assertEquals(Set.of(0, 1), startedIndices(page), "the highest index left");
        Spread spread = probe(s).round(Shape.BURST, 8, 2);
        assertEquals(8, spread.perWorker().values().stream().mapToInt(Integer::intValue).sum());
    }

    private static final Pattern RESPAWNING_1 =
            Pattern.compile("m0serve: worker 1 \\(pid \\d+\\) [^\\n]*; respawning");
    private static final Pattern GIVEN_UP_1 =
            Pattern.compile("m0serve: worker 1 \\(pid \\d+\\) [^\\n]*; not replaced");

    /** A worker that dies at once, every time: given up after five fast deaths; the server serves on. */
    @Test
    void aRespawnStormGivesTheIndexUpAndTheServerServesOn() throws Exception {
        ServerProcess s = start("--dev-die-at-start-index", "1");
        Page page = page(s);
        long t0 = System.nanoTime();
        await("index 1 given up", () -> stderr(s).contains("worker 1 (pid"), 60_000);
        // Found anywhere in a line, not only at its start: a worker JVM's own warning (HotSpot
        // writes its text and its newline apart) may leave the supervisor's line glued to it.
        await("index 1 given up", () -> GIVEN_UP_1.matcher(stderr(s)).find(), 60_000);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        String err = stderr(s);
        long respawned = RESPAWNING_1.matcher(err).results().count();
        System.out.printf("respawn storm: index 1 respawned %d times, given up after %d ms: %s%n", respawned, ms,
                err.lines().filter(l -> l.contains("not replaced")).findFirst().orElse(""));
        assertEquals(4, respawned, "five deaths: the first and four respawns; stderr:\n" + err);
        assertTrue(err.contains("5 deaths in a row"), err);
        await("worker 0 started", () -> state(page, 0) == PARKED);
        assertEquals(LEFT, state(page, 1));
        Spread spread = probe(s).round(Shape.BURST, 16, 2);
        assertEquals(16, spread.perWorker().get(0), spread.toString());
        assertTrue(s.process.isAlive(), "the server serves on");
    }

    // ---- helpers ----

    private ServerProcess start(String... dev) throws Exception {
        ServerProcess s = ServerProcess.startWith(List.of(dev), "--workers", "2");
        servers.add(s);
        return s;
    }

    private static Page page(ServerProcess s) {
        return SharedPage.attach(s.pid()).page();
    }

    private static long state(Page page, int index) {
        return page.getVolatile(PageLayout.stateWord(index));
    }

    private static void awaitBothStarted(Page page) throws InterruptedException {
        await("both workers started", () -> state(page, 0) == PARKED && state(page, 1) == PARKED);
    }

    /** Indices whose line reads started (parked or in a pass). */
    private static Set<Integer> startedIndices(Page page) {
        Set<Integer> started = new HashSet<>();
        int lines = (page.words() - PageLayout.HEADER_WORDS) / PageLayout.LINE_WORDS;
        for (int i = 0; i < lines; i++) {
            long st = state(page, i);
            if (st == PARKED || PageLayout.inPass(st)) {
                started.add(i);
            }
        }
        return started;
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        await(what, condition, READY_MS);
    }

    /** Polls {@code condition} every 5 ms until it holds; fails after {@code timeoutMillis}. */
    private static void await(String what, BooleanSupplier condition, long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline >= 0) {
                throw new AssertionError("not " + what + " after " + timeoutMillis + " ms");
            }
            Thread.sleep(5); // polling a condition, bounded by the deadline
        }
    }

    private SpreadProbe probe(ServerProcess s) {
        return new SpreadProbe(new InetSocketAddress("127.0.0.1", s.port), PROBE_TIMEOUT_MS);
    }

    private Http.Response warmUp(ServerProcess s) throws IOException {
        try (Http h = new Http(s.port)) {
            h.send(Http.get("/"));
            Http.Response r = h.read();
            assertNotNull(r);
            return r;
        }
    }

    private static String index(Http.Response r) {
        assertEquals(200, r.status());
        return r.body().trim().split(" ")[1];
    }

    private static Set<Long> childPids(ServerProcess s) {
        Set<Long> pids = new HashSet<>();
        s.process.toHandle().children().filter(ProcessHandle::isAlive).forEach(h -> pids.add(h.pid()));
        return pids;
    }

    /** The pid of the supervisor's worker at {@code index} (its argv says index=N), or -1. */
    private static long workerPid(ServerProcess s, int index) {
        return s.workerPid(index);
    }

    /** The one-letter state of {@code pid} in /proc/pid/stat (R, S, T, Z...). */
    private static char procState(int pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2);
        } catch (IOException e) {
            return '?';
        }
    }

    private static String stderr(ServerProcess s) {
        try {
            return s.stderr();
        } catch (IOException e) {
            return "";
        }
    }

    /** One load thread: keep-alive GETs on one connection, or a fresh connection per GET; bounded. */
    private static void load(int port, boolean keepAlive, AtomicBoolean done, long deadline, AtomicInteger requests,
                             List<String> errors) {
        Http h = null;
        try {
            // Bounded in count (fresh connections also by the ephemeral ports TIME_WAIT holds) and
            // time, and paced (a load, not a CPU hog on two shared cores).
            int max = keepAlive ? 60_000 : 10_000;
            long paceNanos = keepAlive ? 1_000_000 : 5_000_000;
            for (int i = 0; i < max && !done.get() && System.nanoTime() - deadline < 0; i++) {
                if (h == null) {
                    h = new Http(port, 10_000);
                }
                h.send(Http.get("/"));
                Http.Response r = h.read();
                if (r == null) {
                    errors.add((keepAlive ? "keep-alive" : "fresh") + " request " + i + ": closed unanswered");
                    h.close();
                    h = null;
                    continue;
                }
                if (r.status() / 100 != 2) {
                    errors.add("request " + i + ": status " + r.status());
                }
                requests.incrementAndGet();
                if (!keepAlive) {
                    h.close();
                    h = null;
                }
                java.util.concurrent.locks.LockSupport.parkNanos(paceNanos); // pacing, not synchronisation
            }
        } catch (IOException | RuntimeException e) {
            errors.add((keepAlive ? "keep-alive" : "fresh") + ": " + e);
        } finally {
            if (h != null) {
                try {
                    h.close();
                } catch (IOException ignored) {
                    // closing a test client
                }
            }
        }
    }
}
