package m0.server.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.List;
import java.util.Map;
import m0.server.launch.WorkerSpec;
import m0.server.settings.Catalog;
import m0.server.settings.SettingsReader;
import org.junit.jupiter.api.Test;

/** The developer settings reach a worker through its launch arguments, and their defaults are production's. */
class WorkerKnobsDefaultsTest {

    private static WorkerKnobs knobsOf(String... args) {
        WorkerSpec spec = new WorkerSpec(1, 2, 1, WorkerSpec.LISTEN_FD, WorkerSpec.PAGE_FD, WorkerSpec.RECEIVE_FD,
                new int[] {6, 7}, new int[0], false, List.of(),
                SettingsReader.read(Catalog.STANDARD, args, Map.of()).values());
        return WorkerKnobs.from(WorkerSpec.parse(spec.toArgs().toArray(new String[0])).settings());
    }

    @Test
    void noDeveloperSettingIsProduction() {
        assertEquals(WorkerKnobs.NONE, knobsOf());
    }

    @Test
    void eachFaultAndArmArrivesThroughTheLaunchArguments() {
        WorkerKnobs k = knobsOf("--dev-arm-gap-ms", "300", "--dev-arm-gap-index", "1", "--dev-die-at-start-index", "0",
                "--dev-look-late-ms", "2", "--dev-keep-received-registered", "on", "--dev-hold-sent-copy-ms", "5",
                "--dev-hide-held", "on", "--dev-eager-read", "on", "--dev-listen-exclusive", "off",
                "--dev-warm-up", "off", "--dev-ring-sends", "off", "--dev-pair-at", "0", "--dev-pair-reread", "9");
        assertEquals(new WorkerKnobs(true, false, false, 300, 1, 0, 2_000_000, true, 5_000_000, true, false, 0, 9), k);
        assertEquals(300, k.armGapMillis(1));
        assertEquals(0, k.armGapMillis(0), "only the index asked for is held");
        assertNotEquals(WorkerKnobs.NONE, k);
    }
}
