package m0.server.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The supervisor's environment, parsed once: what an unset or a set variable means. */
class SupervisorKnobsTest {

    @Test
    void anEmptyEnvironmentMeansNoCapAndTheDefaultWorkerOptions() {
        Map<String, String> env = Map.of();
        SupervisorKnobs k = SupervisorKnobs.from(env, "512m", null);
        assertEquals(Integer.MAX_VALUE, k.maxRespawns());
        assertEquals(JavaCommand.DEFAULT_OPTS + " -Xmx512m", k.workerJavaOpts());
        assertSame(env, k.environment(), "the same map: the workers inherit it as read");
    }

    @Test
    void theVariablesAreReadAsGivenAndOptionsAdded() {
        SupervisorKnobs k = SupervisorKnobs.from(Map.of("M0_TEST_MAX_RESPAWNS", " 0 "), "1g", "-Xshare:off");
        assertEquals(0, k.maxRespawns());
        assertEquals(JavaCommand.DEFAULT_OPTS + " -Xmx1g -Xshare:off", k.workerJavaOpts());
        assertEquals(Integer.MAX_VALUE, SupervisorKnobs.from(Map.of("M0_TEST_MAX_RESPAWNS", " "), "512m", "").maxRespawns());
    }
}
