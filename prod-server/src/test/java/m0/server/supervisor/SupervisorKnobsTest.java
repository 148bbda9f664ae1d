package m0.server.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the supervisor is handed beside its settings: the respawn cap, the workers' JVM options, the environment. */
class SupervisorKnobsTest {

    @Test
    void unlimitedRespawnsAndTheDefaultWorkerOptions() {
        Map<String, String> env = Map.of("M0_TEST_MAX_RESPAWNS", "0");
        SupervisorKnobs k = SupervisorKnobs.of(env, -1, "512m", null);
        assertEquals(Integer.MAX_VALUE, k.maxRespawns(), "no variable sets a cap any more");
        assertEquals(JavaCommand.DEFAULT_OPTS + " -Xmx512m", k.workerJavaOpts());
        assertSame(env, k.environment(), "the same map: the workers inherit it as read");
    }

    @Test
    void aCapAndOptionsAddedAfterTheDefaults() {
        SupervisorKnobs k = SupervisorKnobs.of(Map.of(), 0, "1g", "-Xshare:off");
        assertEquals(0, k.maxRespawns());
        assertEquals(JavaCommand.DEFAULT_OPTS + " -Xmx1g -Xshare:off", k.workerJavaOpts());
    }
}
