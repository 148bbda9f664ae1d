package m0.server.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import m0.server.settings.ServerSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A running supervisor's setting, in the settings' own order: command line, environment, config file. */
class RunningSettingsTest {

    @TempDir
    Path cwd;

    private static final List<String> JAVA = List.of("java", "-Xmx64m", "-cp", "x.jar", "m0.server.cli.M0serve");

    private Optional<String> workers(List<String> extraArgs, List<String> env) throws Exception {
        List<String> args = new java.util.ArrayList<>(JAVA);
        args.addAll(extraArgs);
        return RunningSettings.valueIn(args, env, cwd, ServerSettings.WORKERS);
    }

    @Test
    void theCommandLineComesFirstThenTheEnvironmentThenTheFile() throws Exception {
        Files.writeString(cwd.resolve("m0.properties"), "workers = 3\n");
        List<String> env = List.of("HOME=/x", "M0SERVE_WORKERS= 2 ", "M0SERVE_CONFIG=m0.properties");
        assertEquals(Optional.of("4"), workers(List.of("--workers", "4"), env));
        assertEquals(Optional.of("5"), workers(List.of("--workers=5"), env));
        assertEquals(Optional.of("2"), workers(List.of(), env), "stripped, as the server reads it");
        assertEquals(Optional.of("3"), workers(List.of(), List.of("M0SERVE_CONFIG=m0.properties")),
                "the file M0SERVE_CONFIG names, relative to the server's working directory");
        assertEquals(Optional.of("3"), workers(List.of("--config", "m0.properties"), List.of()), "or --config");
    }

    @Test
    void nothingSetIsEmptyAndTheAppsOwnArgumentsAreNotTheServers() throws Exception {
        assertEquals(Optional.empty(), workers(List.of(), List.of("PATH=/bin")));
        assertEquals(Optional.empty(), workers(List.of("--main", "A", "--", "--workers", "9"), List.of()));
    }
}
