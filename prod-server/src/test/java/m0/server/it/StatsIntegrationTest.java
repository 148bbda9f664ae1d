package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import m0.core.PageLayout;
import m0.server.cli.Subcommands;
import m0.server.probe.Shape;
import m0.server.probe.SpreadProbe;
import m0.server.stats.PageSnapshot;
import m0.server.stats.WorkerLine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * {@code m0serve stats} against a serving server: while a known burst is held open, the page
 * it prints matches what the clients saw.
 */
@Timeout(90)
class StatsIntegrationTest {

    private static final int READY_MS = 30_000;
    private static final int PUBLISH_MS = 30_000; // a deadline only a hang reaches

    /** Runs {@code m0serve stats args} in this JVM; returns exit status and output (stdout + stderr). */
    private static Map.Entry<Integer, String> stats(String... args) {
        StringWriter text = new StringWriter();
        PrintWriter out = new PrintWriter(text, true);
        CommandLine cl = Subcommands.commandLine();
        cl.setOut(out);
        cl.setErr(out);
        List<String> all = new ArrayList<>(List.of("stats"));
        all.addAll(List.of(args));
        int status = cl.execute(all.toArray(String[]::new));
        out.flush();
        return Map.entry(status, text.toString());
    }

    /** The table's rows by worker index: the columns after the index, split on blanks. */
    private static Map<Integer, String[]> rows(String table) {
        Map<Integer, String[]> rows = new TreeMap<>();
        for (String line : table.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length == 9 && f[0].matches("\\d+")) { // worker ... forwarded busy
                rows.put(Integer.parseInt(f[0]), f);
            }
        }
        return rows;
    }

    @Test
    void statsPrintsThePageOfAServingServerMatchingAHeldBurst() throws Exception {
        // Rebalance off: a connection moved between the clients' /pid and the page read would
        // make "the page agrees with what the clients saw" a race (RebalanceIntegrationTest
        // reads the rebalanced line with moves).
        try (ServerProcess server = ServerProcess.start("--workers", "2", "--rebalance", "off")) {
            String pid = Long.toString(server.pid());
            Map.Entry<Integer, String> ready = stats("--pid", pid, "--wait-ready-ms", Integer.toString(READY_MS));
            assertEquals(0, ready.getKey(), ready.getValue());
            Map<Integer, String[]> idle = rows(ready.getValue());
            assertEquals(2, idle.size(), ready.getValue());
            for (String[] row : idle.values()) {
                assertEquals("PARKED", row[1], "an idle started worker is parked:\n" + ready.getValue());
            }

            PageWatch page = PageWatch.of(server);
            PageSnapshot before = page.awaitQuiescent(PUBLISH_MS);
            SpreadProbe probe = new SpreadProbe(new InetSocketAddress("127.0.0.1", server.port), 10_000);
            probe.round(Shape.BURST, 32, 2); // warm-up (JIT), closed again
            page.awaitQuiescent(PUBLISH_MS);
            PageSnapshot base = page.read();
            long burstSent;
            long burstReceived;
            long served0;
            try (SpreadProbe.Held burst = probe.open(Shape.BURST, 32)) {
                long[] served = new long[2];
                for (int w : burst.workerOfEach()) {
                    served[w]++;
                }
                // active is published at the end of the pass that served each; wait for all 32.
                PageSnapshot held = page.await("showing 32 active", s -> s.totalActive() == 32, PUBLISH_MS);
                Map.Entry<Integer, String> printed = stats("--pid", pid);
                assertEquals(0, printed.getKey(), printed.getValue());
                assertTrue(printed.getValue().contains("rebalanced (idle connections moved, live workers): w0=0 w1=0"),
                        "the per-worker rebalance counts, none moved:\n" + printed.getValue());
                Map<Integer, String[]> row = rows(printed.getValue());
                assertEquals(2, row.size(), printed.getValue());
                // Fresh accepts, per worker, on the listener line: the warm-up round and this burst.
                Matcher listener = Pattern.compile("(?m)^listener .*: w0=(\\d+)/\\d+/0/\\d+/[0-9.]+ w1=(\\d+)/\\d+/0/\\d+/[0-9.]+$")
                        .matcher(printed.getValue());
                assertTrue(listener.find(), "the listener line, no looks under share:\n" + printed.getValue());
                assertEquals(64, Long.parseLong(listener.group(1)) + Long.parseLong(listener.group(2)),
                        "accepted, both rounds:\n" + printed.getValue());
                for (int i = 0; i < 2; i++) {
                    assertEquals("-", row.get(i)[8], "share publishes no busy word:\n" + printed.getValue());
                    WorkerLine line = held.worker(i);
                    assertEquals(served[i], line.active(), "worker " + i + " active vs served:\n" + held.format());
                    assertEquals(Long.toString(served[i]), row.get(i)[2], "printed active of " + i + ":\n"
                            + printed.getValue());
                    // Retired at the end of the pass that admitted them: nothing in flight now.
                    assertEquals(0, line.pending(), held.format());
                    assertEquals(0, line.taken(), held.format());
                    assertTrue(line.started() && line.state() != PageLayout.LEFT, held.format());
                }
                // (Whether the split is exactly even is SpreadIntegrationTest's question, with its
                // witnesses; here the page must agree with whatever the clients saw.)
                assertEquals(32, served[0] + served[1]);
                // What a worker received this burst it serves: received <= served, per worker.
                for (int i = 0; i < 2; i++) {
                    long got = held.worker(i).received() - base.worker(i).received();
                    assertTrue(got >= 0 && got <= served[i], "worker " + i + " received " + got + " of its "
                            + served[i] + ":\n" + held.format());
                    assertEquals(Long.toString(held.worker(i).sent()), row.get(i)[5], printed.getValue());
                    assertEquals(Long.toString(held.worker(i).received()), row.get(i)[6], printed.getValue());
                }
                served0 = served[0];
                burstSent = held.totalSent() - base.totalSent();
                burstReceived = held.totalReceived() - base.totalReceived();
            }
            PageSnapshot after = page.awaitQuiescent(PUBLISH_MS);
            assertEquals(0, after.rehomed(), after.format());
            assertEquals(0, after.lost(), after.format());
            // Every hand-off of the burst was received: accepted + received - sent = served, summed.
            assertEquals(burstSent, burstReceived, "sent vs received this burst:\n" + after.format());
            assertEquals(after.totalSent(), after.totalReceived(), "every hand-off received:\n" + after.format());
            assertTrue(before.totalSent() <= after.totalSent());
            System.out.printf("stats test: burst of 32 served %d/%d, %d handed off%n%s", served0, 32 - served0,
                    burstSent, after.format());
        }
    }

    @Test
    void statsOnAProcessWithoutAPageExitsOneNamingTheMemfd() {
        Map.Entry<Integer, String> r = stats("--pid", Long.toString(ProcessHandle.current().pid()));
        assertEquals(1, r.getKey(), r.getValue());
        assertTrue(r.getValue().contains("memfd:m0-page"), r.getValue());
    }
}
