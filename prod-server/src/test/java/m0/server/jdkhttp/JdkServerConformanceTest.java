package m0.server.jdkhttp;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.spi.HttpServerProvider;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

/**
 * The harness against the reference: two JDK built-in servers, each with {@link
 * ConformanceHandlers}, play the whole corpus. They must agree with each other (else the harness,
 * not a server, is non-deterministic), and a few of the JDK's answers are pinned here, as observed
 * on JDK 17, because another provider has to give the same ones.
 *
 * <p>The JDK's own provider is chosen through the {@code com.sun.net.httpserver.HttpServerProvider}
 * property (its class is not exported, so it cannot be named in code without --add-exports); that
 * works only if nothing in this JVM asked for the provider before, which the first assertion checks.
 * {@code -Dm0.conformance.dump=true} prints every normalised response.
 */
@Timeout(120)
class JdkServerConformanceTest {

    private static final String JDK_PROVIDER = "sun.net.httpserver.DefaultHttpServerProvider";
    /** Held: JUL keeps loggers weakly, and a collected one would come back at its default level. */
    private static final Logger JDK_LOG = Logger.getLogger("com.sun.net.httpserver");

    private static HttpServer first;
    private static HttpServer second;
    private static Map<String, List<Resp>> reference;
    private static Map<String, List<Resp>> again;

    @BeforeAll
    @Timeout(100)
    static void runCorpusOnTwoJdkServers() throws Exception {
        if (System.getProperty("com.sun.net.httpserver.HttpServerProvider") == null) {
            System.setProperty("com.sun.net.httpserver.HttpServerProvider", JDK_PROVIDER);
        }
        assertEquals(JDK_PROVIDER, HttpServerProvider.provider().getClass().getName(),
                "the reference must be the JDK's own server (was another provider asked for first in this JVM?)");
        JDK_LOG.setLevel(Level.OFF); // the handlers that throw on purpose would fill the log
        first = start();
        second = start();
        // Side by side: the corpus is ~20 s per server, most of it the probes of kept-open connections.
        CompletableFuture<Map<String, List<Resp>>> a = CompletableFuture.supplyAsync(() -> Conformance.run(port(first)));
        CompletableFuture<Map<String, List<Resp>>> b = CompletableFuture.supplyAsync(() -> Conformance.run(port(second)));
        reference = a.get();
        again = b.get();
        System.out.print(Conformance.table(reference));
        if (Boolean.getBoolean("m0.conformance.dump")) {
            System.out.print(Conformance.dump(reference));
        }
    }

    private static HttpServer start() throws Exception {
        HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        ConformanceHandlers.install(s);
        s.start();
        return s;
    }

    private static int port(HttpServer s) {
        return s.getAddress().getPort();
    }

    @AfterAll
    static void stop() {
        if (first != null) {
            first.stop(0);
        }
        if (second != null) {
            second.stop(0);
        }
    }

    @Test
    @Timeout(10)
    void twoJdkServersGiveTheSameNormalisedAnswers() {
        assertEquals(ConformanceCorpus.cases().size(), reference.size());
        assertEquals(List.of(), Conformance.diff(reference, again));
    }

    @Test
    @Timeout(10)
    void theDiffReportsAChangedField() {
        Resp r = reference.get("get-fixed").get(0);
        Resp changed = new Resp(r.statusLine(), r.status(), r.headers(), r.framing(), r.body(), r.end(), r.interim(), "closed");
        Map<String, List<Resp>> other = new LinkedHashMap<>(reference);
        other.put("get-fixed", List.of(changed));
        assertEquals(List.of("get-fixed #0 after: open vs closed"), Conformance.diff(reference, other));
    }

    /** What the JDK does, pinned: each line is something the m0serve provider must reproduce. */
    @Test
    @Timeout(10)
    void jdkBehaviourThatAnotherProviderMustMatch() {
        assertAll(
                // sendResponseHeaders(200, n / 0 / -1): Content-Length n, chunked, Content-Length 0
                is("get-fixed", 200, "length", "complete", "open", "fixed body 0123456789abcdefghij\\n"),
                header("get-fixed", "content-length", "32"),
                is("get-executor", 200, "chunked", "complete", "open", "on the server's executor: true\\n"),
                is("get-chunked", 200, "chunked", "complete", "open", "one\\ntwo two\\nthree three three\\n"),
                header("get-chunked", "transfer-encoding", "chunked"),
                header("get-nobody", "content-length", "0"),
                is("get-empty-chunked", 200, "chunked", "complete", "open", ""),
                // 204 and 304: no Content-Length, no body
                header("get-204", "content-length"),
                header("get-304", "content-length"),
                // HEAD: never a body; the handler's Content-Length is kept, sendResponseHeaders' n is not sent
                is("head-head-aware", 200, "none", "complete", "open", ""),
                header("head-head-aware", "content-length", "32"),
                header("head-fixed", "content-length"),
                header("head-chunked", "transfer-encoding"),
                is("get-big", 200, "chunked", "complete", "open",
                        "<1048576 bytes sha256=ac84f1aaeb78935518306171e9335963319467355dfd28fb19d9b94c81ecb2d3>"),
                // a request body: Content-Length, chunked with extensions; no framing at all is an empty body
                bodyHas("post-chunked", "length=16\\n"),
                bodyHas("post-no-length", "length=0\\n"),
                bodyHas("brew", "method=BREW\\nlength=3\\n"),
                // chunked trailers are not read: the handler's read fails and the connection just closes
                is("post-chunked-trailer", 0, "none", "eof", "closed", ""),
                is("post-chunked-and-length", 400, "length", "complete", "closed",
                        "<h1>400 Bad Request</h1>Conflicting or malformed headers detected"),
                // Expect: 100-continue gets "100 Continue" (with a Content-length: 0) before the handler reads
                () -> assertEquals(List.of("HTTP/1.1 100 Continue | {content-length=[0]}"),
                        reference.get("expect-continue").get(0).interim()),
                bodyHas("expect-continue", "length=5\\n"),
                // HTTP/1.0: answered as HTTP/1.1 with Connection: close; sendResponseHeaders(200, 0) is close-delimited
                () -> assertEquals("HTTP/1.1 200 OK", reference.get("http10").get(0).statusLine()),
                header("http10", "connection", "close"),
                is("http10-chunked-handler", 200, "close", "complete", "closed", "one\\ntwo two\\nthree three three\\n"),
                header("http10-keep-alive", "keep-alive", "timeout=30, max=200"),
                () -> assertTrue(reference.get("connection-close").get(0).closedAfter()),
                () -> assertEquals(3, reference.get("pipelined-3").size()),
                () -> assertEquals("none", reference.get("pipelined-head-middle").get(1).framing()),
                // headers: repeats in order, names as Headers spells them (first letter up, rest down)
                header("headers-repeated", "set-cookie", "a=1", "b=2; Path=/"),
                header("headers-repeated", "x-multi", "one", "two"),
                bodyHas("headers-repeated", "x-rep=[1, 2, 3]\\nnames=[Host, Mixed-case-name, Upper-case, X-rep]"),
                bodyHas("header-100k", "x-long-length=102400"),
                is("header-1m", 0, "none", "eof", "closed", ""),
                bodyHas("query-encoded", "raw-query=x=1&y=%20z%26&x=2\\nquery=x=1&y= z&&x=2"),
                bodyHas("absolute-form", "uri=http://conformance/headers?abs=1\\nraw-path=/headers"),
                // a handler that throws before the headers: no response, the connection closes
                is("get-throw-before", 0, "none", "eof", "closed", ""),
                // after a chunked body began: the chunks so far, no last chunk, then the close
                is("get-throw-after", 200, "chunked", "eof", "closed", "partial\\n"),
                // 5 of 10 promised bytes: they are sent and the connection stays open, silent
                is("get-short", 200, "length", "timeout", "open", "12345"),
                is("then-get-short", 200, "length", "timeout", "open", "12345"),
                // 10 bytes written into a promised 5: the write is refused whole, the close closes the connection
                is("get-long", 200, "length", "eof", "closed", ""),
                // a handler that never closes: its body arrives, but the connection serves nothing more
                is("get-no-close", 200, "length", "complete", "open", "fixed body 0123456789abcdefghij\\n"),
                () -> assertEquals("timeout", reference.get("then-get-no-close").get(1).end()),
                // filters: before's attribute and header, after appends; exchange attributes are the context's
                is("filtered", 200, "chunked", "complete", "open", "before-attr=b1\\ninstalled-via-context=at-install"
                        + "\\ninstalled-via-exchange=at-install\\nafter-sees-handler=h\\nafter-status=200\\n"),
                header("filtered", "x-before", "yes"),
                // BasicAuthenticator
                header("private-none", "www-authenticate", "Basic realm=\"m0\", charset=\"UTF-8\""),
                is("private-wrong", 401, "length", "complete", "open", ""),
                is("private-right", 200, "length", "complete", "open", "user=u\\nrealm=m0\\nname=m0:u\\n"),
                header("private-not-basic", "www-authenticate"),
                // contexts: longest string prefix, not path segments ("/ab" is /a's), case-sensitive, no dot-segment removal
                bodyHas("prefix /ab", "a ctx=/a path=/ab"),
                bodyHas("prefix /a/bc", "a/b ctx=/a/b path=/a/bc"),
                bodyHas("prefix /A", "root ctx=/ path=/A"),
                bodyHas("prefix /a/../a/b", "a ctx=/a path=/a/../a/b"),
                is("options-star", 404, "length", "complete", "closed", "<h1>404 Not Found</h1>No context found for request"),
                // malformed: 400 and close; an unknown version is served
                is("bad-request-line", 400, "length", "complete", "closed", "<h1>400 Bad Request</h1>Bad request line"),
                is("bad-version", 200, "length", "complete", "open", "fixed body 0123456789abcdefghij\\n"));
    }

    private static Executable is(String name, int status, String framing, String end, String after, String body) {
        return () -> {
            Resp r = reference.get(name).get(0);
            assertEquals(List.of(status, framing, end, after, body), List.of(r.status(), r.framing(), r.end(), r.after(), r.body()),
                    name + ": status, framing, end, after, body");
        };
    }

    private static Executable header(String name, String header, String... values) {
        return () -> assertEquals(List.of(values), reference.get(name).get(0).header(header), name + ": " + header);
    }

    private static Executable bodyHas(String name, String part) {
        return () -> {
            String body = reference.get(name).get(0).body();
            assertTrue(body.contains(part), name + ": body " + body + " lacks " + part);
        };
    }
}
