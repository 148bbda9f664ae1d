package m0.server.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import m0.server.launch.WorkerSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 46's "done when": a setting declared in one place, and nowhere else, is in --help, the
 * config file, the environment, the reference page, and the worker's parsed launch arguments.
 */
class ThrowawaySettingTest {

    private static final Setting THROWAWAY = Setting.number("throwaway-ms", 40, 1, 9000, "MS",
            "A setting declared by a test and nowhere else.");
    private static final Catalog WITH = Catalog.STANDARD.plus(THROWAWAY);

    @TempDir
    Path dir;

    @Test
    void itIsInTheHelpAndTheReferencePage() {
        String help = m0.server.cli.UsageAccess.text(WITH).replaceAll("\\s+", " "); // picocli wraps lines
        assertTrue(help.contains("--throwaway-ms=MS") || help.contains("--throwaway-ms MS"), help);
        assertTrue(help.contains("A setting declared by a test and nowhere else. (default: 40)"), help);
        assertTrue(SettingsPage.markdown(WITH).contains("| `--throwaway-ms MS` | `M0SERVE_THROWAWAY_MS` | `40` | 1..9000 |"),
                SettingsPage.markdown(WITH));
    }

    @Test
    void theFileTheEnvironmentAndTheCommandLineSetItInThatOrder() throws IOException {
        Path file = dir.resolve("m0serve.properties");
        Files.writeString(file, "throwaway-ms = 100\n");
        String[] config = {"--config", file.toString()};
        Values fromFile = SettingsReader.read(WITH, config, Map.of()).values();
        assertEquals(100, fromFile.number(THROWAWAY));
        assertEquals(Source.file(file.toString()), fromFile.source(THROWAWAY));

        Values fromEnv = SettingsReader.read(WITH, config, Map.of("M0SERVE_THROWAWAY_MS", "200")).values();
        assertEquals(200, fromEnv.number(THROWAWAY));
        assertEquals(Source.ENVIRONMENT, fromEnv.source(THROWAWAY));

        String[] both = {"--config", file.toString(), "--throwaway-ms", "300"};
        Values fromLine = SettingsReader.read(WITH, both, Map.of("M0SERVE_THROWAWAY_MS", "200")).values();
        assertEquals(300, fromLine.number(THROWAWAY));
        assertEquals(Source.COMMAND_LINE, fromLine.source(THROWAWAY));

        assertEquals(40, SettingsReader.read(WITH, new String[0], Map.of()).values().number(THROWAWAY), "its default");
    }

    @Test
    void aBadValueOfItIsOneLineNamingTheSource() {
        SettingsException e = org.junit.jupiter.api.Assertions.assertThrows(SettingsException.class,
                () -> SettingsReader.read(WITH, new String[0], Map.of("M0SERVE_THROWAWAY_MS", "0")));
        assertEquals("environment: M0SERVE_THROWAWAY_MS must be 1..9000, got '0'", e.getMessage());
    }

    @Test
    void theWorkerParsesItFromItsLaunchArguments() {
        Values v = SettingsReader.read(WITH, new String[] {"--throwaway-ms", "77"}, Map.of()).values();
        WorkerSpec spec = new WorkerSpec(0, 1, 1, WorkerSpec.LISTEN_FD, WorkerSpec.PAGE_FD, WorkerSpec.RECEIVE_FD,
                new int[] {6}, new int[0], false, List.of(), v);
        List<String> args = spec.toArgs();
        assertTrue(args.contains("throwaway-ms=77"), args.toString());
        WorkerSpec read = WorkerSpec.parse(args.toArray(new String[0]), WITH);
        assertEquals(77, read.settings().number(THROWAWAY));
        assertEquals(Source.LAUNCH, read.settings().source(THROWAWAY));
    }
}
