package m0.server.it;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/** Command-line tools the tests drive (openssl, ...), found on PATH. */
final class Tools {

    private Tools() {
    }

    /** A tool on PATH; without it the test is skipped on a developer's machine and fails in CI (.ci/run installs it). */
    static Path onPath(String name) {
        for (String dir : System.getenv("PATH").split(File.pathSeparator)) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        String msg = name + " not found on PATH; .ci/run installs it";
        if ("true".equals(System.getenv("CI"))) {
            fail(msg);
        }
        Assumptions.abort(msg);
        return null;
    }
}
