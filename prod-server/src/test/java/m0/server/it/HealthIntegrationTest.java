package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code /readyz} and {@code /livez} on the metrics listener, and the stop's lines, on the real
 * binary (docs/adr/0067): /readyz answers 503 from the moment a stop begins while the app's
 * worker still serves a request it holds, so a load balancer has the drain to move its clients.
 */
@Timeout(120)
class HealthIntegrationTest {

    private static final Pattern METRICS = Pattern.compile("metrics on http://127\\.0\\.0\\.1:(\\d+)/metrics");

    @Test
    void readyzTurns503WhenTheStopBeginsWhileAHeldRequestIsStillServed() throws Exception {
        // The drain is held open by the test, not by a clock: a body the worker waits for, with
        // the body timeout and the grace far beyond the test's own bounds.
        try (ServerProcess s = ServerProcess.start("--workers", "1", "--metrics-bind", "127.0.0.1:0",
                "--body-timeout-ms", "600000", "--grace-ms", "600000")) {
            String port = s.awaitLine(METRICS, 30);
            assertNotNull(port, "no 'metrics on' line");
            int metrics = Integer.parseInt(port);
            assertNotNull(s.awaitReady(60));
            assertEquals("200 serving\n", probe(metrics, "/readyz"), "ready once every worker serves");
            assertEquals("200 alive\n", probe(metrics, "/livez"));

            try (Http held = new Http(s.port, 60_000)) {
                held.send("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n");
                // The worker has read the head and waits for the body: a request in flight, which
                // its drain must finish.
                assertEquals(100, held.read().status());

                // SIGTERM; through the handle: Process.destroy would also close our end of its stdout.
                assertTrue(s.process.toHandle().destroy());
                String seen = probe(metrics, "/readyz");
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (seen.startsWith("200 ") && System.nanoTime() - until < 0) {
                    Thread.sleep(10); // polling as a load balancer does, bounded by the deadline
                    seen = probe(metrics, "/readyz");
                }
                assertEquals("503 stopping\n", seen, "not ready from the moment the stop begins");
                assertEquals("200 alive\n", probe(metrics, "/livez"), "alive while it drains");
                assertNotNull(s.awaitLine(Pattern.compile("m0serve: stopping \\(SIGTERM\\): 1 worker\\(s\\) draining"), 10),
                        () -> "the stop's first line; stderr: " + stderrOf(s));

                // The held request is still served after /readyz said 503: the drain outlives it.
                held.send("hello");
                Http.Response answer = held.read();
                assertNotNull(answer, () -> "the held request was answered; stderr: " + stderrOf(s));
                assertEquals(200, answer.status());
            }
            assertTrue(s.process.waitFor(60, TimeUnit.SECONDS), "the supervisor exits once the drain is over");
            assertEquals(0, s.process.exitValue(), s.stderr());
            assertNotNull(s.awaitLine(Pattern.compile("^m0serve: stopped \\(SIGTERM\\): 1 worker\\(s\\) drained in \\d+ ms, exit 0$"),
                    10), "the stop line with its reason");
        }
    }

    /**
     * --drain-delay-ms: from the first SIGTERM, /readyz says 503 while the listener still accepts
     * and serves NEW connections (what a load balancer that has not yet read the 503 sends);
     * the second SIGTERM ends the delay and the stop runs. The delay is far beyond the test's
     * bounds, so no clock decides the outcome. Negative control: with the delay setting ignored
     * (drainDelayOver returning true), the new connection after the 503 is refused.
     */
    @Test
    void aDrainDelayKeepsAcceptingNewConnectionsWithReadyz503UntilASecondSignal() throws Exception {
        try (ServerProcess s = ServerProcess.start("--workers", "2", "--metrics-bind", "127.0.0.1:0",
                "--drain-delay-ms", "600000")) {
            int metrics = Integer.parseInt(s.awaitLine(METRICS, 30));
            assertNotNull(s.awaitReady(60));
            assertEquals("200 serving\n", probe(metrics, "/readyz"));

            assertTrue(s.process.toHandle().destroy()); // SIGTERM
            assertNotNull(s.awaitLine(Pattern.compile("m0serve: SIGTERM: /readyz 503, serving 600000 ms more"), 30),
                    () -> "the drain delay's line; stderr: " + stderrOf(s));
            assertEquals("503 stopping\n", probe(metrics, "/readyz"), "not ready from the first signal");
            for (int i = 0; i < 4; i++) {
                try (Http h = new Http(s.port)) { // a new connection, accepted and served
                    h.send(Http.get("/"));
                    Http.Response r = h.read();
                    int n = i;
                    assertNotNull(r, () -> "connection " + n + " after the 503 was not answered; stderr: " + stderrOf(s));
                    assertEquals(200, r.status());
                }
            }
            assertTrue(s.process.isAlive(), "still serving during the delay");

            assertTrue(s.process.toHandle().destroy()); // the second SIGTERM: stop now
            assertTrue(s.process.waitFor(60, TimeUnit.SECONDS), "the second signal ends the delay");
            assertEquals(0, s.process.exitValue(), s.stderr());
            assertNotNull(s.awaitLine(Pattern.compile("^m0serve: stopped \\(SIGTERM\\): 2 worker\\(s\\) drained in \\d+ ms, exit 0$"),
                    10), "the stop line");
        }
    }

    private static String stderrOf(ServerProcess s) {
        try {
            return s.stderr();
        } catch (IOException e) {
            return e.toString();
        }
    }

    /** One probe on a connection of its own, as a load balancer makes: "STATUS BODY". */
    private static String probe(int port, String path) throws IOException {
        try (Http h = new Http(port)) {
            h.send(Http.get(path));
            Http.Response r = h.read();
            assertNotNull(r, path + ": no answer");
            return r.status() + " " + r.body();
        }
    }
}
