package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import m0.core.AcceptShare;
import m0.server.probe.Shape;
import m0.server.stats.PageSnapshot;
import m0.server.stats.WorkerCounters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Share's gate on the real binary (ADR 0041, 0044): under connection-close load the default policy
 * keeps what it accepts (the workers that carry the load publish KEEPING and hand nothing off), and once that
 * load stops keep-alive bursts of 32 land 16/16 (rounds judged as SpreadIntegrationTest judges them).
 */
@Timeout(120)
class LoadShapeIntegrationTest {

    private static final byte[] CLOSE_REQUEST = "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            .getBytes(StandardCharsets.ISO_8859_1);
    /** Bounded: at most this many connections (the bound that counts), at most this long (only a hang reaches it). */
    private static final int CLOSE_LOAD_MAX = 20_000;
    private static final long CLOSE_LOAD_NANOS = 60_000_000_000L;
    /** Connections asked between two readings of who accepted them. */
    private static final int SPELL = 200;
    /** The keeping workers' share of a spell's accepts that says the load is kept where it lands. */
    private static final int KEEPERS_SHARE_PERCENT = 90;

    @Test
    void closeLoadIsKeptWhereItLandsAndAKeepAliveBurstAfterItLandsExact() throws Exception {
        try (ServerProcess server = ServerProcess.start("--workers", "2")) {
            PageWatch page = PageWatch.of(server);
            page.awaitReady(30_000);
            // Spells of connection-close load, until the workers that carry it keep (bounded in count
            // and time). One client asking in turn is accepted mostly by one worker; since ADR 0044 a
            // worker keeps within 32 short closes of a window. A sibling that the kernel hands only a
            // trickle (below the entry rate, 32 a window) has no evidence and needs none: its few
            // hand-offs are not what the gate saves (CI once saw 90 of 17 950 accepted by the other).
            long end = System.nanoTime() + CLOSE_LOAD_NANOS;
            int n = 0;
            boolean carriersKeep = false;
            long[] accepted = accepted(server);
            String lastSpell = "";
            while (n < CLOSE_LOAD_MAX && System.nanoTime() - end < 0 && !carriersKeep) {
                for (int k = 0; k < SPELL; k++, n++) {
                    closeRequest(server.port);
                }
                long[] now = accepted(server);
                PageSnapshot s = page.read();
                carriersKeep = keepersCarry(s, accepted, now);
                lastSpell = "last spell accepted: w0=" + (now[0] - accepted[0]) + " w1=" + (now[1] - accepted[1]) + "\n";
                accepted = now;
            }
            assertTrue(carriersKeep, "after " + n + " connection-close requests the workers that carry them keep ("
                    + KEEPERS_SHARE_PERCENT + " % of a spell's accepts or more):\n" + lastSpell
                    + page.read().format() + WorkerCounters.format(server.pid()));
            // While keeping, a further spell: a keeping worker hands nothing off.
            PageSnapshot keepingFrom = page.read();
            for (int k = 0; k < 200; k++) {
                closeRequest(server.port);
            }
            PageSnapshot keepingTo = page.read();
            for (int i = 0; i < 2; i++) {
                if (keeping(keepingFrom, i)) {
                    assertEquals(keepingFrom.worker(i).sent(), keepingTo.worker(i).sent(), "worker " + i
                            + ", keeping, handed off:\n" + keepingFrom.format() + keepingTo.format());
                }
            }
            // The load stops: within a second or two both balance again, and a keep-alive burst lands exact.
            page.await("both workers balancing again", s -> !keeping(s, 0) && !keeping(s, 1), 3_000);
            // Judged as the spread test judges it: exact rounds, a round outside the protocol's
            // exactness promise (a sibling passed over in a slow pass) voided and re-run, bounded.
            SpreadIntegrationTest.assertEvenRounds(server, page, Shape.BURST, 32, 2);
            assertTrue(!keeping(page.read(), 0) && !keeping(page.read(), 1), "the bursts kept it balancing");
        }
    }

    /**
     * Some worker keeps, and the keeping workers accepted at least {@link #KEEPERS_SHARE_PERCENT} of the
     * spell's connections (each worker's memfd ACCEPTED before and after it, the page's KEEPING).
     */
    private static boolean keepersCarry(PageSnapshot s, long[] before, long[] after) {
        long all = 0;
        long kept = 0;
        for (int i = 0; i < 2; i++) {
            long spell = after[i] - before[i];
            all += spell;
            if (keeping(s, i)) {
                kept += spell;
            }
        }
        return all > 0 && kept * 100 >= all * KEEPERS_SHARE_PERCENT;
    }

    private static long[] accepted(ServerProcess server) {
        Map<Integer, WorkerCounters> counters = WorkerCounters.ofLiveWorkers(server.pid());
        long[] accepted = new long[2];
        for (int i = 0; i < 2; i++) {
            WorkerCounters c = counters.get(i);
            accepted[i] = c == null ? 0 : c.word(WorkerCounters.ACCEPTED);
        }
        return accepted;
    }

    private static boolean keeping(PageSnapshot s, int worker) {
        return (s.worker(worker).busy() & AcceptShare.KEEPING_BIT) != 0;
    }

    private static void closeRequest(int port) throws Exception {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
            socket.setSoTimeout(2_000);
            OutputStream out = socket.getOutputStream();
            out.write(CLOSE_REQUEST);
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] buf = new byte[4096];
            while (in.read(buf) >= 0) {
                // to the server's close
            }
        }
    }
}
