package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import m0.server.jnr.Processes;
import m0.server.tls.TestCertificates;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * SIGHUP and the TLS files (ADR 0069, issue 47 item 4), on the real binary with one worker: a
 * renewed certificate is served by the replacement, and a request in flight on the old worker is
 * answered before its connection is closed; files that do not load at the SIGHUP keep the old
 * worker serving, are said in one line, and abandon the reload (the next SIGHUP, with good
 * files, reloads as usual).
 */
@Timeout(240)
class TlsReloadIntegrationTest {

    private static final int READY_MS = 60_000;
    private static final long WAIT_SECONDS = 90;
    /** The certificate the server starts with, and the renewal put in its place. */
    private static TestCertificates first;
    private static TestCertificates renewed;

    @BeforeAll
    static void certificates() throws Exception {
        first = TestCertificates.make("RSA");
        renewed = TestCertificates.make("RSA");
        assertFalse(serial(first).equals(serial(renewed)), "keytool gives each certificate its own serial");
    }

    /**
     * The files are replaced while a /sleep is in flight on a keep-alive TLS connection, then
     * SIGHUP: the old worker is asked to leave while the request is still running, answers it in
     * full, then closes that connection (EOF here: an SSLSocket cannot tell a close_notify from a bare
     * FIN, so how it ends is TlsLeaverIntegrationTest's); new connections get the
     * renewed certificate from the replacement.
     */
    @Test
    void sighupServesTheRenewedCertificateAndAnswersTheRequestInFlightFirst() throws Exception {
        Path dir = Files.createTempDirectory("m0-tls-reload-");
        install(first, dir);
        try (ServerProcess s = start(dir)) {
            long old = s.workerPid(0);
            assertEquals(serial(first), serialSeen(s));
            try (SSLSocket kept = open(s)) {
                assertEquals(old + " 0", ask(kept, "/pid"), "the kept connection is the old worker's");
                KeepAliveAsk.send(kept, "/sleep?ms=20000");
                CompletableFuture<String> answer = CompletableFuture.supplyAsync(() -> {
                    try {
                        return readAnswer(kept.getInputStream());
                    } catch (IOException e) {
                        return "failed: " + e;
                    }
                });
                install(renewed, dir); // as a renewal does: new files at the same paths
                assertTrue(Processes.kill((int) s.pid(), 1 /* SIGHUP */));
                String leaving = "m0serve: reload: worker 0 (pid " + old + ") leaving";
                ServerLog.await("the old worker asked to leave", () -> ServerLog.of(s).contains(leaving), s, WAIT_SECONDS);
                assertFalse(answer.isDone(), "the /sleep was still in flight when the worker was asked to leave: "
                        + answer.getNow(null));
                assertEquals("slept 20000 ms", answer.get(WAIT_SECONDS, TimeUnit.SECONDS),
                        () -> "answered in full:\n" + ServerLog.of(s));
                assertEquals(-1, kept.getInputStream().read(), "then closed (how: TlsLeaverIntegrationTest)");
            }
            ServerLog.await("the old worker gone", () -> ProcessHandle.of(old).map(h -> !h.isAlive()).orElse(true), s, WAIT_SECONDS);
            assertEquals(serial(renewed), serialSeen(s), "the replacement serves the renewed certificate");
            try (SSLSocket fresh = open(s)) {
                assertEquals(s.workerPid(1) + " 1", ask(fresh, "/pid"));
            }
            assertFalse(ServerLog.of(s).contains("exited 78"), ServerLog.of(s));
            assertEquals(0, stop(s), "a clean stop after the reload");
        }
    }

    /**
     * Files that do not load at the SIGHUP (a garbage certificate; a key that is not the
     * certificate's): one line saying which and why, no replacement started, the old worker
     * serves on with the old certificate. The next SIGHUP with good files reloads: the bad one
     * left nothing queued or retried. A stop still exits 0.
     */
    @ParameterizedTest
    @ValueSource(strings = {"garbage certificate", "key of another certificate"})
    void filesThatDoNotLoadAtSighupKeepTheOldWorkerAndSayWhyOnce(String fault) throws Exception {
        Path dir = Files.createTempDirectory("m0-tls-badreload-");
        install(first, dir);
        try (ServerProcess s = start(dir)) {
            long old = s.workerPid(0);
            if (fault.startsWith("garbage")) {
                Files.writeString(dir.resolve("cert.pem"), "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n"
                        + "-----END CERTIFICATE-----\n");
            } else {
                Files.copy(renewed.key, dir.resolve("key.pem"), StandardCopyOption.REPLACE_EXISTING);
            }
            assertTrue(Processes.kill((int) s.pid(), 1 /* SIGHUP */));
            String abandoned = "keeping the running workers; reload abandoned";
            ServerLog.await("the reload abandoned", () -> ServerLog.of(s).contains(abandoned), s, WAIT_SECONDS);
            List<String> said = ServerLog.of(s).lines().filter(l -> l.contains(dir.toString())).toList();
            assertEquals(1, said.size(), "one line names the file: " + ServerLog.of(s));
            assertTrue(said.get(0).startsWith("m0serve: SIGHUP: --tls-"), said.get(0));
            assertTrue(said.get(0).endsWith(abandoned), said.get(0));
            assertFalse(ServerLog.of(s).contains("starting"), "no replacement started: " + ServerLog.of(s));
            assertEquals(List.of(old), s.descendants().stream().map(ProcessHandle::pid).toList());
            assertEquals(serial(first), serialSeen(s), "the old worker serves the old certificate");

            install(renewed, dir);
            assertTrue(Processes.kill((int) s.pid(), 1 /* SIGHUP */));
            ServerLog.await("the old worker gone", () -> ProcessHandle.of(old).map(h -> !h.isAlive()).orElse(true), s, WAIT_SECONDS);
            assertEquals(serial(renewed), serialSeen(s), "the next SIGHUP reloads");
            assertEquals(1, ServerLog.of(s).lines().filter(l -> l.contains(abandoned)).count(), "abandoned once, not retried");
            assertEquals(0, stop(s), "the exit status is unchanged");
        }
    }

    // ---- helpers

    /** One worker; a grace (60 s) longer than the 20 s /sleep, which a leaver would cut at the grace's end. */
    private static ServerProcess start(Path dir) throws Exception {
        ServerProcess s = ServerProcess.start("--workers", "1", "--grace-ms", "60000", "--tls-cert", dir.resolve("cert.pem").toString(),
                "--tls-key", dir.resolve("key.pem").toString());
        PageWatch.of(s).awaitReady(READY_MS);
        return s;
    }

    /** Copies the pair to dir/cert.pem and dir/key.pem, each by an atomic rename. */
    private static void install(TestCertificates c, Path dir) throws IOException {
        for (Path[] p : new Path[][] {{c.cert, dir.resolve("cert.pem")}, {c.key, dir.resolve("key.pem")}}) {
            Path tmp = dir.resolve(p[1].getFileName() + ".new");
            Files.copy(p[0], tmp, StandardCopyOption.REPLACE_EXISTING);
            Files.move(tmp, p[1], StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
    }

    private static BigInteger serial(TestCertificates c) {
        return ((X509Certificate) c.certificate).getSerialNumber();
    }

    /** A new connection's server certificate serial; trusts either test certificate. */
    private static BigInteger serialSeen(ServerProcess s) throws Exception {
        try (SSLSocket t = open(s)) {
            return ((X509Certificate) t.getSession().getPeerCertificates()[0]).getSerialNumber();
        }
    }

    private static SSLSocket open(ServerProcess s) throws Exception {
        javax.net.ssl.SSLContext trustBoth = javax.net.ssl.SSLContext.getInstance("TLS");
        java.security.KeyStore trust = java.security.KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("first", first.certificate);
        trust.setCertificateEntry("renewed", renewed.certificate);
        javax.net.ssl.TrustManagerFactory tmf =
                javax.net.ssl.TrustManagerFactory.getInstance(javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        trustBoth.init(null, tmf.getTrustManagers(), null);
        Socket raw = new Socket();
        raw.connect(new InetSocketAddress("127.0.0.1", s.port), 10_000);
        raw.setSoTimeout((int) TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        SSLSocket t = (SSLSocket) trustBoth.getSocketFactory().createSocket(raw, "localhost", s.port, true);
        t.startHandshake();
        return t;
    }

    private static String ask(Socket s, String path) throws IOException {
        KeepAliveAsk.send(s, path);
        return readAnswer(s.getInputStream());
    }

    /** The body of a 200 answer (Content-Length), stripped. */
    private static String readAnswer(InputStream in) throws IOException {
        String head = KeepAliveAsk.head(in);
        assertTrue(head.startsWith("HTTP/1.1 200 "), head);
        return KeepAliveAsk.bodyAfter(head, in);
    }

    /** SIGTERM; the supervisor's exit status. */
    private static int stop(ServerProcess s) throws Exception {
        assertTrue(s.process.isAlive(), "the server is up until the stop: " + ServerLog.of(s));
        assertTrue(Processes.kill((int) s.pid(), 15 /* SIGTERM */));
        assertTrue(s.process.waitFor(WAIT_SECONDS, TimeUnit.SECONDS), "stopped");
        return s.process.exitValue();
    }
}
