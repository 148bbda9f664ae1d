package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import m0.server.jnr.Processes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * m0serve started under {@code nohup} (which execs it with SIGHUP ignored) still reloads on
 * SIGHUP: the JVM keeps an inherited SIG_IGN unless the disposition is set back first.
 */
class InheritedSigIgnIntegrationTest {

    private static final int SIGHUP = 1;

    @Test
    @Timeout(90)
    void underNohupSighupStillReloads() throws Exception {
        try (ServerProcess s = ServerProcess.start(List.of("/usr/bin/nohup"), Map.of(), "--workers", "1")) {
            assertNotNull(s.awaitReady(30), "ready");
            long before = s.workerPid(0);
            assertTrue(before > 0, "worker 0 found");
            assertTrue(Processes.kill((int) s.pid(), SIGHUP));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            long after = before;
            while (System.nanoTime() - deadline < 0 && (after == before || after <= 0)) {
                Thread.sleep(50); // polling the process table, bounded by the deadline
                after = s.workerPid(0);
            }
            assertTrue(s.stderr().contains("SIGHUP: reloading"), "no reload after SIGHUP under nohup: " + s.stderr());
            assertNotEquals(before, after, "worker 0 was not replaced by the reload");
            assertTrue(s.process.isAlive(), "the supervisor survived");
        }
    }
}
