package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import m0.server.it.TlsEngineClient.End;
import m0.server.jnr.Processes;
import m0.server.tls.TestCertificates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The leaver's rule for pinned connections (ADR 0069), on the real binary with TLS and two
 * workers: a TLS connection cannot move, so a leaver closes each of its idle ones gracefully
 * (close_notify, then FIN; not a bare FIN, not a reset), and finishes a request in flight
 * first. The leave is the rolling reload's (SIGHUP), which asks worker 0 to leave once its
 * replacement has started; the /sleep sent before the SIGHUP is in flight long before that.
 */
@Timeout(240)
class TlsLeaverIntegrationTest {

    private static final int READY_MS = 60_000;
    private static final int WAIT_SECONDS = 90;
    private static final int CONNECTIONS = 8;

    @Test
    void aLeaverFinishesTheRequestInFlightAndClosesItsIdleTlsConnectionsWithCloseNotify() throws Exception {
        TestCertificates rsa = TestCertificates.make("RSA");
        // A grace (60 s) longer than the 20 s /sleep, which the leaver would cut at the grace's end.
        try (ServerProcess s = ServerProcess.start("--workers", "2", "--grace-ms", "60000",
                "--tls-cert", rsa.cert.toString(), "--tls-key", rsa.key.toString())) {
            PageWatch.of(s).awaitReady(READY_MS);
            long leaver = s.workerPid(0);
            long stayer = s.workerPid(1);
            List<TlsEngineClient> all = new ArrayList<>();
            try {
                Map<Long, List<TlsEngineClient>> byWorker = new TreeMap<>();
                for (int i = 0; i < CONNECTIONS; i++) {
                    TlsEngineClient c = TlsEngineClient.open(rsa.clientContext(), s.port, WAIT_SECONDS * 1000);
                    all.add(c);
                    long pid = Long.parseLong(c.ask("/pid").split(" ")[0]);
                    byWorker.computeIfAbsent(pid, k -> new ArrayList<>()).add(c);
                }
                List<TlsEngineClient> atLeaver = byWorker.getOrDefault(leaver, List.of());
                List<TlsEngineClient> atStayer = byWorker.getOrDefault(stayer, List.of());
                assertTrue(atLeaver.size() >= 2 && !atStayer.isEmpty(),
                        "share lands connections on both workers: " + byWorker.keySet() + " sizes "
                                + byWorker.values().stream().map(List::size).toList());

                TlsEngineClient busy = atLeaver.get(0);
                List<TlsEngineClient> idle = atLeaver.subList(1, atLeaver.size());
                busy.send("/sleep?ms=20000");
                CompletableFuture<String> answer = CompletableFuture.supplyAsync(() -> {
                    try {
                        return busy.readAnswer();
                    } catch (IOException e) {
                        return "failed: " + e;
                    }
                });
                assertTrue(Processes.kill((int) s.pid(), 1 /* SIGHUP */));
                String leaving = "m0serve: reload: worker 0 (pid " + leaver + ") leaving";
                ServerLog.await("worker 0 asked to leave", () -> ServerLog.of(s).contains(leaving), s, WAIT_SECONDS);

                for (TlsEngineClient c : idle) {
                    assertEquals(End.CLOSE_NOTIFY_THEN_FIN, c.end(), () -> "an idle TLS connection at the leaver\n" + ServerLog.of(s));
                }
                assertFalse(answer.isDone(), "the /sleep was still in flight when the idle ones were closed: "
                        + answer.getNow(null));
                for (TlsEngineClient c : atStayer) {
                    assertEquals(stayer + " 1", c.ask("/pid"), "the other worker's connections are served on");
                }
                assertEquals("slept 20000 ms", answer.get(WAIT_SECONDS, TimeUnit.SECONDS),
                        () -> "the request in flight answered in full:\n" + ServerLog.of(s));
                assertEquals(End.CLOSE_NOTIFY_THEN_FIN, busy.end(), "then its connection closed the same way, once idle");

                ServerLog.await("worker 0 gone", () -> ProcessHandle.of(leaver).map(h -> !h.isAlive()).orElse(true), s, WAIT_SECONDS);
                try (TlsEngineClient fresh = TlsEngineClient.open(rsa.clientContext(), s.port, WAIT_SECONDS * 1000)) {
                    long served = Long.parseLong(fresh.ask("/pid").split(" ")[0]);
                    assertNotEquals(leaver, served);
                    assertTrue(s.descendants().stream().anyMatch(h -> h.pid() == served),
                            "a new connection is served by a live worker: " + served);
                }
            } finally {
                for (TlsEngineClient c : all) {
                    c.close();
                }
            }
        }
    }
}
