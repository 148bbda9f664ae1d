package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsServer;
import com.sun.net.httpserver.spi.HttpServerProvider;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import m0.server.tls.TestCertificates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The differential test over TLS (ADR 0069): {@link HttpsMainApp} (its own SSLContext, a
 * configurator that allows TLS 1.2 only, the conformance handlers and {@code /tls}) under the
 * JDK's own {@code HttpsServer} in this JVM and under {@code m0serve --workers 2 --main}; the same
 * requests through the JDK's HttpClient to each, and the answers must be the same: status, body,
 * the framing and app fields, and the session's protocol and suite as the client saw them. The
 * plain corpus's accepted differences (JdkHttpConformanceIntegrationTest) are left out: this asks
 * whether TLS changes anything, not the plain questions again.
 */
class JdkHttpsConformanceIntegrationTest {

    private static final String JDK_PROVIDER = "sun.net.httpserver.DefaultHttpServerProvider";
    private static final Logger JDK_LOG = Logger.getLogger("com.sun.net.httpserver");
    /** The fields compared: the framing's and the handlers' own (Date and the like differ by nature). */
    private static final List<String> FIELDS = List.of("content-type", "content-length", "transfer-encoding",
            "set-cookie", "x-multi", "x-before", "www-authenticate");

    @Test
    @Timeout(180)
    void m0serveAnswersOverTlsAsTheJdksHttpsServerDoes() throws Exception {
        if (System.getProperty("com.sun.net.httpserver.HttpServerProvider") == null) {
            System.setProperty("com.sun.net.httpserver.HttpServerProvider", JDK_PROVIDER);
        }
        assertEquals(JDK_PROVIDER, HttpServerProvider.provider().getClass().getName());
        JDK_LOG.setLevel(Level.OFF);
        TestCertificates rsa = TestCertificates.make("RSA");
        String[] app = {"127.0.0.1:0", rsa.store().toString(), TestCertificates.STORE_PASSWORD, "TLSv1.2"};
        HttpServer jdk = HttpsMainApp.start(app);
        assertTrue(jdk instanceof HttpsServer);
        jdk.start();
        try (ServerProcess m0 = ServerProcess.start("--workers", "2", "--main", HttpsMainApp.class.getName(), "--",
                app[0], app[1], app[2], app[3])) {
            HttpClient client = HttpClient.newBuilder().sslContext(rsa.clientContext())
                    .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
            List<String> reference = run(client, jdk.getAddress().getPort());
            List<String> ours = run(client, m0.port);
            System.out.println(String.join("\n", reference));
            assertTrue(reference.get(0).contains("https=true\\nprotocol=TLSv1.2\\nsuite=TLS_ECDHE_"), reference.get(0));
            assertEquals(reference, ours);
        } finally {
            jdk.stop(0);
        }
    }

    /** Each request's answer, one line: what it asked, the session, status, fields, body. */
    private static List<String> run(HttpClient client, int port) throws Exception {
        String basic = "Basic " + Base64.getEncoder().encodeToString("u:p".getBytes(StandardCharsets.UTF_8));
        List<HttpRequest.Builder> asks = List.of(
                get(port, "/tls"),
                get(port, "/fixed"),
                get(port, "/chunked"),
                get(port, "/nobody"),
                get(port, "/204"),
                get(port, "/empty-chunked"),
                get(port, "/executor"),
                get(port, "/fixed").method("HEAD", HttpRequest.BodyPublishers.noBody()),
                get(port, "/echo").POST(HttpRequest.BodyPublishers.ofString("a body over TLS")),
                get(port, "/headers?x=1&y=%20z").header("X-Rep", "1").header("X-Rep", "2"),
                get(port, "/filtered"),
                get(port, "/private"),
                get(port, "/private").header("Authorization", basic),
                get(port, "/a/bc"),
                get(port, "/big"));
        List<String> lines = new ArrayList<>();
        for (HttpRequest.Builder b : asks) {
            HttpRequest q = b.build();
            HttpResponse<byte[]> r = client.send(q, HttpResponse.BodyHandlers.ofByteArray());
            StringBuilder line = new StringBuilder(q.method()).append(' ').append(q.uri().getRawPath());
            line.append(" | ").append(r.sslSession().map(s -> s.getProtocol() + " " + s.getCipherSuite()).orElse("plain"));
            line.append(" | ").append(r.statusCode());
            for (String f : FIELDS) {
                List<String> v = r.headers().allValues(f);
                if (!v.isEmpty()) {
                    line.append(" | ").append(f).append('=').append(v);
                }
            }
            line.append(" | ").append(body(r.body()));
            lines.add(line.toString());
        }
        return lines;
    }

    private static HttpRequest.Builder get(int port, String path) {
        return HttpRequest.newBuilder(URI.create("https://localhost:" + port + path)).timeout(Duration.ofSeconds(20));
    }

    private static String body(byte[] b) throws Exception {
        if (b.length > 4096) {
            return "<" + b.length + " bytes sha256=" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b)) + ">";
        }
        return new String(b, StandardCharsets.UTF_8).replace("\n", "\\n");
    }
}
