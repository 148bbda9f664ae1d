package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import m0.server.tls.TestCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Several certificates chosen by SNI (ADR 0069), on the real binary: {@code --tls-cert a,b
 * --tls-key a,b} with an RSA certificate for a.example (the first: the default) and an ECDSA one
 * for b.example. Each name gets its own certificate over TLS 1.3 and 1.2, from the JDK's client
 * and from openssl s_client; no name, or a name neither has, gets a.example's. Lists of unequal
 * length are one line and exit 2.
 */
@Timeout(180)
class TlsSniIntegrationTest {

    private static TestCertificates a;
    private static TestCertificates b;
    private static ServerProcess server;

    @BeforeAll
    static void start() throws Exception {
        a = TestCertificates.make("RSA", "a.example");
        b = TestCertificates.make("EC", "b.example");
        server = ServerProcess.start("--workers", "1", "--tls-cert", a.cert + "," + b.cert,
                "--tls-key", a.key + "," + b.key);
        PageWatch.of(server).awaitReady(60_000);
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"TLSv1.3", "TLSv1.2"})
    void eachNameGetsItsCertificateAndTheFirstIsTheDefault(String protocol) throws Exception {
        assertEquals(serial(a), serialSeen("a.example", protocol));
        assertEquals(serial(b), serialSeen("b.example", protocol), "b.example's ECDSA certificate");
        assertEquals(serial(a), serialSeen(null, protocol), "no SNI: the first");
        assertEquals(serial(a), serialSeen("c.example", protocol), "a name neither has: the first");
        assertTrue(server.stderr().contains("for CN=a.example | CN=b.example (by SNI; the first by default)"),
                server.stderr());
    }

    @Test
    void opensslSClientGetsTheCertificateOfTheNameItSends() throws Exception {
        assertTrue(subjectFromOpenssl("-servername", "b.example").contains("CN=b.example"));
        assertTrue(subjectFromOpenssl("-servername", "a.example").contains("CN=a.example"));
        assertTrue(subjectFromOpenssl("-noservername").contains("CN=a.example"));
    }

    @Test
    void listsOfUnequalLengthAreOneLineAndExit2() throws Exception {
        Process p = new ProcessBuilder(ServerProcess.command("--bind", "127.0.0.1:0", "--tls-cert", a.cert + "," + b.cert,
                "--tls-key", a.key.toString())).redirectErrorStream(true).start();
        try {
            assertTrue(p.waitFor(60, TimeUnit.SECONDS));
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(2, p.exitValue(), out);
            assertEquals("m0serve: --tls-cert names 2 file(s) and --tls-key 1: they pair by position, one key per "
                    + "certificate (see --help)", out.strip());
        } finally {
            ServerProcess.kill(p);
        }
    }

    // ---- helpers

    private static BigInteger serial(TestCertificates c) {
        return ((X509Certificate) c.certificate).getSerialNumber();
    }

    /** The serial of the certificate the server shows a client that names {@code host} (null: no SNI). */
    private static BigInteger serialSeen(String host, String protocol) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("a", a.certificate);
        trust.setCertificateEntry("b", b.certificate);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        Socket raw = new Socket();
        raw.connect(new InetSocketAddress("127.0.0.1", server.port), 10_000);
        raw.setSoTimeout(30_000);
        try (SSLSocket t = (SSLSocket) context.getSocketFactory().createSocket(raw, "127.0.0.1", server.port, true)) {
            SSLParameters p = t.getSSLParameters();
            p.setProtocols(new String[] {protocol});
            p.setServerNames(host == null ? List.<SNIServerName>of() : List.of(new SNIHostName(host)));
            t.setSSLParameters(p);
            t.startHandshake();
            return ((X509Certificate) t.getSession().getPeerCertificates()[0]).getSerialNumber();
        }
    }

    /** openssl s_client's "subject=" line, spaces removed. */
    private static String subjectFromOpenssl(String... sni) throws Exception {
        Path openssl = null;
        for (String dir : System.getenv("PATH").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, "openssl"))) {
                openssl = Path.of(dir, "openssl");
            }
        }
        if (openssl == null && !"true".equals(System.getenv("CI"))) {
            Assumptions.abort("openssl not found on PATH; .ci/run installs it");
        }
        List<String> cmd = new ArrayList<>(List.of(String.valueOf(openssl), "s_client", "-connect",
                "127.0.0.1:" + server.port));
        cmd.addAll(List.of(sni));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            p.getOutputStream().close(); // EOF on stdin: s_client shakes hands, prints, and exits
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "s_client exits");
            return out.lines().filter(l -> l.startsWith("subject=")).map(l -> l.replace(" ", ""))
                    .findFirst().orElse("no subject line: " + out);
        } finally {
            ServerProcess.kill(p);
        }
    }
}
