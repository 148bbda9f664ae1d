package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.spi.HttpServerProvider;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Level;
import java.util.logging.Logger;
import m0.server.jdkhttp.Conformance;
import m0.server.jdkhttp.ConformanceHandlers;
import m0.server.jdkhttp.Resp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The differential test against the reference: the same {@link ConformanceHandlers} under the
 * JDK's built-in server (in this JVM) and under {@code m0serve --workers 2 --main}, the whole
 * corpus against each, side by side. Every difference must be one of {@link #ACCEPTED}, each
 * with its reason (docs/apps.md lists them too); a new difference fails, and so does an accepted
 * one that went away (the list must say what is true).
 */
class JdkHttpConformanceIntegrationTest {

    private static final String JDK_PROVIDER = "sun.net.httpserver.DefaultHttpServerProvider";
    private static final Logger JDK_LOG = Logger.getLogger("com.sun.net.httpserver");

    /** Each accepted difference's diff line prefix (the case and response), and why it is accepted. */
    static final Map<String, String> ACCEPTED = new TreeMap<>(Map.ofEntries(
            Map.entry("post-chunked-trailer #0", "m0 reads a chunked body's trailer fields and drops them (RFC 9112 7.1.2);"
                    + " the JDK's server fails the handler's read and closes"),
            Map.entry("post-chunked-and-length #0", "malformed requests are m0's parser's to answer: 400 with a text body, not"
                    + " the JDK's HTML one"),
            Map.entry("bad-request-line #0", "the same: m0's 400 body"),
            Map.entry("bad-header-no-colon #0", "the same: m0's 400 body"),
            Map.entry("bad-version #0", "m0 answers an unknown HTTP version with 400 (the JDK serves HTTP/9.9 as 1.1)"),
            Map.entry("no-host #0", "RFC 9112 3.2: an HTTP/1.1 request without Host is a 400 in m0 (the JDK serves it)"),
            Map.entry("header-100k #0", "--max-header-bytes (default 16 KiB) bounds a head: 431 and a close; the JDK has"
                    + " no bound below ~1 MiB. Raise the flag for apps that need more"),
            Map.entry("header-1m #0", "the same limit: m0 answers 431 where the JDK closes with no answer"),
            Map.entry("options-star #0", "no context for the target: the same 404, but m0 keeps the connection open"
                    + " (the JDK closes it)"),
            Map.entry("expect-continue", "m0's 100 Continue carries no Content-Length: 0 field (the JDK's does)"),
            Map.entry("connection-close #0", "m0 says Connection: close on the last response of a connection the client"
                    + " closes (as nginx does); the JDK does not"),
            Map.entry("http10-keep-alive", "m0 sends no Keep-Alive: timeout=30, max=200 field to a keep-alive HTTP/1.0 client"),
            Map.entry("get-short #0", "a handler that writes fewer bytes than it promised: m0 closes the connection"
                    + " after them (the client sees a short body at once); the JDK leaves it open and silent"),
            Map.entry("then-get-short #0", "the same"),
            Map.entry("then-get-no-close #1", "a handler that never closes its exchange: m0 finishes it when the handler"
                    + " returns and serves the next request; the JDK serves nothing more on that connection"),
            Map.entry("get-throw-before #0", "a handler that throws before sendResponseHeaders: m0 answers 500 and keeps"
                    + " the connection (every failure is seen, by the client too: docs/adr/0061); the JDK closes with no"
                    + " answer"),
            Map.entry("then-get-throw-before", "the same 500, and the pipelined request after it is served"),
            Map.entry("post-chunked-bad-size #0", "a malformed chunk size is m0's parser's to answer: 400 and a close"
                    + " (the handler's read fails, and its failure is not answered twice); the JDK closes with no"
                    + " answer")));

    @Test
    @Timeout(180)
    void m0serveAnswersTheCorpusAsTheJdkServerDoes() throws Exception {
        if (System.getProperty("com.sun.net.httpserver.HttpServerProvider") == null) {
            System.setProperty("com.sun.net.httpserver.HttpServerProvider", JDK_PROVIDER);
        }
        assertEquals(JDK_PROVIDER, HttpServerProvider.provider().getClass().getName());
        JDK_LOG.setLevel(Level.OFF);
        HttpServer jdk = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        ConformanceHandlers.install(jdk);
        jdk.start();
        try (ServerProcess m0 = ServerProcess.start("--workers", "2", "--main", ConformanceHandlers.class.getName(),
                "--", "127.0.0.1:0")) {
            CompletableFuture<Map<String, List<Resp>>> a = CompletableFuture.supplyAsync(
                    () -> Conformance.run(jdk.getAddress().getPort()));
            CompletableFuture<Map<String, List<Resp>>> b = CompletableFuture.supplyAsync(() -> Conformance.run(m0.port));
            Map<String, List<Resp>> reference = a.get();
            Map<String, List<Resp>> ours = b.get();
            List<String> diff = Conformance.diff(reference, ours);
            diff.forEach(d -> System.out.println("DIFF " + d));
            List<String> unexplained = diff.stream().filter(d -> ACCEPTED.keySet().stream().noneMatch(d::startsWith)).toList();
            List<String> gone = ACCEPTED.keySet().stream().filter(k -> diff.stream().noneMatch(d -> d.startsWith(k))).toList();
            assertEquals(List.of(), unexplained, "differences from the JDK's server that are not accepted");
            assertEquals(List.of(), gone, "accepted differences that no longer occur: take them off the list");
        } finally {
            jdk.stop(0);
        }
    }
}
