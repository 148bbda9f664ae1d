package m0.server.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one reader: each source, their precedence, and what each says when it is wrong. */
class SettingsReaderTest {

    @TempDir
    Path dir;

    private Path file(String text) throws IOException {
        Path f = dir.resolve("m0serve.properties");
        Files.writeString(f, text);
        return f;
    }

    private static String problem(Map<String, String> env, String... args) {
        return assertThrows(SettingsException.class, () -> SettingsReader.read(Catalog.STANDARD, args, env)).getMessage();
    }

    @Test
    void commandLineThenEnvironmentThenFileThenDefault() throws IOException {
        Path f = file("workers = 3\ngrace-ms = 300\nidle-timeout-ms = 3000\n");
        Values v = SettingsReader.read(Catalog.STANDARD, new String[] {"--config", f.toString(), "--workers", "5"},
                Map.of("M0SERVE_WORKERS", "4", "M0SERVE_GRACE_MS", "400", "PATH", "/bin")).values();
        assertEquals(5, v.integer(ServerSettings.WORKERS));
        assertEquals(Source.COMMAND_LINE, v.source(ServerSettings.WORKERS));
        assertEquals(400, v.number(ServerSettings.GRACE_MS));
        assertEquals(Source.ENVIRONMENT, v.source(ServerSettings.GRACE_MS));
        assertEquals(3000, v.number(ServerSettings.IDLE_TIMEOUT_MS));
        assertEquals(Source.file(f.toString()), v.source(ServerSettings.IDLE_TIMEOUT_MS));
        assertEquals(16384, v.integer(ServerSettings.MAX_HEADER_BYTES));
        assertEquals(Source.DEFAULT, v.source(ServerSettings.MAX_HEADER_BYTES));
    }

    @Test
    void theFileCanBeNamedByTheEnvironmentAndAnEmptyValueUnsetsText() throws IOException {
        Path f = file("access-log =\nmetrics-bind = 127.0.0.1:0\n");
        Values v = SettingsReader.read(Catalog.STANDARD, new String[0],
                Map.of("M0SERVE_CONFIG", f.toString(), "M0SERVE_ACCESS_LOG", "-")).values();
        assertEquals("-", v.text(ServerSettings.ACCESS_LOG), "the environment wins over the file's empty value");
        assertEquals("127.0.0.1:0", v.text(ServerSettings.METRICS_BIND));
        assertNull(SettingsReader.read(Catalog.STANDARD, new String[] {"--config", f.toString()}, Map.of()).values()
                .text(ServerSettings.ACCESS_LOG));
    }

    @Test
    void eachSourceNamesItselfAndTheSetting() throws IOException {
        assertEquals("--grace-ms must be 0 or more, got '-5' (see --help)", problem(Map.of(), "--grace-ms", "-5"));
        assertEquals("environment: M0SERVE_REBALANCE must be on or off, got 'yes'",
                problem(Map.of("M0SERVE_REBALANCE", "yes")));
        Path f = file("blocking-threads = many\n");
        assertEquals("config file " + f + ": blocking-threads must be 0..1024, got 'many'",
                problem(Map.of(), "--config", f.toString()));
        assertEquals("config file " + f + ": blocking-threads must be 0..1024, got 'many'",
                problem(Map.of(), "--config", f.toString(), "--blocking-threads", "1"),
                "wrong in the file even where the command line wins");
        Path typo = file("worker = 2\n");
        assertEquals("config file " + typo + ": worker is not a setting (docs/settings.md)",
                problem(Map.of(), "--config", typo.toString()));
        assertEquals(java.util.List.of("environment: M0SERVE_WORKER is not a setting, ignored (docs/settings.md)"),
                SettingsReader.read(Catalog.STANDARD, new String[0], Map.of("M0SERVE_WORKER", "2")).warnings(),
                "said, not fatal: scripts export their own M0SERVE_JAR");
        String missing = problem(Map.of(), "--config", dir.resolve("none.properties").toString());
        assertEquals(true, missing.startsWith("--config cannot be read: java.nio.file.NoSuchFileException"), missing);
    }

    @Test
    void aDevelopersSettingIsTakenFromTheCommandLineOnly() throws IOException {
        assertEquals("0", SettingsReader.read(Catalog.STANDARD, new String[] {"--dev-main-start-ms", "0"}, Map.of())
                .values().text(ServerSettings.DEV_MAIN_START_MS));
        assertEquals("environment: M0SERVE_DEV_MAIN_START_MS is a developer's setting: command line only (--dev-main-start-ms)",
                problem(Map.of("M0SERVE_DEV_MAIN_START_MS", "5")));
        Path f = file("dev-main-start-ms = 5\n");
        assertEquals("config file " + f + ": dev-main-start-ms is a developer's: command line only",
                problem(Map.of(), "--config", f.toString()));
        Path nested = file("config = /etc/other\n");
        assertEquals("config file " + nested + ": config cannot be set in the file",
                problem(Map.of(), "--config", nested.toString()));
    }
}
