package m0.server.jdkhttp;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * The requests of the harness, each a named case played on one fresh connection: the bytes
 * (sometimes in parts, sometimes several requests in one write) and the method of every request
 * in order, which the client needs to know where a HEAD's response ends.
 *
 * <p>Every request carries {@code Host: conformance}, never the port: the port differs between
 * the two servers and would leak into what they echo.
 */
final class ConformanceCorpus {

    sealed interface Step permits Send, Pause, AwaitContinue, AwaitResponse {
    }

    record Send(byte[] bytes) implements Step {
    }

    record Pause(int millis) implements Step {
    }

    /** Wait up to 1 s for a 1xx (kept as the next response's interim) before sending on. */
    record AwaitContinue() implements Step {
    }

    /** Read the next request's response completely before the next step. */
    record AwaitResponse() implements Step {
    }

    record Case(String name, List<Step> steps, List<String> methods) {
    }

    private ConformanceCorpus() {
    }

    static final String HOST = "Host: conformance";
    static final String X_LONG_8K = "x".repeat(8 << 10);
    static final String X_LONG_100K = "y".repeat(100 << 10);

    static List<Case> cases() {
        List<Case> c = new ArrayList<>();
        // Response shapes the handler chooses through sendResponseHeaders.
        c.add(one("get-fixed", get("/fixed")));
        c.add(one("get-chunked", get("/chunked")));
        c.add(one("get-nobody", get("/nobody")));
        c.add(one("get-empty-chunked", get("/empty-chunked")));
        c.add(one("get-204", get("/204")));
        c.add(one("get-304", get("/304")));
        c.add(one("get-head-aware", get("/head-aware")));
        c.add(one("head-head-aware", req("HEAD", "/head-aware")));
        c.add(one("head-fixed", req("HEAD", "/fixed")));
        c.add(one("head-chunked", req("HEAD", "/chunked")));
        c.add(one("head-nobody", req("HEAD", "/nobody")));
        c.add(one("get-big", get("/big")));
        c.add(one("get-executor", get("/executor")));

        // Request bodies and methods, as /echo reads them.
        c.add(one("post-fixed", body("POST", "/echo", "hello world", "Content-Length: 11")));
        c.add(one("post-chunked", body("POST", "/echo",
                "5;ext=1\r\nhello\r\n1\r\n \r\nA\r\nworld, 10\n\r\n0\r\n\r\n", "Transfer-Encoding: chunked")));
        c.add(one("post-chunked-trailer", body("POST", "/echo",
                "5\r\nhello\r\n0\r\nX-Trailer: t\r\n\r\n", "Transfer-Encoding: chunked")));
        c.add(one("post-chunked-bad-size", body("POST", "/echo", "zz\r\nhello\r\n0\r\n\r\n", "Transfer-Encoding: chunked")));
        c.add(one("post-chunked-and-length", cat(head("POST", "/echo", "HTTP/1.1", "Content-Length: 3",
                "Transfer-Encoding: chunked"), raw("3\r\nabc\r\n0\r\n\r\n"))));
        c.add(one("post-empty-length", body("POST", "/echo", "", "Content-Length: 0")));
        c.add(one("post-no-length", req("POST", "/echo")));
        c.add(one("put-fixed", body("PUT", "/echo", "put-body", "Content-Length: 8")));
        c.add(one("delete", req("DELETE", "/echo")));
        c.add(one("brew", body("BREW", "/echo", "tea", "Content-Length: 3")));
        c.add(one("options-star", raw("OPTIONS * HTTP/1.1\r\n" + HOST + "\r\n\r\n"), "OPTIONS"));
        c.add(new Case("expect-continue", List.of(
                send(head("POST", "/echo", "HTTP/1.1", "Content-Length: 5", "Expect: 100-continue")),
                new AwaitContinue(), send("abcde")), List.of("POST")));
        c.add(new Case("expect-continue-chunked", List.of(
                send(head("POST", "/echo", "HTTP/1.1", "Transfer-Encoding: chunked", "Expect: 100-continue")),
                new AwaitContinue(), send("3\r\nabc\r\n0\r\n\r\n")), List.of("POST")));
        c.add(new Case("post-split-body", List.of(
                send(head("POST", "/echo", "HTTP/1.1", "Content-Length: 10")), new Pause(50),
                send("01234"), new Pause(50), send("56789")), List.of("POST")));

        // Connection management.
        c.add(new Case("keep-alive-two", List.of(send(get("/fixed")), new AwaitResponse(), send(get("/nobody"))),
                List.of("GET", "GET")));
        c.add(one("connection-close", head("GET", "/fixed", "HTTP/1.1", "Connection: close")));
        c.add(one("http10", head("GET", "/fixed", "HTTP/1.0")));
        c.add(one("http10-chunked-handler", head("GET", "/chunked", "HTTP/1.0")));
        c.add(new Case("http10-keep-alive", List.of(
                send(head("GET", "/fixed", "HTTP/1.0", "Connection: keep-alive")), new AwaitResponse(),
                send(head("GET", "/nobody", "HTTP/1.0", "Connection: keep-alive"))), List.of("GET", "GET")));
        c.add(new Case("pipelined-3", List.of(send(cat(get("/fixed"), get("/chunked"), get("/headers?p=3")))),
                List.of("GET", "GET", "GET")));
        c.add(new Case("pipelined-head-middle", List.of(send(cat(get("/fixed"), req("HEAD", "/head-aware"), get("/nobody")))),
                List.of("GET", "HEAD", "GET")));
        c.add(new Case("pipelined-post-then-get", List.of(send(cat(
                body("POST", "/echo", "abc", "Content-Length: 3"), get("/fixed")))), List.of("POST", "GET")));

        // Headers.
        c.add(one("headers-repeated", head("GET", "/headers", "HTTP/1.1", "X-Rep: 1", "X-Rep: 2", "x-rep: 3",
                "UPPER-CASE: v", "Mixed-Case-Name: w")));
        c.add(one("header-8k", head("GET", "/headers", "HTTP/1.1", "X-Long: " + X_LONG_8K)));
        c.add(one("header-100k", head("GET", "/headers", "HTTP/1.1", "X-Long: " + X_LONG_100K)));
        c.add(one("header-1m", head("GET", "/headers", "HTTP/1.1", "X-Long: " + "z".repeat(1 << 20))));
        c.add(one("no-host", raw("GET /headers HTTP/1.1\r\n\r\n"), "GET"));

        // Handler failures and wrong lengths; each followed by a pipelined GET: does the connection survive?
        for (String path : List.of("/throw-before", "/throw-after", "/short", "/long", "/no-close")) {
            c.add(one("get" + path.replace('/', '-'), get(path)));
        }
        for (String path : List.of("/throw-before", "/throw-after", "/short", "/long", "/no-close")) {
            c.add(new Case("then-get" + path.replace('/', '-'), List.of(send(cat(get(path), get("/nobody")))),
                    List.of("GET", "GET")));
        }

        // Filters and authentication.
        c.add(one("filtered", get("/filtered")));
        c.add(one("private-none", get("/private")));
        c.add(one("private-wrong", head("GET", "/private", "HTTP/1.1", "Authorization: Basic " + basic("u:wrong"))));
        c.add(one("private-right", head("GET", "/private", "HTTP/1.1", "Authorization: Basic " + basic("u:p"))));
        c.add(one("private-not-basic", head("GET", "/private", "HTTP/1.1", "Authorization: Bearer abc")));

        // Context matching (the JDK's prefix rule is what gets recorded).
        for (String path : List.of("/", "/zzz", "/a", "/a/", "/ab", "/a/b", "/a/bc", "/a/b/c", "/A", "/fixedx", "/a/../a/b")) {
            c.add(one("prefix " + path, get(path)));
        }

        // Request targets.
        c.add(one("query-encoded", get("/headers?x=1&y=%20z%26&x=2")));
        c.add(one("path-encoded", get("/headers/p%20q/%C3%A9?a=%2F")));
        c.add(one("query-empty", get("/headers?")));
        c.add(one("absolute-form", raw("GET http://conformance/headers?abs=1 HTTP/1.1\r\n" + HOST + "\r\n\r\n"), "GET"));

        // Malformed requests.
        c.add(one("bad-request-line", raw("GARBAGE\r\n\r\n"), "GET"));
        c.add(one("bad-version", raw("GET /fixed HTTP/9.9\r\n" + HOST + "\r\n\r\n"), "GET"));
        c.add(one("bad-header-no-colon", raw("GET /fixed HTTP/1.1\r\n" + HOST + "\r\nNoColonHere\r\n\r\n"), "GET"));
        return c;
    }

    // ---- building blocks ----

    private static Case one(String name, byte[] request) {
        return one(name, request, method(request));
    }

    private static Case one(String name, byte[] request, String method) {
        return new Case(name, List.of(send(request)), List.of(method));
    }

    private static String method(byte[] request) {
        String s = new String(request, StandardCharsets.ISO_8859_1);
        return s.substring(0, s.indexOf(' '));
    }

    private static Send send(byte[] bytes) {
        return new Send(bytes);
    }

    private static Send send(String s) {
        return new Send(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    static byte[] get(String target) {
        return req("GET", target);
    }

    static byte[] req(String method, String target) {
        return head(method, target, "HTTP/1.1");
    }

    static byte[] head(String method, String target, String version, String... headers) {
        StringBuilder sb = new StringBuilder(method).append(' ').append(target).append(' ').append(version)
                .append("\r\n").append(HOST).append("\r\n");
        for (String h : headers) {
            sb.append(h).append("\r\n");
        }
        return sb.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    static byte[] body(String method, String target, String body, String framingHeader) {
        return cat(head(method, target, "HTTP/1.1", framingHeader), body.getBytes(StandardCharsets.ISO_8859_1));
    }

    static byte[] raw(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    static byte[] cat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] all = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, all, at, p.length);
            at += p.length;
        }
        return all;
    }

    private static String basic(String userColonPassword) {
        return Base64.getEncoder().encodeToString(userColonPassword.getBytes(StandardCharsets.UTF_8));
    }
}
