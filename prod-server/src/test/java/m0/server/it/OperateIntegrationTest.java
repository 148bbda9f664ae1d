package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import m0.server.cli.Subcommands;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * {@code m0serve stats | reload | stop} find a running server by the address it listens on or
 * the pid file it wrote, as an operator knows it (docs/adr/0067), and refuse what is no
 * supervisor.
 */
@Timeout(120)
class OperateIntegrationTest {

    /** Runs {@code m0serve args} in this JVM (a subcommand); returns exit status and stdout + stderr. */
    private static Map.Entry<Integer, String> m0serve(String... args) {
        StringWriter text = new StringWriter();
        PrintWriter out = new PrintWriter(text, true);
        CommandLine cl = Subcommands.commandLine();
        cl.setOut(out);
        cl.setErr(out);
        int status = cl.execute(args);
        out.flush();
        return Map.entry(status, text.toString());
    }

    @Test
    void statsReloadAndStopFindTheServerByItsAddressAndItsPidFile() throws Exception {
        Path dir = Files.createTempDirectory("m0serve-pid-");
        Path pidFile = dir.resolve("m0serve.pid");
        try (ServerProcess s = ServerProcess.start("--workers", "2", "--pid-file", pidFile.toString())) {
            assertNotNull(s.awaitReady(60));
            assertTrue(s.banner.matches(".*\\(workers 2, accept policy \\w+, pid " + s.pid() + ", m0serve [^;\\s]+; native calls: [^)]+\\)$"),
                    "the start line names the version: " + s.banner);
            assertEquals(s.pid() + "\n", Files.readString(pidFile), "the pid file, written once bound");
            String header = "m0serve stats: pid " + s.pid() + ", 2 workers";
            for (String[] target : new String[][] {{"--bind", "127.0.0.1:" + s.port}, {"--bind", "0.0.0.0:" + s.port},
                    {"--bind", "localhost:" + s.port}, {"--pid-file", pidFile.toString()}}) {
                Map.Entry<Integer, String> r = m0serve("stats", target[0], target[1]);
                assertEquals(0, r.getKey(), String.join(" ", target) + ": " + r.getValue());
                assertTrue(r.getValue().startsWith(header), String.join(" ", target) + ": " + r.getValue());
            }

            // A worker holds the page and the listener too: found by --bind, it is never the target;
            // named by --pid to stop, it is refused, and keeps serving.
            long worker = s.workerPid(0);
            assertTrue(worker > 0);
            Map.Entry<Integer, String> refused = m0serve("stop", "--pid", Long.toString(worker));
            assertEquals(1, refused.getKey(), refused.getValue());
            assertEquals("m0serve stop: --pid " + worker + ": pid " + worker + " is a worker of the supervisor "
                    + s.pid() + "\n", refused.getValue());
            assertTrue(ProcessHandle.of(worker).map(ProcessHandle::isAlive).orElse(false));

            Map.Entry<Integer, String> reload = m0serve("reload", "--bind", "127.0.0.1:" + s.port);
            assertEquals(0, reload.getKey(), reload.getValue());
            assertEquals("m0serve reload: SIGHUP sent to the supervisor, pid " + s.pid() + "\n", reload.getValue());
            // The supervisor took it: the rolling reload replaces a first worker.
            assertTrue(awaitStderr(s, Pattern.compile("m0serve: reload: worker \\d+ \\(pid \\d+\\) leaving"), 30),
                    s.stderr());

            Map.Entry<Integer, String> stop = m0serve("stop", "--pid-file", pidFile.toString(), "--wait-ms", "60000");
            assertEquals(0, stop.getKey(), stop.getValue());
            assertEquals("m0serve stop: SIGTERM sent to the supervisor, pid " + s.pid() + "\nm0serve stop: pid "
                    + s.pid() + " exited\n", stop.getValue());
            assertTrue(s.process.waitFor(10, TimeUnit.SECONDS));
            assertEquals(0, s.process.exitValue(), s.stderr());
            assertNotNull(s.awaitLine(Pattern.compile("m0serve: stopped \\(SIGTERM\\)"), 10));
            assertFalse(Files.exists(pidFile), "the pid file is removed at exit");

            // Gone: each way of naming it says so in one line, exit 1.
            for (String[] target : new String[][] {{"--bind", "127.0.0.1:" + s.port}, {"--pid-file", pidFile.toString()}}) {
                Map.Entry<Integer, String> r = m0serve("stats", target[0], target[1]);
                assertEquals(1, r.getKey(), r.getValue());
                assertEquals(1, r.getValue().lines().count(), r.getValue());
            }
        } finally {
            Files.deleteIfExists(pidFile);
            Files.delete(dir);
        }
    }

    private static final String[] HOLD_WORKER_1 = {"--dev-arm-gap-ms", "600000", "--dev-arm-gap-index", "1"};

    /**
     * The worker count shown is the one the supervisor runs, wherever it was set: stats reads the
     * supervisor's command line, environment and config file in the settings' own order. Worker
     * 1 is held before its start (so the server is listening, never ready), its line unwritten: the
     * count is all stats has to show it by.
     * Negative control: with stats reading --workers from the command line only, both rows show 1.
     */
    @Test
    void statsShowsTheWorkerCountSetInTheEnvironmentOrTheConfigFile() throws Exception {
        Path config = Files.createTempFile("m0serve-", ".properties");
        try {
            Files.writeString(config, "workers = 3\n");
            try (ServerProcess s = ServerProcess.start(Map.of("M0SERVE_WORKERS", "2"), HOLD_WORKER_1)) {
                Map.Entry<Integer, String> r = m0serve("stats", "--bind", "127.0.0.1:" + s.port);
                assertEquals(0, r.getKey(), r.getValue());
                assertTrue(r.getValue().startsWith("m0serve stats: pid " + s.pid() + ", 2 workers"), r.getValue());
            }
            try (ServerProcess s = ServerProcess.startWith(List.of(HOLD_WORKER_1), "--config", config.toString())) {
                Map.Entry<Integer, String> r = m0serve("stats", "--bind", "127.0.0.1:" + s.port);
                assertEquals(0, r.getKey(), r.getValue());
                assertTrue(r.getValue().startsWith("m0serve stats: pid " + s.pid() + ", 3 workers"), r.getValue());
            }
        } finally {
            Files.deleteIfExists(config);
        }
    }

    @Test
    void aPidFileThatNamesNoSupervisorIsRefusedAsStale() throws Exception {
        Path pidFile = Files.createTempFile("m0serve-", ".pid");
        try {
            Files.writeString(pidFile, ProcessHandle.current().pid() + "\n"); // this JVM: alive, no m0 page
            for (String command : new String[] {"stats", "stop", "reload"}) {
                Map.Entry<Integer, String> r = m0serve(command, "--pid-file", pidFile.toString());
                assertEquals(1, r.getKey(), command + ": " + r.getValue());
                assertTrue(r.getValue().contains("is no m0serve") && r.getValue().contains("a stale pid file?"),
                        command + ": " + r.getValue());
            }
            Files.writeString(pidFile, "not a pid\n");
            Map.Entry<Integer, String> r = m0serve("stop", "--pid-file", pidFile.toString());
            assertEquals(1, r.getKey(), r.getValue());
            assertTrue(r.getValue().contains("holds no pid"), r.getValue());
        } finally {
            Files.deleteIfExists(pidFile);
        }
    }

    /** Polls the server's stderr for {@code pattern}, bounded. */
    private static boolean awaitStderr(ServerProcess s, Pattern pattern, long seconds) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        do {
            if (pattern.matcher(s.stderr()).find()) {
                return true;
            }
            Thread.sleep(20); // polling the log file, bounded by the deadline
        } while (System.nanoTime() - until < 0);
        return false;
    }

}
