package m0.server.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RateLimitedLogTest {

    private long now = 1_000;
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final RateLimitedLog log = new RateLimitedLog(new PrintStream(bytes, true, StandardCharsets.UTF_8),
            "w0: ", () -> now, RateLimitedLog.PERIOD_NANOS);

    private String[] lines() {
        String s = bytes.toString(StandardCharsets.UTF_8);
        return s.isEmpty() ? new String[0] : s.split("\n");
    }

    @Test
    void aFloodOfEventsPrintsOneLineASecondWithTheCount() {
        assertTrue(log.log("accept4(3): EMFILE"), "the first event prints at once");
        for (int k = 0; k < 10_000; k++) {
            now += 50_000; // 10 000 events over half a second
            assertFalse(log.log("accept4(3): EMFILE"));
        }
        assertEquals(1, lines().length);
        now = 1_000 + RateLimitedLog.PERIOD_NANOS;
        assertTrue(log.log("accept4(3): EMFILE"));
        assertEquals(2, lines().length);
        assertEquals("w0: accept4(3): EMFILE (and 10000 more in the last 1.0 s)", lines()[1]);
        assertEquals(10_002, log.total());
    }

    @Test
    void eventsASecondApartEachPrintWithoutACount() {
        log.log("a");
        now += 2 * RateLimitedLog.PERIOD_NANOS;
        log.log("b");
        assertEquals("w0: a", lines()[0]);
        assertEquals("w0: b", lines()[1]);
    }
}
