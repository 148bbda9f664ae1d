package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The supervisor and its workers as processes: ports, pids, signals, exits. Each test its own server. */
@Timeout(90)
class LifecycleIntegrationTest {

    private final List<ServerProcess> servers = new ArrayList<>();
    private final List<Http> clients = new ArrayList<>();

    @AfterEach
    void killEverything() throws IOException {
        for (Http h : clients) {
            h.close();
        }
        for (ServerProcess s : servers) {
            s.close();
        }
    }

    private ServerProcess start(String... args) throws Exception {
        return start(Map.of(), args);
    }

    private ServerProcess start(Map<String, String> env, String... args) throws Exception {
        ServerProcess s = ServerProcess.start(env, args);
        servers.add(s);
        return s;
    }

    /** Asks /pid on a new kept-open connection: "pid index". */
    private String[] pidOnNewConnection(int port) throws IOException {
        Http h = new Http(port);
        clients.add(h);
        h.send(Http.get("/pid"));
        Http.Response r = h.read();
        assertNotNull(r);
        assertEquals(200, r.status());
        return r.body().trim().split(" ");
    }

    @Test
    void twoWorkersServeFromTwoPids() throws Exception {
        ServerProcess s = start("--workers", "2");
        // Both loops started: on a loaded machine the second JVM can take longer than the 200
        // connections below, which would all go to the first. The supervisor says so once it has
        // read both starts on the page; check the page agrees at that moment.
        assertEquals("m0serve: ready: 2 worker(s) started", s.awaitReady(40));
        m0.core.Page page = m0.server.share.SharedPage.attach(s.pid()).page();
        for (int i = 0; i < 2; i++) {
            long state = page.getVolatile(m0.core.PageLayout.stateWord(i));
            assertTrue(state == m0.core.PageLayout.PARKED || m0.core.PageLayout.inPass(state),
                    "worker " + i + " started when ready was printed: " + m0.core.PageLayout.stateName(state));
        }
        Map<String, String> indexByPid = new HashMap<>();
        // Connections stay open, so the least-loaded pick moves to the other worker once it has
        // started; bounded in count and time.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (int i = 0; i < 200 && indexByPid.size() < 2 && System.nanoTime() < deadline; i++) {
            String[] pi = pidOnNewConnection(s.port);
            indexByPid.put(pi[0], pi[1]);
        }
        assertEquals(2, indexByPid.size(), "pids seen: " + indexByPid);
        assertEquals(List.of("0", "1"), indexByPid.values().stream().sorted().toList());
        List<Long> children = s.descendants().stream().map(ProcessHandle::pid).toList();
        for (String pid : indexByPid.keySet()) {
            assertTrue(children.contains(Long.parseLong(pid)), pid + " is a worker of " + s.pid() + ": " + children);
        }
    }

    /** share: the workers run the core's leave (LEFT, the bounded drain); race: they just stop accepting. */
    @ParameterizedTest
    @ValueSource(strings = {"share", "race"})
    void sigtermStopsGracefullyExitsZeroAndLeavesNothingRunning(String policy) throws Exception {
        ServerProcess s = start("--workers", "2", "--accept-policy", policy);
        assertEquals(2, s.descendants().size(), "two workers spawned");
        // A request in flight on the blocking pool when SIGTERM arrives is still answered.
        Http slow = new Http(s.port);
        clients.add(slow);
        slow.send(Http.get("/sleep?ms=800"));
        Http idle = new Http(s.port);
        clients.add(idle);
        idle.send(Http.get("/"));
        assertEquals(200, idle.read().status());
        List<ProcessHandle> workers = s.descendants();
        long t0 = System.nanoTime();
        s.process.destroy(); // SIGTERM
        assertTrue(s.process.waitFor(30, TimeUnit.SECONDS), "supervisor exited");
        assertEquals(0, s.process.exitValue(), "exit status; stderr: " + s.stderr());
        Http.Response r = slow.read();
        assertNotNull(r, "the in-flight request was answered");
        assertEquals(200, r.status());
        assertTrue(idle.readsEof(), "idle keep-alive connection closed");
        for (ProcessHandle w : workers) {
            assertTrue(w.onExit().get(10, TimeUnit.SECONDS) != null && !w.isAlive(), "worker " + w.pid() + " gone");
        }
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(20));
    }

    @Test
    void workersLeaveOnTheirOwnWhenTheSupervisorIsKilled() throws Exception {
        ServerProcess s = start("--workers", "2");
        List<ProcessHandle> workers = s.descendants();
        assertEquals(2, workers.size());
        s.process.toHandle().destroyForcibly(); // SIGKILL: no graceful stop from the supervisor
        for (ProcessHandle w : workers) {
            // Each worker watches the supervisor's pidfd and leaves as on SIGTERM.
            w.onExit().get(30, TimeUnit.SECONDS);
            assertFalse(w.isAlive(), "worker " + w.pid() + " outlived its supervisor");
        }
    }

    @Test
    void aSecondServerOnTheSamePortFailsNamingThePort() throws Exception {
        ServerProcess first = start("--workers", "1");
        Path err = Files.createTempFile("m0serve-second-", ".err");
        try {
            Process second = new ProcessBuilder(ServerProcess.command("--bind", "127.0.0.1:" + first.port))
                    .redirectError(err.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            boolean exited = second.waitFor(30, TimeUnit.SECONDS);
            if (!exited) {
                ServerProcess.kill(second);
            }
            assertTrue(exited, "the second server exits");
            assertNotEquals(0, second.exitValue());
            String message = Files.readString(err);
            assertTrue(message.contains(Integer.toString(first.port)), "names the port: " + message);
            assertTrue(second.descendants().toList().isEmpty());
        } finally {
            Files.deleteIfExists(err);
        }
        // The first one still serves.
        assertEquals(2, pidOnNewConnection(first.port).length);
    }

    @Test
    void sharingIsTheDefaultWithTwoWorkersAndRaceIsAsked() throws Exception {
        assertTrue(start("--workers", "2").banner.contains("accept policy share"));
        ServerProcess off = start("--workers", "2", "--accept-policy", "race");
        assertTrue(off.banner.contains("accept policy race"), off.banner);
        // Sixteen connections held open on the bare race: every one answered all the same.
        for (int i = 0; i < 16; i++) {
            assertEquals(2, pidOnNewConnection(off.port).length);
        }
    }

    @Test
    void aKilledWorkerIsRespawnedIntoItsIndex() throws Exception {
        ServerProcess s = start("--workers", "1");
        String[] before = pidOnNewConnection(s.port);
        assertTrue(ProcessHandle.of(Long.parseLong(before[0])).orElseThrow().destroyForcibly());
        String[] after = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            try {
                after = pidOnNewConnection(s.port);
                break;
            } catch (IOException e) {
                // the connection was accepted by the dying worker: try again (bounded)
            }
        }
        assertNotNull(after, "served again after the kill");
        assertNotEquals(before[0], after[0], "a new worker pid");
        assertEquals("0", after[1], "in the same index");
        assertTrue(s.process.isAlive());
        assertFalse(ProcessHandle.of(Long.parseLong(before[0])).map(ProcessHandle::isAlive).orElse(false));
    }
}
