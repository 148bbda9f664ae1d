package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import m0.server.tls.TestCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * TLS on the real binary (ADR 0069), with a certificate keytool makes for the run: the JDK's
 * HttpClient, curl and openssl s_client get the built-in app's hello over TLS 1.3 and 1.2;
 * plain HTTP on the TLS port is answered 400 and closed; garbage is closed; a burst of 32 TLS
 * keep-alive connections lands 16/16 on two workers, each served over TLS by the worker that
 * holds it; a key that is not the certificate's is one line and exit 2, before any worker.
 */
@Timeout(180)
class TlsIntegrationTest {

    private static final int READY_MS = 30_000;
    private static TestCertificates rsa;
    private static ServerProcess two;

    @BeforeAll
    static void start() throws Exception {
        rsa = TestCertificates.make("RSA");
        two = ServerProcess.start("--workers", "2", "--tls-cert", rsa.cert.toString(), "--tls-key", rsa.key.toString());
        PageWatch.of(two).awaitReady(READY_MS);
    }

    @AfterAll
    static void stop() throws Exception {
        if (two != null) {
            two.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"TLSv1.3", "TLSv1.2"})
    void theJdkHttpClientGetsTheHello(String protocol) throws Exception {
        HttpResponse<String> r = get(rsa, two.port, protocol, "/");
        assertEquals(200, r.statusCode());
        assertEquals("hello\n", r.body());
        assertEquals(protocol, r.sslSession().orElseThrow().getProtocol());
        assertTrue(two.banner.contains("listening on https://127.0.0.1:"), two.banner);
    }

    /** An ECDSA certificate and key, on a server of its own. */
    @Test
    void anEcdsaCertificateServesTls13() throws Exception {
        TestCertificates ec = TestCertificates.make("EC");
        try (ServerProcess one = ServerProcess.start("--workers", "1", "--tls-cert", ec.cert.toString(),
                "--tls-key", ec.key.toString())) {
            PageWatch.of(one).awaitReady(READY_MS);
            HttpResponse<String> r = get(ec, one.port, "TLSv1.3", "/");
            assertEquals("hello\n", r.body());
            assertTrue(r.sslSession().orElseThrow().getCipherSuite().startsWith("TLS_"), r.sslSession().get().getCipherSuite());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"--tlsv1.3", "--tls-max 1.2"})
    void curlGetsTheHelloWithTheCertificateAsItsCa(String version) throws Exception {
        Path curl = Tools.onPath("curl");
        List<String> cmd = new ArrayList<>(List.of(curl.toString(), "-sS", "--http1.1", "--cacert", rsa.cert.toString(),
                "--resolve", "localhost:" + two.port + ":127.0.0.1", "-w", "|%{http_code}|%{ssl_verify_result}"));
        cmd.addAll(List.of(version.split(" ")));
        cmd.add("https://localhost:" + two.port + "/");
        Run r = run(cmd, "");
        assertEquals(0, r.status, r.all);
        assertEquals("hello\n|200|0", r.out);
    }

    @ParameterizedTest
    @ValueSource(strings = {"-tls1_3", "-tls1_2"})
    void opensslSClientNegotiatesAndGetsTheHello(String version) throws Exception {
        Path openssl = Tools.onPath("openssl");
        Run r = run(List.of(openssl.toString(), "s_client", version, "-connect", "127.0.0.1:" + two.port,
                "-CAfile", rsa.cert.toString(), "-alpn", "http/1.1", "-ign_eof", "-quiet"),
                "GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        assertTrue(r.out.startsWith("HTTP/1.1 200 "), r.all);
        assertTrue(r.out.endsWith("\r\n\r\nhello\n"), r.out);
        Run brief = run(List.of(openssl.toString(), "s_client", version, "-connect", "127.0.0.1:" + two.port,
                "-CAfile", rsa.cert.toString(), "-alpn", "http/1.1", "-brief"), "");
        assertTrue(brief.all.contains("Protocol version: " + (version.equals("-tls1_3") ? "TLSv1.3" : "TLSv1.2")), brief.all);
        assertTrue(brief.all.contains("Verification: OK"), brief.all);
    }

    /** As nginx does: a plain request on the TLS port is answered 400 in plain HTTP, then closed. */
    @Test
    void plainHttpOnTheTlsPortIsAnswered400AndClosed() throws Exception {
        awaitLogged("TLS: a plain HTTP request on the TLS port: answered 400 and closed", () -> {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", two.port));
                s.setSoTimeout(10_000);
                s.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                assertTrue(answer.startsWith("HTTP/1.1 400 Bad Request\r\n"), answer);
                assertTrue(answer.endsWith("\r\n\r\nThe plain HTTP request was sent to the HTTPS port.\n"), answer);
            }
        });
    }

    /** Bytes that are neither TLS nor HTTP: at most the engine's alert record, then EOF. */
    @Test
    void garbageIsClosed() throws Exception {
        awaitLogged("TLS: closing a connection whose handshake or record failed", () -> {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", two.port));
                s.setSoTimeout(10_000);
                s.getOutputStream().write(new byte[] {0x01, 0x02, 0x03, '\r', '\n', '\r', '\n'});
                byte[] answer = s.getInputStream().readAllBytes(); // returns at the server's close
                assertTrue(answer.length == 0 || answer[0] == 0x15, "nothing, or a TLS alert record: " + answer.length);
            }
        });
    }

    private interface Attempt {
        void run() throws Exception;
    }

    /**
     * Runs {@code attempt} (its own assertions hold each time) until {@code line} is in the
     * server's stderr: a worker logs a failure site once a second (RateLimitedLog), so an event
     * inside another's second is counted and said with the next; bounded.
     */
    private static void awaitLogged(String line, Attempt attempt) throws Exception {
        long before = count(two.stderr(), line);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        for (;;) {
            attempt.run();
            long waitUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1100);
            while (System.nanoTime() - waitUntil < 0) {
                if (count(two.stderr(), line) > before) {
                    return;
                }
                Thread.sleep(20); // polling a condition, bounded
            }
            if (System.nanoTime() - deadline >= 0) {
                fail("never logged: " + line + "\n" + two.stderr());
            }
        }
    }

    private static long count(String text, String line) {
        return text.lines().filter(l -> l.contains(line)).count();
    }

    /**
     * 32 keep-alive connections at once on two workers: connected first (where a connection
     * lands is decided at its accept, before its handshake), then each one's handshake and a
     * /pid asked while all are open. Each is served over TLS 1.3 by the worker that holds it,
     * 16 by each.
     */
    @Test
    void aBurstOfThirtyTwoTlsConnectionsLandsSixteenSixteen() throws Exception {
        // A server of its own, quiescent, with a long idle timeout: the burst's connections wait,
        // not yet handshaken, while a loaded machine's client makes 32 handshakes one by one.
        List<Socket> raw = new ArrayList<>();
        List<SSLSocket> tls = new ArrayList<>();
        try (ServerProcess burst = ServerProcess.start("--workers", "2", "--idle-timeout-ms", "120000",
                "--tls-cert", rsa.cert.toString(), "--tls-key", rsa.key.toString())) {
            PageWatch page = PageWatch.of(burst);
            page.awaitReady(READY_MS);
            for (int i = 0; i < 32; i++) {
                Socket s = new Socket();
                s.connect(new InetSocketAddress("127.0.0.1", burst.port));
                s.setSoTimeout(10_000);
                raw.add(s);
            }
            page.await("32 open", p -> p.totalActive() == 32, 10_000);
            javax.net.ssl.SSLSocketFactory f = rsa.clientContext().getSocketFactory();
            Map<String, Integer> perPid = new TreeMap<>();
            for (Socket s : raw) {
                SSLSocket t = (SSLSocket) f.createSocket(s, "localhost", burst.port, true);
                t.setEnabledProtocols(new String[] {"TLSv1.3"});
                t.startHandshake();
                tls.add(t);
                String body = KeepAliveAsk.body(t, "/pid");
                perPid.merge(body.split(" ")[0], 1, Integer::sum);
            }
            Map<String, Integer> again = new TreeMap<>();
            for (SSLSocket t : tls) {
                again.merge(KeepAliveAsk.body(t, "/pid").split(" ")[0], 1, Integer::sum); // all still open: each answers again, where it was
            }
            assertEquals(perPid, again, "no connection changed workers");
            List<String> workers = burst.descendants().stream().map(h -> Long.toString(h.pid())).sorted().toList();
            assertEquals(workers, List.copyOf(perPid.keySet()), "served by the two workers");
            assertEquals(List.of(16, 16), List.copyOf(perPid.values()), perPid.toString());
        } finally {
            for (Socket s : tls) {
                s.close();
            }
            for (Socket s : raw) {
                s.close();
            }
        }
    }

    /** A key that is not the certificate's: one line naming both files, exit 2, no worker started. */
    @Test
    void aKeyThatDoesNotMatchIsOneLineAndExit2() throws Exception {
        TestCertificates other = TestCertificates.make("EC");
        Run r = run(ServerProcess.command("--bind", "127.0.0.1:0", "--tls-cert", rsa.cert.toString(),
                "--tls-key", other.key.toString()), "");
        assertEquals(2, r.status, r.all);
        assertEquals("", r.out, "nothing listens");
        assertEquals("m0serve: --tls-key " + other.key + ": does not match the first certificate in " + rsa.cert
                + " (see --help)", r.all.strip());
    }

    // ---- helpers

    private static HttpResponse<String> get(TestCertificates certs, int port, String protocol, String path)
            throws Exception {
        SSLParameters p = new SSLParameters();
        p.setProtocols(new String[] {protocol});
        HttpClient client = HttpClient.newBuilder().sslContext(certs.clientContext()).sslParameters(p)
                .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
        return client.send(HttpRequest.newBuilder(URI.create("https://localhost:" + port + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A tool's exit status, its stdout, and stdout with stderr after it. */
    private record Run(int status, String out, String all) {
    }

    private static Run run(List<String> cmd, String stdin) throws Exception {
        File out = Files.createTempFile("m0-tls-run-", ".out").toFile();
        File err = Files.createTempFile("m0-tls-run-", ".err").toFile();
        Process p = new ProcessBuilder(cmd).redirectOutput(out).redirectError(err).start();
        try {
            try (OutputStream in = p.getOutputStream()) {
                in.write(stdin.getBytes(StandardCharsets.US_ASCII));
            }
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), String.join(" ", cmd) + " exits by itself");
            String o = Files.readString(out.toPath(), StandardCharsets.UTF_8);
            return new Run(p.exitValue(), o, o + Files.readString(err.toPath(), StandardCharsets.UTF_8));
        } finally {
            ServerProcess.kill(p);
        }
    }
}
