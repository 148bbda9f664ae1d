package m0.server.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/settings.md is what the declarations make: regenerated here and compared. */
class SettingsPageTest {

    /** The repository's docs/, from prod-server (the reactor runs tests in the module's directory). */
    private static final Path PAGE = Path.of("..", "docs", "settings.md");

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
