package m0.server.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** docs/settings.md is what the declarations make: regenerated here and compared. */
class SettingsPageTest {

    /** The repository's docs/, from prod-server (the reactor runs tests in the module's directory). */
    private static final Path PAGE = Path.of("..", "docs", "settings.md");

    /** The packaged config file, docs/deploy/m0serve.conf: what the service runs with. */
    private static final Path CONF = Path.of("..", "docs", "deploy", "m0serve.conf");

    /** What the package sets; everything else is left at its default, commented. */
    static final Map<String, String> PACKAGED = new LinkedHashMap<>();

    static {
        PACKAGED.put("workers", "2");
        PACKAGED.put("metrics-bind", "127.0.0.1:9464");
        PACKAGED.put("access-log", "/var/log/m0serve/access.log");
    }

    @Test
    void thePackagedConfigFileIsInStepAndReadsAsTheServerReadsIt() throws IOException {
        String made = SettingsPage.configFile(Catalog.STANDARD, PACKAGED);
        if (Boolean.getBoolean("m0.settings.write")) {
            Files.writeString(CONF, made, StandardCharsets.UTF_8);
        }
        String file = Files.exists(CONF) ? Files.readString(CONF, StandardCharsets.UTF_8) : "";
        assertEquals(made, file, "docs/deploy/m0serve.conf differs from the declarations; regenerate it as "
                + "docs/settings.md's header says");
        // The server reads it as it would the operator's: each packaged value from the file, and
        // every commented line, uncommented, a valid setting at its default.
        SettingsReader.Parsed parsed = SettingsReader.read(Catalog.STANDARD,
                new String[] {"--config", CONF.toString()}, Map.of());
        for (Map.Entry<String, String> e : PACKAGED.entrySet()) {
            Setting s = Catalog.STANDARD.named(e.getKey());
            assertEquals(e.getValue(), parsed.values().text(s), e.getKey());
            assertEquals(Source.file(CONF.toString()), parsed.values().source(s), e.getKey());
        }
        Path uncommented = Files.createTempFile("m0serve-", ".conf");
        try {
            Files.writeString(uncommented, file.replaceAll("(?m)^# ([a-z-]+ =)", "$1"), StandardCharsets.UTF_8);
            SettingsReader.read(Catalog.STANDARD, new String[] {"--config", uncommented.toString()}, Map.of());
        } finally {
            Files.delete(uncommented);
        }
    }

    @Test
    void theReferencePageIsInStepWithTheDeclarations() throws IOException {
        String made = SettingsPage.markdown(Catalog.STANDARD);
        if (Boolean.getBoolean("m0.settings.write")) {
            Files.writeString(PAGE, made, StandardCharsets.UTF_8);
        }
        String page = Files.exists(PAGE) ? Files.readString(PAGE, StandardCharsets.UTF_8) : "";
        assertEquals(made, page, "docs/settings.md differs from the declarations; regenerate it as its header says");
    }
}
