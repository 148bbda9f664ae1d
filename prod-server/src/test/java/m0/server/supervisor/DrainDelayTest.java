package m0.server.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@code --drain-delay-ms}: when a requested stop may begin, and what the delay says and turns 503. */
class DrainDelayTest {

    private static final long MS = 1_000_000;
    private final ByteArrayOutputStream said = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(said, true, StandardCharsets.UTF_8);
    private final Health health = new Health();

    @Test
    void withoutADelayTheStopBeginsAtOnceAndSaysNothing() {
        DrainDelay d = new DrainDelay(0, health, out);
        assertTrue(d.over(5 * MS, "SIGTERM", 1));
        assertFalse(d.begun(), "nothing to poll");
        assertEquals(Health.State.STARTING, health.state(), "/readyz is the stop's to turn");
        assertEquals("", said.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aDelayTurnsReadyz503AtOnceAndHoldsTheStopUntilItsEnd() {
        health.serving();
        DrainDelay d = new DrainDelay(300, health, out);
        long start = -7 * MS; // any System.nanoTime, negative included
        assertFalse(d.over(start, "SIGTERM", 1), "the first ask starts the delay");
        assertTrue(d.begun());
        assertEquals(Health.State.STOPPING, health.state());
        assertFalse(d.over(start + 299 * MS, "SIGTERM", 1), "still serving");
        assertTrue(d.over(start + 300 * MS, "SIGTERM", 1), "the delay is over");
        assertEquals("m0serve: SIGTERM: /readyz 503, serving 300 ms more before the stop (--drain-delay-ms; "
                + "a second signal stops now)" + System.lineSeparator(), said.toString(StandardCharsets.UTF_8), "said once");
    }

    @Test
    void aSecondStopSignalEndsTheDelay() {
        DrainDelay d = new DrainDelay(60_000, health, out);
        assertFalse(d.over(0, "SIGINT", 1));
        assertFalse(d.over(MS, "SIGINT", 1));
        assertTrue(d.over(2 * MS, "SIGINT", 2));
        assertTrue(said.toString(StandardCharsets.UTF_8).startsWith("m0serve: SIGINT: /readyz 503, serving 60000 ms"));
    }
}
