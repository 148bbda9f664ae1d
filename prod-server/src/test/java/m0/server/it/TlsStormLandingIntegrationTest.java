package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import m0.server.tls.TestCertificates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 47's "where a storm of keep-alive clients lands", on the real binary: 64 TLS
 * connections opened at once, each handshaking as soon as it connects, so the workers run
 * their handshakes while the storm is still being accepted (ADR 0069, addendum); then, all
 * open, each asks /pid. Share lands them 32/32 in each of three storms on a fresh server, and
 * every connection answers again from the worker that answered first. Before the addendum a
 * handshake stamped its pass like a view, the siblings' picks passed over a worker inside its
 * handshakes, and such storms landed 52/12, 44/20.
 */
@Timeout(240)
class TlsStormLandingIntegrationTest {

    private static final int CONNECTIONS = 64;
    private static final int STORMS = 3;

    @Test
    void aStormOfSixtyFourTlsConnectionsLandsThirtyTwoThirtyTwo() throws Exception {
        TestCertificates rsa = TestCertificates.make("RSA"); // RSA signs slowest: the longest handshakes
        try (ServerProcess server = ServerProcess.start("--workers", "2", "--idle-timeout-ms", "120000",
                "--tls-cert", rsa.cert.toString(), "--tls-key", rsa.key.toString())) {
            PageWatch.of(server).awaitReady(30_000);
            List<String> workers = server.descendants().stream().map(h -> Long.toString(h.pid())).sorted().toList();
            SSLSocketFactory f = rsa.clientContext().getSocketFactory();
            List<String> landings = new ArrayList<>();
            for (int storm = 0; storm < STORMS; storm++) {
                Map<String, Integer> perPid = storm(f, server.port);
                assertEquals(workers, List.copyOf(perPid.keySet()), "storm " + storm + " served by both workers");
                landings.add(perPid.values().toString());
            }
            assertEquals(java.util.Collections.nCopies(STORMS, "[32, 32]"), landings, "per worker, storm by storm (pids in order)");
        }
    }

    /**
     * One storm: CONNECTIONS threads released together each connect and handshake (TLS 1.3);
     * once all are open each asks /pid twice. Answers per pid; closed after the last answer.
     */
    private static Map<String, Integer> storm(SSLSocketFactory f, int port) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        CyclicBarrier allOpen = new CyclicBarrier(CONNECTIONS);
        CyclicBarrier allAsked = new CyclicBarrier(CONNECTIONS);
        ExecutorService pool = Executors.newFixedThreadPool(CONNECTIONS);
        try {
            List<Future<String>> answers = new ArrayList<>();
            for (int i = 0; i < CONNECTIONS; i++) {
                answers.add(pool.submit(() -> {
                    go.await();
                    try (Socket s = new Socket()) {
                        s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
                        s.setSoTimeout(60_000);
                        SSLSocket t = (SSLSocket) f.createSocket(s, "localhost", port, true);
                        t.setEnabledProtocols(new String[] {"TLSv1.3"});
                        t.startHandshake();
                        allOpen.await(60, TimeUnit.SECONDS); // every connection open before any asks
                        String first = KeepAliveAsk.body(t, "/pid").split(" ")[0];
                        allAsked.await(60, TimeUnit.SECONDS); // still all open: each answers again, where it was
                        String again = KeepAliveAsk.body(t, "/pid").split(" ")[0];
                        assertEquals(first, again, "a connection answered by one worker, then another");
                        return first;
                    }
                }));
            }
            go.countDown();
            Map<String, Integer> perPid = new TreeMap<>();
            for (Future<String> a : answers) {
                perPid.merge(a.get(120, TimeUnit.SECONDS), 1, Integer::sum);
            }
            return perPid;
        } finally {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS), "the storm's threads ended");
        }
    }
}
