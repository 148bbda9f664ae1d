package m0.server.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The worker's default JVM options are what production runs, and every integration test replaces
 * them (C1 only, a small heap): so a flag this JDK rejects would pass every other test and stop
 * every worker at its first start. This runs the machine's java with the defaults.
 */
class JavaCommandTest {

    @Test
    @Timeout(30)
    void thisJdkStartsAWorkerJvmWithTheDefaultOptions() throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(JavaCommand.workerPrefix(JavaCommand.DEFAULT_OPTS));
        argv.add("-version"); // in place of the main class: the JVM starts, says its version and exits
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(20, TimeUnit.SECONDS), argv + " did not exit: " + out);
            assertEquals(0, p.exitValue(), argv + " said:\n" + out);
        } finally {
            p.destroyForcibly();
        }
    }

    /** The class-data dump runs the java the launcher's supervisor runs: the one given process's binary, not this JVM's. */
    @Test
    @Timeout(30)
    void theJavaOfAProcessIsItsOwnBinary() throws IOException {
        Process p = new ProcessBuilder("sleep", "20").start(); // a binary that is surely not this JVM's
        try {
            String expected = java.nio.file.Path.of("/proc/" + p.pid() + "/exe").toRealPath().toString();
            assertEquals(expected, JavaCommand.javaOf(p.toHandle()));
            assertEquals(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toRealPath().toString(),
                    java.nio.file.Path.of(JavaCommand.javaOf(ProcessHandle.current())).toRealPath().toString(),
                    "a worker's: its supervisor's own java");
        } finally {
            p.destroyForcibly();
        }
    }
}
