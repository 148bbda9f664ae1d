package m0.server.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import m0.server.http.Request;
import m0.server.log.RateLimitedLog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The access log's line format, its batching (nothing before a flush) and its reopen. */
class AccessLogTest {

    @TempDir
    Path dir;

    private static final long NOON = 1_764_590_400_000L; // 2025-12-01T12:00:00Z

    @Test
    void combinedFormatPlusMicrosAndIndexWithClientTextEscaped() throws Exception {
        Path file = dir.resolve("a.log");
        AccessLog log = new AccessLog(file.toString(), 3, new RateLimitedLog(new java.io.PrintStream(
                new java.io.ByteArrayOutputStream()), "t: "));
        log.log("10.0.0.1", Request.of("GET", "/x?y=1", new byte[0], "Referer", "http://r/", "User-Agent", "a\"b\u0001"),
                200, 13, 41, NOON);
        log.log("::1", null, 400, 0, 7, NOON);
        assertEquals(0, Files.size(file), "lines wait for the pass's end");
        log.flush();
        List<String> lines = Files.readAllLines(file);
        assertEquals(List.of(
                "10.0.0.1 - - [01/Dec/2025:12:00:00 +0000] \"GET /x?y=1 HTTP/1.1\" 200 13 \"http://r/\" \"a\\x22b\\x01\" 41 3",
                "::1 - - [01/Dec/2025:12:00:00 +0000] \"-\" 400 0 \"-\" \"-\" 7 3"), lines);
        log.close();
    }

    @Test
    void aReopenAfterARenameWritesANewFileAndTheBatchBeforeItToTheOld() throws Exception {
        Path file = dir.resolve("a.log");
        Path old = dir.resolve("a.log.1");
        AccessLog log = new AccessLog(file.toString(), 0, new RateLimitedLog(System.err, "t: "));
        log.log("1.2.3.4", null, 400, 0, 1, NOON);
        Files.move(file, old);
        log.requestReopen();
        log.flush();
        assertEquals(1, Files.readAllLines(old).size());
        assertEquals(0, Files.size(file));
        log.log("1.2.3.4", null, 400, 0, 1, NOON);
        log.close();
        assertEquals(1, Files.readAllLines(file).size());
        assertEquals(1, Files.readAllLines(old).size());
    }

    @Test
    void aHugeTargetIsCutAndManyLinesFlushWhenTheBufferFills() throws Exception {
        Path file = dir.resolve("a.log");
        AccessLog log = new AccessLog(file.toString(), 0, new RateLimitedLog(System.err, "t: "));
        Request big = Request.of("GET", "/" + "x".repeat(100_000), new byte[0]);
        for (int i = 0; i < 100; i++) {
            log.log("1.2.3.4", big, 200, 0, 1, NOON);
        }
        assertTrue(Files.size(file) > 0, "a full buffer is written before the pass ends");
        log.close();
        List<String> lines = Files.readAllLines(file);
        assertEquals(100, lines.size());
        assertTrue(lines.get(0).length() < AccessLog.FIELD_MAX + 200, "cut: " + lines.get(0).length());
    }
}
