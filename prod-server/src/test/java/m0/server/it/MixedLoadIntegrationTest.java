package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import m0.core.AcceptShare;
import m0.server.probe.Shape;
import m0.server.probe.SpreadProbe;
import m0.server.stats.PageSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A mixed load on the real binary (ADR 0059): while connection-close clients churn, the workers
 * keep what they accept (ADR 0041), so a keep-alive burst lands as the race lands it; once its
 * connections are reused they are settled, and the keeping workers move them until 16/16,
 * while the churn goes on. Before ADR 0059 they stayed as they landed until the churn stopped.
 */
class MixedLoadIntegrationTest {

    private static final byte[] CLOSE_REQUEST = "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            .getBytes(StandardCharsets.ISO_8859_1);
    private static final int PROBE_TIMEOUT_MS = 10_000;
    /** Connection-close clients, each asking in turn: enough that both workers see churn. */
    private static final int CHURNERS = 2;
    /** The churn's bounds: at most this many connections in all, at most this long (past the test's timeout). */
    private static final long CHURN_MAX = 5_000_000;
    private static final long CHURN_NANOS = TimeUnit.SECONDS.toNanos(150);
    /** A churn client's connection that stalls this long on this shared machine is dropped and counted, not fatal. */
    private static final int CHURN_TIMEOUT_MS = 5_000;
    /** A skew of 16 drains in tens of ms of moves (printed per round); only a hang reaches this. */
    private static final long SETTLE_MS = 30_000;
    private static final int ROUNDS = 3;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aKeepAliveBurstDuringConnectionCloseLoadIsEvenedWhileTheLoadRuns() throws Exception {
        try (ServerProcess s = ServerProcess.start("--workers", "2", "--idle-timeout-ms", "120000")) {
            assertNotNull(s.awaitReady(30), "ready line");
            PageWatch page = PageWatch.of(s);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong closes = new AtomicLong();
            AtomicLong churnFailures = new AtomicLong();
            List<Thread> churn = new ArrayList<>();
            for (int k = 0; k < CHURNERS; k++) {
                Thread t = new Thread(() -> churn(s.port, stop, closes, churnFailures), "churn-" + k);
                t.start();
                churn.add(t);
            }
            List<String> seen = new ArrayList<>();
            try {
                // Both keep: where one balanced, its own look (open counts) would move connections too.
                page.await("both workers keeping under the churn", p -> keeping(p, 0) && keeping(p, 1), 15_000);
                SpreadProbe probe = new SpreadProbe(new InetSocketAddress("127.0.0.1", s.port), PROBE_TIMEOUT_MS);
                for (int round = 0; round < ROUNDS; round++) {
                    try (SpreadProbe.Held held = probe.open(Shape.BURST, 32)) {
                        Map<Integer, Integer> landed = counts(held.workerOfEach()); // their second request: settled
                        PageSnapshot during = page.read();
                        long closesBefore = closes.get();
                        long t0 = System.nanoTime();
                        Map<Integer, Integer> now;
                        do { // at least once: a burst that landed 16/16 must stay so under the churn
                            Thread.sleep(50);
                            now = counts(held.workerOfEach()); // the clients keep asking: each ask reuses
                        } while (!now.equals(Map.of(0, 16, 1, 16))
                                && System.nanoTime() - t0 < TimeUnit.MILLISECONDS.toNanos(SETTLE_MS));
                        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                        seen.add(landed.values() + " -> " + now.values() + " in " + ms + " ms ("
                                + (closes.get() - closesBefore) + " closes meanwhile, keeping: w0 " + keeping(during, 0)
                                + " w1 " + keeping(during, 1) + ")");
                        assertTrue(closes.get() > closesBefore, "the churn ran on while they moved: " + seen);
                        assertTrue(keeping(during, 0) && keeping(during, 1), "both workers kept while they landed: " + seen);
                        assertEquals(Map.of(0, 16, 1, 16), now, "round " + round + ", every connection answering: " + seen
                                + "\n" + page.read().format() + RebalanceIntegrationTest.stats(s.pid()));
                        // stats shows it too: the 32 are the settled ones (the churn's never are).
                        page.await("stats showing 16 settled on each", p -> p.format().contains(
                                "settled (reused keep-alive connections held): w0=16 w1=16"), SETTLE_MS);
                    }
                }
            } finally {
                stop.set(true);
                for (Thread t : churn) {
                    t.join(10_000);
                }
            }
            System.out.println("mixed load, keep-alive bursts of 32 during connection-close churn (landed -> evened): "
                    + seen + "; " + closes.get() + " connection-close requests (" + churnFailures.get() + " dropped)\n"
                    + RebalanceIntegrationTest.stats(s.pid()));
        }
    }

    /**
     * One connection-close client asking in turn, bounded in count and time, until {@code stop}.
     * A connection that fails (a stall past its timeout on this shared machine) is counted and
     * the next one tried: the test judges the keep-alive spread, and that the churn ran on.
     */
    private static void churn(int port, AtomicBoolean stop, AtomicLong closes, AtomicLong failures) {
        long deadline = System.nanoTime() + CHURN_NANOS;
        byte[] buf = new byte[4096];
        while (!stop.get() && System.nanoTime() - deadline < 0 && closes.get() < CHURN_MAX) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), CHURN_TIMEOUT_MS);
                socket.setSoTimeout(CHURN_TIMEOUT_MS);
                OutputStream out = socket.getOutputStream();
                out.write(CLOSE_REQUEST);
                out.flush();
                InputStream in = socket.getInputStream();
                while (in.read(buf) >= 0) {
                    // to the server's close
                }
                closes.incrementAndGet();
            } catch (java.io.IOException e) {
                failures.incrementAndGet();
            }
        }
    }

    private static boolean keeping(PageSnapshot s, int worker) {
        return (s.worker(worker).busy() & AcceptShare.KEEPING_BIT) != 0;
    }

    private static Map<Integer, Integer> counts(List<Integer> who) {
        Map<Integer, Integer> perWorker = new TreeMap<>(Map.of(0, 0, 1, 0));
        who.forEach(w -> perWorker.merge(w, 1, Integer::sum));
        return perWorker;
    }
}
