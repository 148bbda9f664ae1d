package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 44 on the real binary: whatever a handler throws is seen once in three places (the
 * client's 500, or its cut answer; the worker's log, rate limited; the access log and the
 * metrics), nothing a handler throws takes the worker down, an OutOfMemoryError recycles it, and
 * the access log counts the body bytes the client received, for every kind of answer.
 */
class FailuresSeenIntegrationTest {

    private static final Pattern METRICS = Pattern.compile("metrics on http://(127\\.0\\.0\\.1:\\d+)/metrics");
    /** A flood of failing requests: the log must not print a line each. */
    private static final int FLOOD = 300;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @Test
    @Timeout(120)
    void everyThrowingHandlerIsA500LoggedCountedAndTheWorkerServesOn() throws Exception {
        Path dir = Files.createTempDirectory("m0-failures");
        Path log = dir.resolve("access.log");
        try (ServerProcess s = ServerProcess.start("--workers", "1", "--app", FailingApps.Throwing.class.getName(),
                "--access-log", log.toString(), "--metrics-bind", "127.0.0.1:0")) {
            String metrics = s.awaitLine(METRICS, 30);
            assertNotNull(metrics);
            assertNotNull(s.awaitReady(60));
            long worker = s.workerPid(0);
            List<String> failing = List.of("/runtime", "/stack", "/ncdf", "/pool/runtime", "/pool/stack", "/pool/ncdf");
            for (String p : failing) {
                assertEquals(500, get(s, p).statusCode(), p + " (today: an empty reply)");
            }
            assertEquals(200, get(s, "/").statusCode(), "the worker serves on");
            assertEquals(worker, s.workerPid(0), "the same worker: no Error a handler throws but OOM retires it");

            List<String> lines = awaitLines(log, failing.size() + 1);
            for (int k = 0; k < failing.size(); k++) {
                assertTrue(lines.get(k).contains("\"GET " + failing.get(k) + " HTTP/1.1\" 500 "), lines.get(k));
            }
            String err = s.stderr();
            assertTrue(err.contains("handler of GET /runtime failed: java.lang.IllegalStateException: runtime"), err);
            assertTrue(err.contains("Caused by: java.lang.NullPointerException: the cause"), "the cause chain: " + err);

            // A flood: every request answered and counted, a line a second at most in the log.
            long before = System.nanoTime();
            try (Http h = new Http(s.port)) {
                for (int k = 0; k < FLOOD; k++) {
                    h.send(Http.get("/runtime"));
                    assertEquals(500, h.read().status());
                }
            }
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - before);
            long printed = s.stderr().lines().filter(l -> l.contains("handler of GET")).count();
            assertTrue(printed <= 2 + seconds + 1, printed + " lines for " + (FLOOD + failing.size())
                    + " failures in " + seconds + " s: rate limited to one a second");

            int total = FLOOD + failing.size();
            String text = scrape(metrics, total);
            assertEquals(total, MetricsIntegrationTest.sum(text, "m0serve_worker_handler_failures_total", ""), text);
            assertEquals(total, MetricsIntegrationTest.sum(text, "m0serve_requests_total", "code=\"5xx\""), text);
        } finally {
            Files.deleteIfExists(log);
            Files.deleteIfExists(dir);
        }
    }

    @Test
    @Timeout(120)
    void anOutOfMemoryErrorIsThatRequests500ThenTheWorkerLeavesAndIsReplaced() throws Exception {
        try (ServerProcess s = ServerProcess.start("--workers", "1", "--app", FailingApps.Throwing.class.getName())) {
            assertNotNull(s.awaitReady(60));
            long first = s.workerPid(0);
            assertEquals(500, get(s, "/oom").statusCode());
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            long next;
            while ((next = s.workerPid(0)) == first || next < 0) {
                assertTrue(System.nanoTime() - until < 0, "no replacement; stderr: " + s.stderr());
                Thread.sleep(20); // the supervisor's respawn, polled, bounded
            }
            assertNotEquals(first, next);
            assertTrue(s.stderr().contains("leaving as at SIGTERM, to be replaced: java.lang.OutOfMemoryError"), s.stderr());
            HttpResponse<String> ok = null;
            while (ok == null) {
                assertTrue(System.nanoTime() - until < 0, "the replacement never served; stderr: " + s.stderr());
                try {
                    ok = get(s, "/");
                } catch (IOException e) {
                    Thread.sleep(20); // the replacement is starting
                }
            }
            assertEquals(200, ok.statusCode());
        }
    }

    /**
     * {@code --main}: a handler that throws before its head is a 500 (the JDK's server closes
     * with no answer: a listed difference), one that throws after it is cut, marked so in the
     * access log; and each line's byte count is the body bytes the client received.
     */
    @Test
    @Timeout(120)
    void underMainFailuresAreSeenAndTheAccessLogCountsTheBytesReceived() throws Exception {
        Path dir = Files.createTempDirectory("m0-failures");
        Path log = dir.resolve("access.log");
        try (ServerProcess s = ServerProcess.start("--workers", "1", "--main", FailingApps.JdkMain.class.getName(),
                "--access-log", log.toString(), "--metrics-bind", "127.0.0.1:0")) {
            String metrics = s.awaitLine(METRICS, 30);
            assertNotNull(s.awaitReady(60));
            assertEquals(500, get(s, "/t/runtime").statusCode(), "today: an empty reply");
            assertEquals(500, get(s, "/t/stack").statusCode());
            assertEquals(500, get(s, "/t/ncdf").statusCode());

            Raw after = raw(s, "GET /after HTTP/1.1\r\nHost: t\r\n\r\n");
            assertTrue(after.head.startsWith("HTTP/1.1 200 "), after.head);
            Raw chunked = raw(s, "GET /chunked HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
            Raw head = raw(s, "HEAD /head HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
            Raw notModified = raw(s, "GET /304 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
            byte[] five = new byte[5 << 20];
            java.util.Arrays.fill(five, (byte) 'e');
            HttpResponse<byte[]> echo = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port + "/echo"))
                    .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofByteArray(five)).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(200, echo.statusCode());
            assertEquals(five.length, echo.body().length);

            List<String> lines = awaitLines(log, 8);
            assertTrue(lines.get(0).contains("\"GET /t/runtime HTTP/1.1\" 500 "), lines.get(0));
            assertTrue(lines.get(3).contains("\"GET /after HTTP/1.1\" 200 " + after.body.length + " ")
                    && lines.get(3).endsWith(" cut"), "the status and bytes the client saw, and the cut: " + lines.get(3)
                    + " (received " + after.body.length + ")");
            assertTrue(lines.get(4).contains("\"GET /chunked HTTP/1.1\" 200 " + chunked.body.length + " ")
                    && !lines.get(4).endsWith(" cut"), lines.get(4) + " (received " + chunked.body.length + ")");
            assertTrue(lines.get(5).contains("\"HEAD /head HTTP/1.1\" 200 0 "), lines.get(5));
            assertEquals(0, head.body.length);
            assertTrue(lines.get(6).contains("\"GET /304 HTTP/1.1\" 304 0 "), lines.get(6));
            assertEquals(0, notModified.body.length);
            assertTrue(lines.get(7).contains("\"POST /echo HTTP/1.1\" 200 " + five.length + " "),
                    "today: 200 0: " + lines.get(7));

            String text = scrape(metrics, 4);
            assertEquals(4, MetricsIntegrationTest.sum(text, "m0serve_worker_handler_failures_total", ""), text);
            assertEquals(3, MetricsIntegrationTest.sum(text, "m0serve_requests_total", "code=\"5xx\""), text);
            assertTrue(s.stderr().contains("handler of GET /t/runtime failed: java.lang.IllegalStateException: runtime"),
                    s.stderr());
        } finally {
            Files.deleteIfExists(log);
            Files.deleteIfExists(dir);
        }
    }

    /** The built-in app and an App's answers, fixed, streamed (chunked) and HEAD: the bytes received. */
    @Test
    @Timeout(120)
    void theBuiltInAppsAndAnAppsLinesCountTheBytesReceived() throws Exception {
        Path dir = Files.createTempDirectory("m0-failures");
        Path log = dir.resolve("access.log");
        try (ServerProcess s = ServerProcess.start("--workers", "1", "--app", FailingApps.Throwing.class.getName(),
                "--access-log", log.toString())) {
            assertNotNull(s.awaitReady(60));
            Raw fixed = raw(s, "GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
            Raw head = raw(s, "HEAD / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
            Raw stream = raw(s, "GET /stream HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
            List<String> lines = awaitLines(log, 3);
            assertTrue(fixed.body.length > 0);
            assertTrue(lines.get(0).contains("\"GET / HTTP/1.1\" 200 " + fixed.body.length + " "), lines.get(0));
            assertEquals(0, head.body.length);
            assertTrue(lines.get(1).contains("\"HEAD / HTTP/1.1\" 200 0 "), lines.get(1));
            assertTrue(stream.head.contains("Transfer-Encoding: chunked"), stream.head);
            assertTrue(lines.get(2).contains("\"GET /stream HTTP/1.1\" 200 " + stream.body.length + " "),
                    "a streamed App answer, as --main's: " + lines.get(2) + " (received " + stream.body.length + ")");
        } finally {
            Files.deleteIfExists(log);
            Files.deleteIfExists(dir);
        }
    }

    private HttpResponse<String> get(ServerProcess s, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port + path))
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** What a client received for one request on its own connection, read to the server's close. */
    private record Raw(String head, byte[] body) {
    }

    private static Raw raw(ServerProcess s, String request) throws IOException {
        try (Socket c = new Socket(InetAddress.getLoopbackAddress(), s.port)) {
            c.setSoTimeout(20_000);
            c.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            InputStream in = c.getInputStream();
            byte[] b = new byte[8192];
            for (int n; (n = in.read(b)) > 0; ) {
                all.write(b, 0, n);
            }
            byte[] a = all.toByteArray();
            String text = new String(a, StandardCharsets.ISO_8859_1);
            int end = text.indexOf("\r\n\r\n");
            assertTrue(end > 0, "no head: " + text);
            return new Raw(text.substring(0, end + 2), java.util.Arrays.copyOfRange(a, end + 4, a.length));
        }
    }

    /** The access log's lines once there are {@code n}: a worker writes its batch at its pass end. */
    private static List<String> awaitLines(Path log, int n) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        List<String> lines = List.of();
        while ((lines = Files.exists(log) ? Files.readAllLines(log) : List.of()).size() < n) {
            assertTrue(System.nanoTime() - until < 0, "access log: " + lines);
            Thread.sleep(10); // polling a file a process writes, bounded
        }
        return lines;
    }

    /** A scrape once the worker has published {@code failures} handler failures (its pass end), bounded. */
    private String scrape(String where, long failures) throws Exception {
        URI uri = URI.create("http://" + where + "/metrics");
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        String text;
        while (MetricsIntegrationTest.sum(text = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10))
                .build(), HttpResponse.BodyHandlers.ofString()).body(), "m0serve_worker_handler_failures_total", "")
                < failures) {
            assertTrue(System.nanoTime() - until < 0, text);
            Thread.sleep(20); // polling the scrape until the pass end is published, bounded
        }
        return text;
    }
}
