package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bad flag on a real JVM: one line, exit 2, nothing started. main() reads plain server flags
 * without picocli (docs/adr/0027) and hands anything it cannot serve to picocli, which must
 * still be the one that answers.
 */
@Timeout(90)
class CommandLineIntegrationTest {

    @TempDir
    Path dir;

    private record Result(int status, String out, String err) {
    }

    private Result run(String... args) throws Exception {
        File out = dir.resolve("out").toFile();
        File err = dir.resolve("err").toFile();
        Process p = new ProcessBuilder(ServerProcess.command(args)).redirectOutput(out).redirectError(err).start();
        try {
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "m0serve " + String.join(" ", args) + " exits by itself");
            return new Result(p.exitValue(), Files.readString(out.toPath(), StandardCharsets.UTF_8),
                    Files.readString(err.toPath(), StandardCharsets.UTF_8));
        } finally {
            ServerProcess.kill(p);
        }
    }

    @Test
    void aValueThePlainPathReadsButConfigRejectsIsAnsweredByPicocli() throws Exception {
        Result r = run("--bind", "127.0.0.1:0", "--workers", "0");
        assertEquals(2, r.status(), r.err());
        assertEquals("m0serve: --workers must be 1..256, got 0 (see --help)", r.err().strip());
        assertEquals("", r.out(), "nothing listens");
    }

    @Test
    void aFlagThePlainPathDeclinesIsAnsweredByPicocli() throws Exception {
        Result r = run("--bind", "127.0.0.1:0", "--workers", "1", "--workers", "2");
        assertEquals(2, r.status(), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().startsWith("m0serve: ") && r.err().contains("--workers"), r.err());
        assertEquals("", r.out());
    }
}
