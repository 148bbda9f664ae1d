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
 * A bad setting on a real JVM, from the command line, the environment or the config file: one
 * line naming the source and the setting, exit 2, nothing started (docs/adr/0065).
 */
@Timeout(90)
class CommandLineIntegrationTest {

    @TempDir
    Path dir;

    private record Result(int status, String out, String err) {
    }

    private Result run(String... args) throws Exception {
        return run(java.util.Map.of(), args);
    }

    private Result run(java.util.Map<String, String> env, String... args) throws Exception {
        File out = dir.resolve("out").toFile();
        File err = dir.resolve("err").toFile();
        ProcessBuilder pb = new ProcessBuilder(ServerProcess.command(args)).redirectOutput(out).redirectError(err);
        pb.environment().keySet().removeIf(k -> k.startsWith("M0SERVE_"));
        pb.environment().putAll(env);
        Process p = pb.start();
        try {
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "m0serve " + String.join(" ", args) + " exits by itself");
            return new Result(p.exitValue(), Files.readString(out.toPath(), StandardCharsets.UTF_8),
                    Files.readString(err.toPath(), StandardCharsets.UTF_8));
        } finally {
            ServerProcess.kill(p);
        }
    }

    @Test
    void aBadValueOnTheCommandLineIsOneLine() throws Exception {
        Result r = run("--bind", "127.0.0.1:0", "--workers", "0");
        assertEquals(2, r.status(), r.err());
        assertEquals("m0serve: --workers must be 1..256, got '0' (see --help)", r.err().strip());
        assertEquals("", r.out(), "nothing listens");
    }

    @Test
    void aBadValueInTheEnvironmentOrTheFileNamesBoth() throws Exception {
        Result env = run(java.util.Map.of("M0SERVE_MAX_HEADER_BYTES", "7"), "--bind", "127.0.0.1:0");
        assertEquals(2, env.status(), env.err());
        assertEquals("m0serve: environment: M0SERVE_MAX_HEADER_BYTES must be 256..2147483647, got '7'", env.err().strip());
        Path file = dir.resolve("m0serve.properties");
        Files.writeString(file, "# a comment\nworkers = 2\nrebalance = maybe\n");
        Result f = run("--bind", "127.0.0.1:0", "--config", file.toString());
        assertEquals(2, f.status(), f.err());
        assertEquals("m0serve: config file " + file + ": rebalance must be on or off, got 'maybe'", f.err().strip());
        assertEquals("", f.out(), "nothing listens");
    }

    @Test
    void aRepeatedFlagIsOneLine() throws Exception {
        Result r = run("--bind", "127.0.0.1:0", "--workers", "1", "--workers", "2");
        assertEquals(2, r.status(), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().startsWith("m0serve: ") && r.err().contains("--workers"), r.err());
        assertEquals("", r.out());
    }
}
