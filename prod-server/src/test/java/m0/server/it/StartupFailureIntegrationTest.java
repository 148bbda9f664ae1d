package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import m0.server.http.App;
import m0.server.http.AppContext;
import m0.server.http.Request;
import m0.server.http.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An app that cannot start, on the real binary with two workers (docs/adr/0062): {@code --app}
 * whose init throws, {@code --main} whose main throws, {@code --main} that never starts its
 * server within its bound. Each time the server exits 78, the app's exception is in the log
 * exactly once (its message, its cause's, one "Caused by"), "ready" is never printed, and no
 * index is spawned twice (nothing respawned; at most one failure line per index).
 */
class StartupFailureIntegrationTest {

    static final String MAIN_OUTER = "main outer: wiring failed";
    static final String MAIN_INNER = "main inner: config.port is null";
    static final String INIT_OUTER = "init outer: pool not made";
    static final String INIT_INNER = "init inner: jdbc url is null";

    /** Its main throws a RuntimeException wrapping an NPE, as a misconfigured app's does. */
    public static final class ThrowingMain {
        public static void main(String[] args) {
            throw new RuntimeException(MAIN_OUTER, new NullPointerException(MAIN_INNER));
        }
    }

    /** Its main waits forever and never makes a server. */
    public static final class WaitingMain {
        public static void main(String[] args) throws InterruptedException {
            new CountDownLatch(1).await();
        }
    }

    /** An App whose init throws a RuntimeException wrapping an NPE. */
    public static final class ThrowingInitApp implements App {
        @Override
        public void init(AppContext context) {
            throw new IllegalStateException(INIT_OUTER, new NullPointerException(INIT_INNER));
        }

        @Override
        public Response handle(Request request) {
            return Response.text(200, "never");
        }
    }

    /** An App whose init ends its JVM with status 3: a crash before start, not a configuration error. */
    public static final class HaltingInitApp implements App {
        @Override
        public void init(AppContext context) {
            Runtime.getRuntime().halt(3);
        }

        @Override
        public Response handle(Request request) {
            return Response.text(200, "never");
        }
    }

    @Test
    @Timeout(120)
    void aMainThatThrowsIsSaidOnceAndTheServerExits78() throws Exception {
        String err = runToExit78("--workers", "2", "--main", ThrowingMain.class.getName());
        assertEquals(1, count(err, MAIN_OUTER), err);
        assertEquals(1, count(err, "Caused by: java.lang.NullPointerException: " + MAIN_INNER), err);
        assertEquals(1, count(err, MAIN_INNER), err);
        assertEquals(1, count(err, "Caused by:"), err);
        assertTrue(err.contains("ThrowingMain.main("), "the app's own frame: " + err);
    }

    @Test
    @Timeout(120)
    void anAppWhoseInitThrowsIsSaidOnceAndTheServerExits78() throws Exception {
        String err = runToExit78("--workers", "2", "--app", ThrowingInitApp.class.getName());
        assertEquals(1, count(err, INIT_OUTER), err);
        assertEquals(1, count(err, "Caused by: java.lang.NullPointerException: " + INIT_INNER), err);
        assertEquals(1, count(err, INIT_INNER), err);
        assertEquals(1, count(err, "Caused by:"), err);
        assertTrue(err.contains("ThrowingInitApp.init("), "the app's own frame: " + err);
    }

    @Test
    @Timeout(120)
    void aMainThatNeverStartsItsServerWithinItsBoundExits78() throws Exception {
        String err = runToExit78("--workers", "2", "--dev-main-start-ms", "300", "--main", WaitingMain.class.getName());
        assertTrue(count(err, "did not start an HttpServer within 300 ms") >= 1, err);
        // Where its main was stuck, printed once: the waiting frame is the app's.
        assertEquals(1, count(err, "main thread at the bound"), err);
        assertTrue(err.contains("WaitingMain.main("), err);
    }

    /**
     * A worker that dies before its start with another status is respawned within the budget, as
     * ever (here capped at two respawns), and the server exits 1 once every index is given up;
     * "ready" is not printed, since no worker ever served.
     */
    @Test
    @Timeout(120)
    void workersThatCrashBeforeTheirStartAreRespawnedWithinTheBudgetAndNoReadyIsSaid() throws Exception {
        try (ServerProcess s = ServerProcess.startWith(java.util.List.of("--dev-max-respawns", "2"),
                "--workers", "2", "--app", HaltingInitApp.class.getName())) {
            assertTrue(s.process.waitFor(90, TimeUnit.SECONDS), "the server exits; stderr: " + s.stderr());
            String err = s.stderr();
            assertEquals(1, s.process.exitValue(), "exit status; stderr: " + err);
            assertNull(s.awaitReady(30), "no ready line; stderr: " + err);
            assertEquals(2, count(err, "exit 3; respawning"), err);
            assertEquals(2, count(err, "exit 3; not replaced: --dev-max-respawns 2 spent"), err);
            assertEquals(1, count(err, "every worker index was given up"), err);
            assertEquals(0, count(err, "the app cannot start"), err);
        }
    }

    /**
     * Runs the server to its exit, which must be 78, and checks what every row shares: no
     * "ready" on stdout, the supervisor's stop line, nothing respawned, each index's failure
     * said at most once. Returns its stderr.
     */
    private static String runToExit78(String... args) throws Exception {
        try (ServerProcess s = ServerProcess.start(args)) {
            assertTrue(s.process.waitFor(90, TimeUnit.SECONDS), "the server exits; stderr: " + s.stderr());
            String err = s.stderr();
            assertEquals(78, s.process.exitValue(), "exit status; stderr: " + err);
            assertNull(s.awaitReady(30), "no ready line; stderr: " + err); // null: stdout closed without one
            assertEquals(1, count(err, "before any worker started: the app cannot start; stopping (exit 78)"), err);
            assertEquals(0, count(err, "respawning"), err);
            for (int i = 0; i < 2; i++) {
                assertTrue(count(err, "m0serve worker " + i + ": the app cannot start") <= 1, "index " + i + ": " + err);
            }
            assertTrue(count(err, "the app cannot start: ") >= 1, "a worker said why: " + err);
            assertEquals(0, count(err, " started "), "no worker started: " + err);
            return err;
        }
    }

    private static int count(String text, String part) {
        Matcher m = Pattern.compile(Pattern.quote(part)).matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }
}
