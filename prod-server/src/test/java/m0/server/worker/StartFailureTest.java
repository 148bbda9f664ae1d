package m0.server.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import m0.core.AtomicLongArrayPage;
import m0.core.Page;
import org.junit.jupiter.api.Test;

/**
 * Workers of one server that fail alike at start-up print the app's exception once between them
 * (the page's START_FAILED word); a different failure is still printed in full.
 */
class StartFailureTest {

    private static StartFailure initThrew(String inner) {
        // Made in separate calls, as separate JVMs would: same classes and messages, other objects.
        return new StartFailure("app X: init threw", new IllegalStateException("outer", new NullPointerException(inner)));
    }

    @Test
    void workersFailingAlikePrintTheCauseOnceAndEachItsLine() {
        Page page = AtomicLongArrayPage.forWorkers(3);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        for (int i = 0; i < 3; i++) {
            initThrew("url is null").report("m0serve worker " + i, page, err);
        }
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(1, count(out, "Caused by: java.lang.NullPointerException: url is null"), out);
        assertEquals(1, count(out, "java.lang.IllegalStateException: outer"), out);
        assertEquals(3, count(out, ": the app cannot start: app X: init threw (exit 78, not respawned)"), out);
        assertEquals(2, count(out, "as printed once by a sibling"), out);
    }

    @Test
    void aDifferentFailureIsPrintedInFull() {
        Page page = AtomicLongArrayPage.forWorkers(2);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        initThrew("url is null").report("m0serve worker 0", page, err);
        initThrew("disk is full").report("m0serve worker 1", page, err);
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(2, count(out, "Caused by:"), out);
        assertTrue(out.contains("disk is full") && out.contains("url is null"), out);
    }

    @Test
    void withoutACauseItIsOneLine() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        new StartFailure("--main M returned without starting an HttpServer", null)
                .report("m0serve worker 0", AtomicLongArrayPage.forWorkers(1), err);
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertEquals("m0serve worker 0: the app cannot start: --main M returned without starting an HttpServer"
                + " (exit 78, not respawned)" + System.lineSeparator(), out);
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
