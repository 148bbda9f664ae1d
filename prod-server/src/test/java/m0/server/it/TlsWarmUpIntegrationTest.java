package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import m0.server.tls.TestCertificates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The TLS warm-up before ready (ADR 0073's addendum), on the real binary: a worker serving TLS
 * on BoringSSL says it did its loopback handshakes, half of them resumed (the resumed path is
 * warmed too), and its handshake counters start at the first client's: the warm-up's are no
 * client's.
 */
@Timeout(180)
class TlsWarmUpIntegrationTest {

    private static final Pattern METRICS = Pattern.compile("metrics on http://(127\\.0\\.0\\.1:\\d+)/metrics");
    private static final Pattern WARMED = Pattern.compile(
            "worker 0: TLS warmed up in [\\d.]+ ms \\((\\d+) handshakes, (\\d+) resumed, then (\\d+) keep-alive requests");

    @Test
    void warmsTheHandshakePathBeforeReadyAndCountsOnlyClients() throws Exception {
        TestCertificates ec = TestCertificates.make("EC");
        try (ServerProcess s = ServerProcess.start("--workers", "1", "--tls-cert", ec.cert.toString(), "--tls-key",
                ec.key.toString(), "--metrics-bind", "127.0.0.1:0")) {
            assertNotNull(s.awaitReady(90), "ready");
            String metrics = s.awaitLine(METRICS, 30);
            Matcher m = WARMED.matcher(s.stderr());
            assertTrue(m.find(), "no TLS warm-up line: " + s.stderr());
            assertEquals(200, Integer.parseInt(m.group(1)), m.group());
            assertEquals(100, Integer.parseInt(m.group(2)), "every other warm-up handshake resumes: " + m.group());
            assertEquals(1000, Integer.parseInt(m.group(3)), m.group());

            HttpClient client = HttpClient.newBuilder().sslContext(ec.clientContext())
                    .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("https://localhost:" + s.port + "/"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode());
            // One client, one handshake: the warm-up's 200 are not in the operator's counters.
            assertEquals(1, awaitHandshakes(metrics, "kind=\"full\""), "full handshakes counted");
            assertEquals(0, handshakes(metrics, "kind=\"resumed\""), "resumed handshakes counted");
        }
    }

    /** The full handshakes counted, polled until the worker has published the client's. */
    private static long awaitHandshakes(String where, String label) throws Exception {
        long until = System.nanoTime() + 30_000_000_000L;
        long v;
        do {
            v = handshakes(where, label);
            if (v > 0) {
                return v;
            }
            Thread.sleep(50); // a worker publishes its counters at its pass's end; bounded by the deadline
        } while (System.nanoTime() - until < 0);
        return v;
    }

    private static long handshakes(String where, String label) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://" + where + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        return MetricsIntegrationTest.sum(r.body(), "m0serve_worker_tls_handshakes_total", label);
    }
}
