package m0.server.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The server's code reads the environment in one place ({@link Environment}) and names no test
 * hook or A/B variable (docs/adr/0065): a fault or an arm is a {@code dev-*} setting.
 */
class NoEnvironmentReadsTest {

    private static final Path MAIN = Path.of("src", "main", "java");
    /** The build's CDS training (not the server's path) runs the java the launcher would: $JAVA. */
    private static final List<String> ALLOWED = List.of("m0/server/settings/Environment.java",
            "m0/server/cds/CdsTraining.java");
    private static final List<String> OLD_NAMES = List.of("M0_TEST_", "M0_EAGER_READ", "M0_LISTEN_EXCLUSIVE",
            "M0_WARM_UP", "M0_RING_SENDS", "M0_PAIR", "M0_ACCEPT_SHARE", "M0_WORKER_JAVA_OPTS", "M0_START_TRACE");

    @Test
    void onlyTheSettingsModelReadsTheEnvironment() throws IOException {
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(MAIN)) {
            for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java"))::iterator) {
                String rel = MAIN.relativize(f).toString().replace('\\', '/');
                String text = Files.readString(f);
                if (text.contains("System.getenv(") && !ALLOWED.contains(rel)) {
                    found.add(rel + ": System.getenv");
                }
                for (String name : OLD_NAMES) {
                    if (text.contains(name)) {
                        found.add(rel + ": " + name);
                    }
                }
            }
        }
        assertEquals(List.of(), found);
    }
}
