package m0.server.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import m0.server.log.RateLimitedLog;
import org.junit.jupiter.api.Test;

/** ADR 0061's choices: which errors retire the worker, once, and how a failure is told. */
class FailedHandlersTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final long[] clock = {0};
    private int leaves;
    private final FailedHandlers failed = new FailedHandlers(
            new RateLimitedLog(new PrintStream(out, true, StandardCharsets.UTF_8), "w0: ", () -> clock[0], 1_000),
            () -> leaves++);

    @Test
    void aHandlersStackOverflowAndOtherErrorsAreTheRequestsOnly() {
        failed.failed(null, new StackOverflowError());
        clock[0] += 1_000;
        failed.failed(null, new NoClassDefFoundError("Gone"));
        clock[0] += 1_000;
        failed.failed(null, new AssertionError("x"));
        assertEquals(0, leaves);
        assertFalse(failed.retiring());
        assertEquals(3, failed.count());
    }

    @Test
    void aHandlersOutOfMemoryErrorRetiresTheWorkerOnce() {
        failed.failed(null, new OutOfMemoryError("Java heap space"));
        failed.failed(null, new OutOfMemoryError("again"));
        assertEquals(1, leaves, "one leave");
        assertTrue(failed.retiring());
        assertEquals(2, failed.count());
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("leaving as at SIGTERM, to be replaced: "
                + "java.lang.OutOfMemoryError: Java heap space"), out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void theLoopsOwnErrorRetiresTheWorkerAndASecondEndsTheProcess() {
        failed.loopFailed(new StackOverflowError());
        assertEquals(1, leaves);
        StackOverflowError second = new StackOverflowError();
        assertSame(second, assertThrows(StackOverflowError.class, () -> failed.loopFailed(second)));
        assertEquals(1, leaves);
    }

    @Test
    void theLogPrintsTheCauseChainOnceASecond() {
        for (int k = 0; k < 100; k++) {
            failed.failed(null, new IllegalStateException("outer", new IllegalArgumentException("inner")));
        }
        String log = out.toString(StandardCharsets.UTF_8);
        assertEquals(1, log.lines().filter(l -> l.startsWith("w0: handler of - failed: ")).count(), log);
        assertTrue(log.contains("Caused by: java.lang.IllegalArgumentException: inner"), log);
        clock[0] += 1_000;
        failed.failed(null, new IllegalStateException("later"));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("(and 99 more in the last"), out.toString(StandardCharsets.UTF_8));
        assertEquals(101, failed.count());
    }
}
