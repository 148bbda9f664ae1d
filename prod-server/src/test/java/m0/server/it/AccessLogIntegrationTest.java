package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import m0.server.jnr.Processes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code --access-log}: one combined-format line per request (plus µs and the worker index);
 * after the file is renamed and the supervisor gets SIGUSR1, new lines go to a new file at
 * the path and none to the renamed one (logrotate's convention).
 */
class AccessLogIntegrationTest {

    private static final Pattern LINE = Pattern.compile(
            "^127\\.0\\.0\\.1 - - \\[\\d{2}/\\w{3}/\\d{4}:\\d{2}:\\d{2}:\\d{2} \\+0000\\] \"GET /[^ ]* HTTP/1\\.1\" "
                    + "(200|404) \\d+ \"[^\"]*\" \"[^\"]*\" \\d+ 0$");

    @Test
    @Timeout(90)
    void aLinePerRequestAndAReopenOnSigusr1() throws Exception {
        Path dir = Files.createTempDirectory("m0-access");
        Path log = dir.resolve("access.log");
        Path rotated = dir.resolve("access.log.1");
        try (ServerProcess s = ServerProcess.start("--workers", "1", "--access-log", log.toString())) {
            s.awaitReady(60);
            try (Http h = new Http(s.port)) {
                for (int k = 0; k < 4; k++) {
                    h.send(Http.get("/?k=" + k));
                    assertEquals(200, h.read().status());
                }
                h.send("GET /missing HTTP/1.1\r\nHost: x\r\nReferer: http://r/\r\nUser-Agent: t\"q\r\n\r\n");
                assertEquals(404, h.read().status());
            }
            List<String> lines = awaitLines(log, 5);
            for (String l : lines) {
                assertTrue(LINE.matcher(l).matches(), l);
            }
            assertTrue(lines.get(4).contains("\"GET /missing HTTP/1.1\" 404 ") && lines.get(4).contains("\"http://r/\" \"t\\x22q\""),
                    lines.get(4));

            Files.move(log, rotated);
            assertTrue(Processes.kill((int) s.pid(), Processes.SIGUSR1));
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!Files.exists(log) && System.nanoTime() - until < 0) {
                Thread.sleep(10); // the worker reopens (creates) the path at its next pass: polled, bounded
            }
            assertTrue(Files.exists(log), "no new file after SIGUSR1");
            try (Http h = new Http(s.port)) {
                for (int k = 0; k < 3; k++) {
                    h.send(Http.get("/?after"));
                    assertEquals(200, h.read().status());
                }
            }
            assertEquals(3, awaitLines(log, 3).size());
            assertEquals(5, Files.readAllLines(rotated).size(), "a line went to the renamed file");
        } finally {
            Files.deleteIfExists(log);
            Files.deleteIfExists(rotated);
            Files.deleteIfExists(dir);
        }
    }

    /** The file's lines once it has {@code n} (polled: a batch is written at the pass's end), bounded. */
    private static List<String> awaitLines(Path file, int n) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        List<String> lines = List.of();
        while (System.nanoTime() - until < 0) {
            lines = Files.exists(file) ? Files.readAllLines(file) : List.of();
            if (lines.size() >= n) {
                break;
            }
            Thread.sleep(10); // polling the file, bounded by the deadline
        }
        assertEquals(n, lines.size(), String.join("\n", lines));
        return lines;
    }
}
