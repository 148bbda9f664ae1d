package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import m0.server.tls.TestCertificates;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code HttpsServer} under {@code --main} on the real binary (ADR 0069): the listener speaks TLS
 * with the app's own {@code SSLContext}, and its configurator's {@code configure} is applied
 * (the app allows TLS 1.2 only, where m0serve's default would give 1.3); handlers get an
 * {@code HttpsExchange} with the connection's session. A plain {@code HttpServer} under
 * {@code --tls-cert} keeps m0serve's TLS, and its exchanges are {@code HttpsExchange}s too. An
 * {@code HttpsServer} and {@code --tls-cert} at once cannot start: said, exit 78.
 */
@Timeout(120)
class JdkHttpsMainIntegrationTest {

    private static TestCertificates rsa;

    @BeforeAll
    static void certificate() throws Exception {
        rsa = TestCertificates.make("RSA");
    }

    @Test
    void theAppsHttpsServerServesTlsWithItsOwnContextAndConfigure() throws Exception {
        try (ServerProcess s = ServerProcess.start("--workers", "2", "--main", HttpsMainApp.class.getName(), "--",
                "127.0.0.1:0", rsa.store().toString(), TestCertificates.STORE_PASSWORD, "TLSv1.2")) {
            HttpClient client = client();
            for (int i = 0; i < 4; i++) {
                HttpResponse<String> r = get(client, s.port, "/tls");
                assertEquals(200, r.statusCode(), r.body());
                assertEquals("TLSv1.2", r.sslSession().orElseThrow().getProtocol());
                assertTrue(r.body().startsWith("https=true\nprotocol=TLSv1.2\nsuite=TLS_ECDHE_"), r.body());
                assertEquals(r.sslSession().orElseThrow().getCipherSuite(), r.body().split("suite=")[1].trim());
            }
            HttpResponse<String> fixed = get(client, s.port, "/fixed");
            assertEquals("fixed body 0123456789abcdefghij\n", fixed.body());
            assertTrue(s.stderr().contains("TLS from the app's HttpsServer"), s.stderr());
            String at = "127.0.0.1:" + s.port;
            assertTrue(s.banner.contains("listening on http://" + at + "/ or https://" + at
                    + "/ as the app's main makes its server ("), "the start line cannot know yet: " + s.banner);
            assertEquals("m0serve: ready: 2 worker(s) started, serving https://" + at + "/ (the app's HttpsServer)",
                    s.awaitReady(60), "the ready line says what the workers serve");
        }
    }

    /** The same app making a plain HttpServer, without --tls-cert: the ready line says http. */
    @Test
    void aPlainHttpServerUnderMainIsSaidHttpAtReady() throws Exception {
        try (ServerProcess s = ServerProcess.start("--workers", "1", "--main", HttpsMainApp.class.getName(), "--",
                "127.0.0.1:0", "plain")) {
            String at = "127.0.0.1:" + s.port;
            assertTrue(s.banner.contains("listening on http://" + at + "/ or https://" + at + "/ as the app's main"),
                    s.banner);
            assertEquals("m0serve: ready: 1 worker(s) started, serving http://" + at + "/ (the app's HttpServer)",
                    s.awaitReady(60));
        }
    }

    @Test
    void aPlainHttpServerUnderTlsCertKeepsM0servesTlsAndItsExchangesAreHttps() throws Exception {
        try (ServerProcess s = ServerProcess.start("--workers", "1", "--tls-cert", rsa.cert.toString(), "--tls-key",
                rsa.key.toString(), "--main", HttpsMainApp.class.getName(), "--", "127.0.0.1:0", "plain")) {
            HttpResponse<String> r = get(client(), s.port, "/tls");
            assertEquals(200, r.statusCode(), r.body());
            assertEquals("TLSv1.3", r.sslSession().orElseThrow().getProtocol());
            assertTrue(r.body().startsWith("https=true\nprotocol=TLSv1.3\nsuite=TLS_"), r.body());
            assertTrue(s.banner.contains("listening on https://127.0.0.1:" + s.port + "/ (workers 1,"),
                    "--tls-cert: the start line knows: " + s.banner);
            assertEquals("m0serve: ready: 1 worker(s) started", s.awaitReady(60), "and the ready line adds nothing");
        }
    }

    @Test
    void anHttpsServerAndTlsCertAtOnceCannotStart() throws Exception {
        try (ServerProcess s = ServerProcess.start("--workers", "2", "--tls-cert", rsa.cert.toString(), "--tls-key",
                rsa.key.toString(), "--main", HttpsMainApp.class.getName(), "--",
                "127.0.0.1:0", rsa.store().toString(), TestCertificates.STORE_PASSWORD, "TLSv1.2")) {
            assertTrue(s.process.waitFor(90, TimeUnit.SECONDS), "the server exits; stderr: " + s.stderr());
            String err = s.stderr();
            assertEquals(78, s.process.exitValue(), "exit status; stderr: " + err);
            assertTrue(err.contains("created an HttpsServer with its own SSLContext, and --tls-cert is given too"), err);
            assertEquals(0, count(err, "respawning"), err);
        }
    }

    private static HttpClient client() throws Exception {
        return HttpClient.newBuilder().sslContext(rsa.clientContext()).version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
    }

    static HttpResponse<String> get(HttpClient client, int port, String path) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("https://localhost:" + port + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static int count(String s, String part) {
        int n = 0;
        for (int i = s.indexOf(part); i >= 0; i = s.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }
}
