package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.InputStream;
import java.io.OutputStream;
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
import java.util.regex.Pattern;
import javax.net.ssl.SSLSocket;
import m0.server.tls.TestCertificates;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Sessions resume on any worker (issue 47 item 3, ADR 0073), on the real binary: {@code openssl
 * s_client} reconnects {@value #RECONNECTS} times, each on a new TCP connection offering the
 * ticket of the connection before it, and reads which worker served it ({@code /pid}). Between
 * reconnects the test opens one TLS keep-alive connection and keeps it, so share lands the next
 * reconnect on another worker (the lightest): the reconnects visit every worker, and a ticket
 * sealed by one is opened by another. The negative control is the same run with each worker's
 * own keys ({@code --dev-tls-own-ticket-keys}), and a rotation's test shows an old ticket still
 * resuming while new tickets name the new key.
 */
@Timeout(300)
class TlsTicketsIntegrationTest {

    private static final int RECONNECTS = 40;
    private static final Pattern METRICS = Pattern.compile("metrics on http://(127\\.0\\.0\\.1:\\d+)/metrics");
    private static TestCertificates rsa;
    private static SessionClient client;

    @BeforeAll
    static void certificate() throws Exception {
        rsa = TestCertificates.make("RSA");
        client = SessionClient.find();
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 4})
    void reconnectsResumeOnWhicheverWorkerTheyLand(int workers) throws Exception {
        try (ServerProcess s = ServerProcess.start("--workers", Integer.toString(workers), "--tls-cert",
                rsa.cert.toString(), "--tls-key", rsa.key.toString(), "--metrics-bind", "127.0.0.1:0")) {
            assertNotNull(s.awaitReady(90), "ready");
            String metrics = s.awaitLine(METRICS, 30);
            Reconnects r = reconnect(s, RECONNECTS);
            System.out.println("[tickets] " + workers + " workers, shared keys: " + r);
            assertTrue(r.byWorker.size() > 1, "the reconnects landed on one worker only, proving nothing: " + r);
            assertTrue(r.resumed * 100 >= 95L * r.offered, "at least 95 % of the reconnects resumed: " + r);
            assertTrue(r.crossedWorkers > 0, "a ticket made on one worker was offered on another: " + r);
            // The operators' view agrees: the workers counted at least the resumptions openssl saw.
            long seen = awaitMetric(metrics, "kind=\"resumed\"", r.resumed);
            assertTrue(seen >= r.resumed, seen + " resumed handshakes counted for " + r);
            assertTrue(s.stderr().contains("TLS by BoringSSL"), s.stderr());
        }
    }

    /** Negative control: each worker seals tickets with keys of its own; a ticket opens only where it was made. */
    @Test
    void withEachWorkersOwnKeysATicketResumesOnlyWhereItWasMade() throws Exception {
        try (ServerProcess s = ServerProcess.start("--workers", "2", "--tls-cert", rsa.cert.toString(),
                "--tls-key", rsa.key.toString(), "--dev-tls-own-ticket-keys", "on")) {
            assertNotNull(s.awaitReady(90), "ready");
            Reconnects r = reconnect(s, RECONNECTS);
            System.out.println("[tickets] 2 workers, each its own keys: " + r);
            assertTrue(r.byWorker.size() > 1, "landed on one worker only: " + r);
            assertTrue(r.resumed * 100 < 95L * r.offered, "the resumed share drops below 95 %: " + r);
            assertTrue(r.crossedResumed == 0, "no ticket opened on a worker that did not make it: " + r);
        }
    }

    /**
     * After a rotation (every 2 s here) a ticket sealed with the previous key still resumes, and
     * new tickets are sealed with the new key (a ticket's first 16 bytes name its key).
     */
    @Test
    void afterARotationAnOldTicketResumesAndNewTicketsUseTheNewKey() throws Exception {
        try (ServerProcess s = ServerProcess.start("--workers", "2", "--tls-cert", rsa.cert.toString(),
                "--tls-key", rsa.key.toString(), "--dev-tls-ticket-rotate-ms", "2000")) {
            assertNotNull(s.awaitReady(90), "ready");
            Path old = Files.createTempFile("m0-ticket-old-", ".pem");
            Path probe = Files.createTempFile("m0-ticket-new-", ".pem");
            Path again = Files.createTempFile("m0-ticket-again-", ".pem");
            try {
                SessionClient.Conn first = client.connect(s.port, null, old);
                assertEquals(false, first.reused());
                String oldKey = client.keyName(old);
                String newKey = oldKey;
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (newKey.equals(oldKey)) { // full handshakes until a ticket names another key
                    assertTrue(System.nanoTime() - until < 0, "no rotation seen in 60 s");
                    client.connect(s.port, null, probe);
                    newKey = client.keyName(probe);
                }
                SessionClient.Conn resumed = client.connect(s.port, old, again);
                assertTrue(resumed.reused(), "the ticket sealed before the rotation still resumes: " + resumed.output());
                assertNotEquals(oldKey, client.keyName(again), "the ticket issued on it is sealed with the new key");
            } finally {
                Files.deleteIfExists(old);
                Files.deleteIfExists(probe);
                Files.deleteIfExists(again);
            }
        }
    }

    /**
     * The keys outlive workers: a replacement after a crash, and the workers of a SIGHUP reload,
     * open a ticket sealed before them (the supervisor hands every new worker the running set;
     * a reload makes no new one).
     */
    @Test
    void aTicketResumesOnACrashedWorkersReplacementAndAfterAReload() throws Exception {
        try (ServerProcess s = ServerProcess.start("--workers", "1", "--tls-cert", rsa.cert.toString(),
                "--tls-key", rsa.key.toString())) {
            assertNotNull(s.awaitReady(90), "ready");
            Path ticket = Files.createTempFile("m0-ticket-", ".pem");
            Path after = Files.createTempFile("m0-ticket-after-", ".pem");
            try {
                SessionClient.Conn first = client.connect(s.port, null, ticket);
                long victim = s.workerPid(0);
                assertEquals(victim, first.pid());
                assertTrue(m0.server.jnr.Processes.kill((int) victim, m0.server.jnr.Processes.SIGKILL));
                Pattern started = Pattern.compile("worker 0 \\(pid (?!" + victim + "\\))(\\d+)\\) started");
                String replacement = ServerLog.awaitGroup(s, started, 60);
                SessionClient.Conn onReplacement = client.connect(s.port, ticket, after);
                assertEquals(Long.parseLong(replacement), onReplacement.pid(), "served by the replacement");
                assertTrue(onReplacement.reused(), "the replacement opened a ticket its predecessor sealed: "
                        + onReplacement.output());

                assertTrue(m0.server.jnr.Processes.kill((int) s.pid(), 1 /* SIGHUP */));
                String reloaded = ServerLog.awaitGroup(s, Pattern.compile("worker 1 \\(pid (\\d+)\\) started"), 60);
                SessionClient.Conn afterReload = client.connect(s.port, ticket, after);
                assertEquals(Long.parseLong(reloaded), afterReload.pid(), "served by the reload's worker");
                assertTrue(afterReload.reused(), "a reload keeps the keys: " + afterReload.output());
            } finally {
                Files.deleteIfExists(ticket);
                Files.deleteIfExists(after);
            }
        }
    }

    /** What N reconnects saw. */
    private static final class Reconnects {
        /** Reconnects that offered a ticket (all but the first), and how many of them resumed. */
        int offered;
        int resumed;
        /** Offered on a worker other than the one that sealed the ticket, and of those resumed. */
        int crossedWorkers;
        int crossedResumed;
        final Map<Integer, Integer> byWorker = new TreeMap<>();

        @Override
        public String toString() {
            return String.format("%d of %d resumed (%.1f %%); %d offered on another worker than the ticket's, %d of "
                    + "them resumed; reconnects by worker index %s", resumed, offered, 100.0 * resumed / offered,
                    crossedWorkers, crossedResumed, byWorker);
        }
    }

    private static Reconnects reconnect(ServerProcess s, int n) throws Exception {
        Reconnects r = new Reconnects();
        List<SSLSocket> ballast = new ArrayList<>();
        Path prev = Files.createTempFile("m0-ticket-", ".pem");
        Path next = Files.createTempFile("m0-ticket-", ".pem");
        try {
            int prevWorker = -1;
            for (int i = 0; i < n; i++) {
                SessionClient.Conn c = client.connect(s.port, i == 0 ? null : prev, next);
                r.byWorker.merge(c.worker(), 1, Integer::sum);
                if (i > 0) {
                    r.offered++;
                    if (c.reused()) {
                        r.resumed++;
                    }
                    if (c.worker() != prevWorker) {
                        r.crossedWorkers++;
                        if (c.reused()) {
                            r.crossedResumed++;
                        }
                    }
                }
                prevWorker = c.worker();
                Files.copy(next, prev, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                ballast.add(keepAlive(s)); // the lightest worker takes it: the next reconnect lands elsewhere
            }
        } finally {
            for (SSLSocket b : ballast) {
                b.close();
            }
            Files.deleteIfExists(prev);
            Files.deleteIfExists(next);
        }
        return r;
    }

    /** A TLS keep-alive connection that asked once and stays open. */
    private static SSLSocket keepAlive(ServerProcess s) throws Exception {
        SSLSocket socket = (SSLSocket) rsa.clientContext().getSocketFactory().createSocket("127.0.0.1", s.port);
        socket.setSoTimeout(10_000);
        OutputStream out = socket.getOutputStream();
        out.write("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        InputStream in = socket.getInputStream();
        StringBuilder got = new StringBuilder();
        while (!got.toString().endsWith("hello\n")) {
            int b = in.read();
            if (b < 0) {
                fail("closed before its answer: " + got);
            }
            got.append((char) b);
        }
        return socket;
    }

    /** The sum of m0serve_worker_tls_handshakes_total samples with {@code label}, polled until it reaches {@code atLeast}. */
    private static long awaitMetric(String where, String label, long atLeast) throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        long v;
        do {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("http://" + where + "/metrics"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            v = MetricsIntegrationTest.sum(r.body(), "m0serve_worker_tls_handshakes_total", label);
            if (v >= atLeast) {
                return v;
            }
            Thread.sleep(50); // a worker publishes its counters at its pass's end; bounded by the deadline
        } while (System.nanoTime() - until < 0);
        return v;
    }
}
