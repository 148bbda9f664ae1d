package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import m0.server.cli.Subcommands;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * {@code m0serve stats --json} of a serving server is JSON (parsed by Python's json module, a
 * parser this project did not write) with the page's fields per worker and the start-up times.
 */
class StatsJsonIntegrationTest {

    /** Prints the fields the test checks, one per line, or fails with the parser's message. */
    private static final String CHECK = String.join("\n",
            "import json, sys",
            "d = json.loads(sys.stdin.read())",
            "w = d['workers'][0]",
            "print(d['pid']); print(len(d['workers'])); print(w['state']); print(w['active']);",
            "print(sorted(w.keys())); print(d['ready_ms'] > 0); print(w['started_ms'] > 0)",
            "print(d['policy']); print(w['busy_per_mille'], w['full']); print(w['accepted'], w['busy_s'] > 0)",
            "print(w['keeping'], w['settled'])");

    @Test
    @Timeout(60)
    void statsJsonParsesWithTheExpectedFields() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(new java.io.File("/usr/bin/python3").canExecute()
                || "true".equals(System.getenv("CI")), "python3 missing");
        try (ServerProcess s = ServerProcess.start("--workers", "1")) {
            s.awaitReady(60);
            try (Http h = new Http(s.port)) {
                h.send(Http.get("/"));
                assertEquals(200, h.read().status());
            }
            // The worker's counters are published at the end of the pass that answered: bounded wait.
            long worker = s.workerPid(0);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (m0.server.stats.WorkerCounters.attach(worker).map(c -> c.word(m0.server.stats.WorkerCounters.ACCEPTED))
                    .orElse(0L) != 1) {
                assertTrue(System.nanoTime() - deadline < 0, "the accept never counted");
                Thread.sleep(5); // polling a condition, bounded by the deadline
            }
            StringWriter text = new StringWriter();
            CommandLine cl = Subcommands.commandLine();
            cl.setOut(new PrintWriter(text, true));
            cl.setErr(new PrintWriter(text, true));
            assertEquals(0, cl.execute("stats", "--pid", Long.toString(s.pid()), "--json"), text.toString());
            String json = text.toString().trim();
            assertEquals(1, json.lines().count(), json);

            Process py = new ProcessBuilder("python3", "-c", CHECK).redirectErrorStream(true).start();
            try {
                py.getOutputStream().write(json.getBytes(StandardCharsets.UTF_8));
                py.getOutputStream().close();
                String out = new String(py.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(py.waitFor(30, TimeUnit.SECONDS));
                assertEquals(0, py.exitValue(), out + "\n" + json);
                String[] f = out.split("\n");
                assertEquals(Long.toString(s.pid()), f[0]);
                assertEquals("1", f[1], "the lines in use (--workers 1): " + json);
                assertEquals("PARKED", f[2]);
                assertEquals("0", f[3]);
                assertEquals("['accepted', 'active', 'busy_per_mille', 'busy_s', 'empty_wakeups', 'forwarded', "
                        + "'full', 'in_pass_ms', 'index', 'keeping', 'looks', 'pending', 'pool_busy_s', 'rebalanced', 'received', "
                        + "'ring_calls', 'ring_sends', 'sendfile_bytes', 'sendfiles', 'sent', 'settled', 'started_ms', 'starts', 'state', 'taken', 'wakeups', "
                        + "'writes']", f[4]);
                assertEquals("True", f[5], "ready_ms");
                assertEquals("True", f[6], "started_ms");
                assertEquals("share", f[7], "the default policy");
                assertEquals("None None", f[8], "share publishes no busy word");
                assertEquals("1 True", f[9], "one fresh accept, and the loop's busy time (any policy)");
                assertEquals("False 0", f[10], "share's gate and its settled count (ADR 0059): one worker shares nothing");
            } finally {
                py.destroyForcibly();
            }
        }
    }
}
