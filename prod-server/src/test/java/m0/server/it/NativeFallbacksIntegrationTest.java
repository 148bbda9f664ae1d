package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import m0.server.jnr.Processes;
import m0.server.launch.WorkerSpec;
import m0.server.probe.Shape;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The real binary on the floor's fallbacks (docs/adr/0060), forced on this machine, which has
 * every new call: {@code --dev-native-fallbacks} (hidden) takes epoll_wait for epoll_pwait2, the
 * bounded close list for addclosefrom_np, SIGCHLD and waitpid for the supervisor's pidfds, the
 * parent-death signal for the workers' pidfd of their supervisor, and write(2) for io_uring.
 */
@Timeout(180)
class NativeFallbacksIntegrationTest {

    private static final String ALL = "epoll_pwait2,closefrom,pidfd,io_uring";
    private static final int READY_MS = 30_000;
    private static final long LOG_SECONDS = 30;

    @Test
    void everyFallbackForcedItSaysSoServesLandsABurstAndPassesNoStrayDescriptor() throws Exception {
        try (ServerProcess s = ServerProcess.start("--workers", "2", "--dev-native-fallbacks", ALL,
                "--metrics-bind", "127.0.0.1:0")) {
            PageWatch page = PageWatch.of(s);
            page.awaitReady(READY_MS);
            assertTrue(s.banner.contains("native calls: wait=epoll_wait close=loop reap=sigchld, fallbacks forced: "
                    + ALL + ")"), s.banner);
            for (int i = 0; i < 2; i++) {
                assertTrue(awaitLog(s, Pattern.compile("worker " + i + ": warmed up .*answers written with write\\(2\\);"
                        + " wait=epoll_wait watch=pdeathsig\\)")) != null, s.stderr());
            }
            try (Http h = new Http(s.port)) {
                h.send(Http.get("/"));
                assertEquals(200, h.read().status());
            }
            SpreadIntegrationTest.assertEvenRounds(s, page, Shape.BURST, 32, 2);
            // The metrics listener and the other workers' receive ends are the supervisor's, not
            // close-on-exec or not: a worker holds only what the launch contract numbers.
            for (int i = 0; i < 2; i++) {
                assertOnlyPassedSockets(s.pid(), s.workerPid(i), WorkerSpec.descriptorCount(5));
            }
        }
    }

    @Test
    void aKilledWorkerIsReapedAndReplacedOnSigchld() throws Exception {
        try (ServerProcess s = ServerProcess.start("--workers", "2", "--dev-native-fallbacks", "pidfd")) {
            PageWatch.of(s).awaitReady(READY_MS);
            assertTrue(s.banner.contains("reap=sigchld"), s.banner);
            long victim = s.workerPid(1);
            assertTrue(Processes.kill((int) victim, Processes.SIGKILL));
            assertTrue(awaitLog(s, Pattern.compile("worker 1 \\(pid " + victim + "\\) signal 9; respawning")) != null,
                    "reaped on SIGCHLD: " + s.stderr());
            String replacement = awaitLog(s, Pattern.compile("worker 1 \\(pid (?!" + victim + "\\))(\\d+)\\) started"));
            assertTrue(replacement != null, "replaced: " + s.stderr());
            assertEquals(Long.parseLong(replacement), s.workerPid(1));
            try (Http h = new Http(s.port)) {
                h.send(Http.get("/"));
                assertEquals(200, h.read().status());
            }
            assertFalse(s.stderr().contains("reaping worker"), "no failed reap: " + s.stderr());
        }
    }

    @Test
    void workersLeaveWhenTheirSupervisorIsKilledWithoutPidfds() throws Exception {
        try (ServerProcess s = ServerProcess.start("--workers", "2", "--dev-native-fallbacks", "pidfd")) {
            PageWatch.of(s).awaitReady(READY_MS);
            List<ProcessHandle> workers = s.descendants();
            assertEquals(2, workers.size());
            s.process.toHandle().destroyForcibly(); // SIGKILL: nothing graceful from the supervisor
            for (ProcessHandle w : workers) {
                // PR_SET_PDEATHSIG: the kernel sends each worker SIGTERM, and it leaves.
                w.onExit().get(30, TimeUnit.SECONDS);
                assertFalse(w.isAlive(), "worker " + w.pid() + " outlived its supervisor");
            }
        }
    }

    @Test
    void anUnknownFallbackIsAUsageError() throws Exception {
        Path err = Files.createTempFile("m0serve-fallbacks-", ".err");
        try {
            Process p = new ProcessBuilder(ServerProcess.command("--bind", "127.0.0.1:0", "--dev-native-fallbacks", "nope"))
                    .redirectError(err.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            boolean exited = p.waitFor(30, TimeUnit.SECONDS);
            if (!exited) {
                ServerProcess.kill(p);
            }
            assertTrue(exited);
            assertEquals(2, p.exitValue());
            String message = Files.readString(err);
            assertTrue(message.contains("--dev-native-fallbacks: not a native fallback: 'nope'"), message);
            assertNotEquals("", message.strip());
        } finally {
            Files.deleteIfExists(err);
        }
    }

    /**
     * Every socket the worker shares with its supervisor sits at a number the launch contract
     * gives (3 .. 3 + count - 1): no socket of the supervisor's leaked in at another number.
     */
    private static void assertOnlyPassedSockets(long supervisor, long worker, int count) throws IOException {
        Map<String, Integer> supervisorSockets = sockets(supervisor);
        Map<String, Integer> workerSockets = sockets(worker);
        List<String> stray = new ArrayList<>();
        workerSockets.forEach((socket, fd) -> {
            if (supervisorSockets.containsKey(socket) && (fd < 3 || fd >= 3 + count)) {
                stray.add(fd + " -> " + socket);
            }
        });
        assertEquals(List.of(), stray, "worker " + worker + " holds the supervisor's sockets at numbers not passed");
        assertTrue(supervisorSockets.size() > count, "the supervisor holds sockets it does not pass: " + supervisorSockets);
    }

    /** A process's sockets, by their link text (socket:[inode]), with the descriptor number. */
    private static Map<String, Integer> sockets(long pid) throws IOException {
        Map<String, Integer> out = new HashMap<>();
        try (var list = Files.list(Path.of("/proc/" + pid + "/fd"))) {
            for (Path p : list.toList()) {
                try {
                    String target = Files.readSymbolicLink(p).toString();
                    if (target.startsWith("socket:")) {
                        out.put(target, Integer.parseInt(p.getFileName().toString()));
                    }
                } catch (IOException e) {
                    // closed meanwhile
                }
            }
        }
        return out;
    }

    /** The first stderr match of {@code pattern} (its first group if any), polled until the bound; null if none. */
    private static String awaitLog(ServerProcess s, Pattern pattern) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(LOG_SECONDS);
        do {
            Matcher m = pattern.matcher(s.stderr());
            if (m.find()) {
                return m.groupCount() > 0 ? m.group(1) : m.group();
            }
            Thread.sleep(10); // polling the log for a line, bounded by the deadline
        } while (System.nanoTime() - until < 0);
        return null;
    }
}
