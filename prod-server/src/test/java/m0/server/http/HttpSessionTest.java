package m0.server.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HttpSessionTest {
    private static final Pattern IMF_FIXDATE =
            Pattern.compile("(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \\d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \\d{4} \\d{2}:\\d{2}:\\d{2} GMT");
    private static final String GET = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";

    // ---- the basics ----

    @Test
    void simpleGetAnswersHelloWithDateAndLengthAndStaysOpen() {
        Wire w = Wire.of(new TestApp()).feed(GET);
        String raw = w.drain();
        assertTrue(raw.startsWith("HTTP/1.1 200 OK\r\n"), raw);
        List<Wire.Resp> rs = Wire.parse(raw);
        assertEquals(1, rs.size());
        Wire.Resp r = rs.get(0);
        assertEquals("hello\n", r.body());
        assertEquals("6", r.header("Content-Length"));
        assertEquals("text/plain; charset=utf-8", r.header("Content-Type"));
        assertTrue(IMF_FIXDATE.matcher(r.header("Date")).matches(), r.header("Date"));
        assertNull(r.header("Connection"));
        assertFalse(w.session.closeAfterFlush());
        assertTrue(w.session.idle());
        assertNull(w.session.output());
    }

    @Test
    void keepAliveServesManyRequestsOnOneSession() {
        Wire w = Wire.of(new TestApp());
        for (int i = 0; i < 100; i++) {
            w.feed("GET /n" + i + " HTTP/1.1\r\nHost: h\r\n\r\n");
            List<Wire.Resp> rs = w.responses();
            assertEquals(1, rs.size());
            assertEquals("GET /n" + i, rs.get(0).body());
        }
        assertFalse(w.session.closeAfterFlush());
    }

    @Test
    void requestFieldsReachTheApp() {
        TestApp app = new TestApp();
        Wire w = Wire.of(app).feed("POST /echo?a=1&b=x%20y HTTP/1.1\r\nHost: h\r\nX-Multi: one\r\nx-multi:  two \r\n"
                + "Content-Length: 3\r\n\r\nabc");
        assertEquals("POST /echo?a=1&b=x%20y [abc]", w.responses().get(0).body());
        Request r = app.seen.get(0);
        assertEquals("POST", r.method());
        assertEquals("/echo", r.path());
        assertEquals("a=1&b=x%20y", r.query());
        assertEquals("1", r.queryParam("a"));
        assertEquals("x y", r.queryParam("b"));
        assertNull(r.queryParam("c"));
        assertEquals("HTTP/1.1", r.version());
        assertEquals("h", r.header("HOST"));
        assertEquals("one", r.header("x-multi"));
        assertEquals(List.of("one", "two"), r.headers("X-Multi"));
        assertEquals(List.of("Host", "X-Multi", "x-multi", "Content-Length"), r.headerNames());
        assertNull(r.header("missing"));
    }

    @Test
    void leadingEmptyLinesBeforeARequestAreIgnored() {
        Wire w = Wire.of(new TestApp()).feed("\r\n\r\n" + GET);
        assertEquals(200, w.responses().get(0).status());
    }

    @Test
    void bareLineFeedsAreAccepted() {
        Wire w = Wire.of(new TestApp()).feed("GET /lf HTTP/1.1\nHost: x\n\n");
        assertEquals("GET /lf", w.responses().get(0).body());
    }

    // ---- incremental parsing ----

    private static final String POST_BODY = "POST /echo HTTP/1.1\r\nHost: example\r\nContent-Length: 11\r\n\r\nhello world";

    @Test
    void oneByteAtATimeGivesTheSameResponse() {
        String whole = bodyOf(Wire.of(new TestApp()).feed(POST_BODY + GET).responses());
        Wire w = Wire.of(new TestApp());
        byte[] b = (POST_BODY + GET).getBytes(StandardCharsets.ISO_8859_1);
        for (byte x : b) w.feed(new byte[] {x});
        assertEquals(whole, bodyOf(w.responses()));
        assertEquals("POST /echo [hello world]|hello\n|", whole);
    }

    @Test
    void everySplitPointOfTwoPipelinedRequestsGivesTheSameResponses() {
        String stream = POST_BODY + "GET /second HTTP/1.1\r\nHost: h\r\n\r\n";
        byte[] b = stream.getBytes(StandardCharsets.ISO_8859_1);
        for (int cut = 0; cut <= b.length; cut++) {
            Wire w = Wire.of(new TestApp());
            w.feed(java.util.Arrays.copyOfRange(b, 0, cut));
            w.feed(java.util.Arrays.copyOfRange(b, cut, b.length));
            assertEquals("POST /echo [hello world]|GET /second|", bodyOf(w.responses()), "cut at " + cut);
        }
    }

    private static String bodyOf(List<Wire.Resp> rs) {
        StringBuilder sb = new StringBuilder();
        for (Wire.Resp r : rs) sb.append(r.body()).append('|');
        return sb.toString();
    }

    // ---- pipelining ----

    @Test
    void threePipelinedRequestsInOneBufferAreAnsweredInOrder() {
        Wire w = Wire.of(new TestApp()).feed("GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\n\r\nGET /c HTTP/1.1\r\nHost: h\r\n\r\n");
        ByteBuffer out = w.session.output();
        assertNotNull(out);
        List<Wire.Resp> rs = w.responses();
        assertEquals(3, rs.size());
        assertEquals("GET /a", rs.get(0).body());
        assertEquals("GET /b", rs.get(1).body());
        assertEquals("GET /c", rs.get(2).body());
    }

    @Test
    void pipelinedResponsesComeOutInOneBuffer() {
        Wire w = Wire.of(new TestApp()).feed("GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\n\r\nGET /c HTTP/1.1\r\nHost: h\r\n\r\n");
        ByteBuffer out = w.session.output();
        byte[] all = new byte[out.remaining()];
        out.get(all);
        assertEquals(3, Wire.parse(new String(all, StandardCharsets.ISO_8859_1)).size(), "one write carries all three");
    }

    @Test
    void aBlockingRequestHoldsBackLaterInlineResponsesUntilItCompletes() {
        Wire w = new Wire(HttpConfig.defaults(), new TestApp(), true);
        w.feed("GET /block1 HTTP/1.1\r\nHost: h\r\n\r\nGET /fast1 HTTP/1.1\r\nHost: h\r\n\r\nGET /block2 HTTP/1.1\r\nHost: h\r\n\r\nGET /fast2 HTTP/1.1\r\nHost: h\r\n\r\n");
        assertEquals(2, w.pool.submitted());
        assertNull(w.session.output(), "nothing may pass the first, unfinished response");
        assertEquals(Long.MAX_VALUE, w.session.deadline());
        assertFalse(w.session.idle());

        w.pool.run(1); // block2 finishes first
        assertEquals(1, w.wakes);
        w.session.pollCompletions(w.now);
        assertNull(w.session.output(), "block2 and fast2 wait behind block1");

        w.pool.run(0);
        assertEquals(2, w.wakes);
        assertNull(w.session.output(), "only pollCompletions moves pool responses");
        w.session.pollCompletions(w.now);
        List<Wire.Resp> rs = w.responses();
        assertEquals(List.of("GET /block1", "GET /fast1", "GET /block2", "GET /fast2"),
                rs.stream().map(Wire.Resp::body).toList());
        assertTrue(w.session.idle());
        assertFalse(w.session.closeAfterFlush());
    }

    @Test
    void anInlineResponseBeforeABlockingOneIsWrittenAtOnce() {
        Wire w = new Wire(HttpConfig.defaults(), new TestApp(), true);
        w.feed("GET /fast HTTP/1.1\r\nHost: h\r\n\r\nGET /block HTTP/1.1\r\nHost: h\r\n\r\n");
        assertEquals(List.of("GET /fast"), w.responses().stream().map(Wire.Resp::body).toList());
        w.pool.run(0);
        w.session.pollCompletions(w.now);
        assertEquals(List.of("GET /block"), w.responses().stream().map(Wire.Resp::body).toList());
    }

    @Test
    void withoutAPoolBlockingRequestsRunInline() {
        Wire w = Wire.of(new TestApp()).feed("GET /block HTTP/1.1\r\nHost: h\r\n\r\n");
        assertEquals("GET /block", w.responses().get(0).body());
    }

    @Test
    void parsingStopsAtSixteenQueuedRequestsAndResumesWhenDrained() {
        Wire w = new Wire(HttpConfig.defaults(), new TestApp(), true);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 20; i++) sb.append("GET /block").append(i).append(" HTTP/1.1\r\nHost: h\r\n\r\n");
        w.feed(sb.toString());
        assertEquals(HttpSession.MAX_QUEUED, w.pool.submitted(), "the queue bound holds");
        w.pool.run(0);
        w.session.pollCompletions(w.now);
        assertEquals(HttpSession.MAX_QUEUED + 1, w.pool.submitted(), "one out, one more in");
        for (int i = 1; i < 17; i++) w.pool.run(i);
        w.session.pollCompletions(w.now);
        assertEquals(20, w.pool.submitted());
        for (int i = 17; i < 20; i++) w.pool.run(i);
        w.session.pollCompletions(w.now);
        List<Wire.Resp> rs = w.responses();
        assertEquals(20, rs.size());
        for (int i = 0; i < 20; i++) assertEquals("GET /block" + i, rs.get(i).body());
    }

    @Test
    void aRejectedPoolTaskAnswers503InOrder() {
        Wire w = new Wire(HttpConfig.defaults(), new TestApp(), true);
        w.pool.reject = true;
        w.feed("GET /block HTTP/1.1\r\nHost: h\r\n\r\nGET /after HTTP/1.1\r\nHost: h\r\n\r\n");
        List<Wire.Resp> rs = w.responses();
        assertEquals(503, rs.get(0).status());
        assertEquals("GET /after", rs.get(1).body());
    }

    @Test
    void appFailuresBecome500AndTheConnectionLives() {
        Wire w = new Wire(HttpConfig.defaults(), new TestApp(), true);
        w.feed("GET /throw HTTP/1.1\r\nHost: h\r\n\r\nGET /null HTTP/1.1\r\nHost: h\r\n\r\nGET /blockthrow HTTP/1.1\r\nHost: h\r\n\r\n");
        List<Wire.Resp> rs = w.responses();
        assertEquals(500, rs.get(0).status());
        assertEquals(500, rs.get(1).status());
        // The pool request is answered by the app's default branch; make one that throws on the pool:
        w.pool.run(0);
        w.session.pollCompletions(w.now);
        assertEquals(200, w.responses().get(0).status());
        App throwing = new App() {
            @Override
            public boolean blocking(Request r) {
                return true;
            }

            @Override
            public Response handle(Request r) {
                throw new IllegalStateException("boom on the pool");
            }
        };
        Wire p = new Wire(HttpConfig.defaults(), throwing, true);
        p.feed(GET);
        p.pool.run(0);
        p.session.pollCompletions(p.now);
        assertEquals(500, p.responses().get(0).status());
        assertFalse(p.session.closeAfterFlush());
    }

    // ---- bodies ----

    @Test
    void chunkedBodyWithExtensionsAndTrailersIsDecoded() {
        String req = "POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;name=value;other\r\nhello\r\n"
                + "1 ; x=\"q\"\r\n \r\n"
                + "A\r\nworld12345\r\n"
                + "0;last\r\nX-Trailer: t\r\nX-Other: u\r\n\r\n"
                + GET;
        Wire whole = Wire.of(new TestApp()).feed(req);
        assertEquals("POST /echo [hello world12345]|hello\n|", bodyOf(whole.responses()));
        Wire bytes = Wire.of(new TestApp());
        for (byte b : req.getBytes(StandardCharsets.ISO_8859_1)) bytes.feed(new byte[] {b});
        assertEquals("POST /echo [hello world12345]|hello\n|", bodyOf(bytes.responses()));
    }

    @Test
    void chunkedWithoutTrailersAndUppercaseHexAndBareLf() {
        Wire w = Wire.of(new TestApp()).feed("POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\n\r\n"
                + "0000B\r\nabcdefghijk\r\n3\nxyz\n0\r\n\r\n");
        assertEquals("POST /echo [abcdefghijkxyz]", w.responses().get(0).body());
    }

    @Test
    void emptyBodies() {
        Wire w = Wire.of(new TestApp()).feed("POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n"
                + "POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
        assertEquals("POST /echo []|POST /echo []|", bodyOf(w.responses()));
    }

    @Test
    void bodySplitAcrossReadsArrivesWhole() {
        Wire w = Wire.of(new TestApp());
        w.feed("POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n01234");
        assertNull(w.session.output());
        assertFalse(w.session.idle());
        w.feed("567");
        w.feed("89GET / HTTP/1.1\r\nHost: h\r\n\r\n");
        assertEquals("POST /echo [0123456789]|hello\n|", bodyOf(w.responses()));
    }

    @Test
    void expect100ContinueGetsAnInterimResponse() {
        Wire w = Wire.of(new TestApp()).feed("POST /echo HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n");
        assertEquals("HTTP/1.1 100 Continue\r\n\r\n", w.drain());
        w.feed("ok");
        assertEquals("POST /echo [ok]", w.responses().get(0).body());
    }

    @Test
    void noInterimResponseWhenTheBodyCameWithTheHead() {
        Wire w = Wire.of(new TestApp()).feed("POST /echo HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nok");
        List<Wire.Resp> rs = w.responses();
        assertEquals(1, rs.size(), "no 100 Continue: " + rs);
        assertEquals("POST /echo [ok]", rs.get(0).body());
    }

    // ---- errors ----

    @ParameterizedTest
    @ValueSource(strings = {
        "GET /\r\n\r\n",                                   // no version
        "GET  / HTTP/1.1\r\nHost: h\r\n\r\n",                         // double space
        "GET / HTTP/1.1 \r\n\r\n",                         // trailing space
        "G(T / HTTP/1.1\r\nHost: h\r\n\r\n",                          // bad method char
        "GET /a\u0001b HTTP/1.1\r\nHost: h\r\n\r\n",                  // control in target
        "GET /\u00e9 HTTP/1.1\r\nHost: h\r\n\r\n",                    // non-ASCII target
        " GET / HTTP/1.1\r\nHost: h\r\n\r\n",                         // leading space
        "GET / HTTP/2.0\r\n\r\n",                          // bad version
        "GET / HTTP/1.1\r\n\r\n",                          // no Host (RFC 9112 3.2)
        "GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n",      // two
        "GET / HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n",              // not a host
        "GET / HTTP/1.1\r\nHost: a@b\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: ..\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: .a\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\na",  // even equal
        "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: \tchunked\r\n\r\n0\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: \r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a:8x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: [::1\r\n\r\n",
        "GET * HTTP/1.1\r\nHost: h\r\n\r\n",                // "*" is for OPTIONS only
        "GET h/x HTTP/1.1\r\nHost: h\r\n\r\n",              // no form at all
        "CONNECT h:443 HTTP/1.1\r\nHost: h\r\n\r\n",        // authority-form: not a proxy
        "GET ftp://h/ HTTP/1.1\r\nHost: h\r\n\r\n",
        "GET http://u@h/ HTTP/1.1\r\nHost: h\r\n\r\n",      // userinfo
        "GET http:/// HTTP/1.1\r\nHost: h\r\n\r\n",
        "\r\n\r\n\r\n\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n",  // more than 4 empty lines
        "GET / http/1.1\r\n\r\n",
        "GET / HTTP/1.10\r\n\r\n",
        "GET / HTTP/1.1\r\nHost x\r\n\r\n",                // no colon
        "GET / HTTP/1.1\r\nHost : x\r\n\r\n",              // space before colon
        "GET / HTTP/1.1\r\nHost: h\r\n: x\r\n\r\n",                   // empty name
        "GET / HTTP/1.1\r\nHost: h\r\nBad Name: x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: h\r\nA: b\rc\r\n\r\n",               // bare CR in a value
        "GET / HTTP/1.1\r\nHost: h\r\nA: b\u0000c\r\n\r\n",           // NUL in a value
        "GET / HTTP/1.1\r\nHost: h\r\nA: b\r\n c\r\n\r\n",            // obs-fold
        "GET / HTTP/1.1\r\nHost: h\r\nA: b\r\n\tc\r\n\r\n",           // obs-fold with a tab
        "GET / HTTP/1.1\r\nHost: h\r\n x: y\r\n\r\n",                 // whitespace before the first header
        "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
        "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: abc\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1, 1\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: \r\n\r\n",
        "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1234567890123456789\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, gzip\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: xchunked\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, identity\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
        // Both framings would read the same 5 bytes: only the TE + CL rule rejects these.
        "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",      // bad chunk size
        "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n\r\n",        // empty chunk size
        "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX",   // no CRLF after data
        "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\rX",        // CR without LF
        "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\rX0\r\n\r\n",  // CR without LF after data
        "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0000000000000000001\r\n", // 19 hex digits
        "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3;a\u0001\r\n", // control in an extension
    })
    void malformedInputGets400AndClose(String input) {
        Wire w = Wire.of(new TestApp());
        w.feed(input + GET); // a valid request after it must not be served
        List<Wire.Resp> rs = w.responses();
        assertEquals(1, rs.size(), "only the 400: " + rs);
        assertEquals(400, rs.get(0).status());
        assertEquals("close", rs.get(0).header("Connection"));
        assertTrue(w.session.closeAfterFlush());
        w.feed(GET);
        assertNull(w.session.output(), "nothing is read after the error");
    }

    @Test
    void a400AfterGoodPipelinedRequestsComesAfterTheirResponses() {
        Wire w = Wire.of(new TestApp()).feed("GET /a HTTP/1.1\r\nHost: h\r\n\r\nBROKEN\r\n\r\n");
        List<Wire.Resp> rs = w.responses();
        assertEquals(2, rs.size());
        assertEquals("GET /a", rs.get(0).body());
        assertEquals(400, rs.get(1).status());
        assertTrue(w.session.closeAfterFlush());
    }

    @Test
    void a400BehindABlockingRequestWaitsForIt() {
        Wire w = new Wire(HttpConfig.defaults(), new TestApp(), true);
        w.feed("GET /block HTTP/1.1\r\nHost: h\r\n\r\nBROKEN\r\n\r\n");
        assertNull(w.session.output());
        assertFalse(w.session.closeAfterFlush(), "the blocking response is still owed");
        w.pool.run(0);
        w.session.pollCompletions(w.now);
        List<Wire.Resp> rs = w.responses();
        assertEquals(List.of(200, 400), rs.stream().map(Wire.Resp::status).toList());
        assertTrue(w.session.closeAfterFlush());
    }

    @Test
    void a64KiBHeaderGets431AndClose() {
        Wire w = Wire.of(new TestApp());
        String big = "GET / HTTP/1.1\r\nHost: h\r\nX-Big: " + "a".repeat(64 * 1024) + "\r\n\r\n";
        w.feed(big);
        List<Wire.Resp> rs = w.responses();
        assertEquals(1, rs.size());
        assertEquals(431, rs.get(0).status());
        assertEquals("close", rs.get(0).header("Connection"));
        assertTrue(w.session.closeAfterFlush());
    }

    @Test
    void a431IsSentBeforeTheHeadEndsOnceTheLimitIsPassed() {
        Wire w = Wire.of(new TestApp());
        w.feed("GET / HTTP/1.1\r\nHost: h\r\nX-Big: ");
        for (int i = 0; i < 20 && w.session.output() == null; i++) w.feed("a".repeat(1024));
        assertEquals(431, w.responses().get(0).status());
    }

    @Test
    void theHeaderLimitCountsRequestLineAndHeadersExactly() {
        String req = "GET / HTTP/1.1\r\nHost: h\r\nX: " + "a".repeat(100) + "\r\n\r\n";
        int len = req.length();
        HttpConfig exact = new HttpConfig(len, 1024, 5_000_000_000L, 10_000_000_000L);
        assertEquals(200, new Wire(exact, new TestApp(), false).feed(req).responses().get(0).status());
        HttpConfig under = new HttpConfig(len - 1, 1024, 5_000_000_000L, 10_000_000_000L);
        assertEquals(431, new Wire(under, new TestApp(), false).feed(req).responses().get(0).status());
    }

    @Test
    void aBodyPastTheLimitGets413AndClose() {
        HttpConfig small = new HttpConfig(16 * 1024, 10, 5_000_000_000L, 10_000_000_000L);
        Wire cl = new Wire(small, new TestApp(), false).feed("POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n");
        Wire.Resp r = cl.responses().get(0);
        assertEquals(413, r.status());
        assertEquals("close", r.header("Connection"));
        assertTrue(cl.session.closeAfterFlush());

        Wire ok = new Wire(small, new TestApp(), false).feed("POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n0123456789");
        assertEquals(200, ok.responses().get(0).status());

        Wire chunked = new Wire(small, new TestApp(), false)
                .feed("POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n5\r\n");
        assertEquals(413, chunked.responses().get(0).status());
        assertTrue(chunked.session.closeAfterFlush());

        Wire chunkedOk = new Wire(small, new TestApp(), false)
                .feed("POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n4\r\nghij\r\n0\r\n\r\n");
        assertEquals("POST /echo [abcdefghij]", chunkedOk.responses().get(0).body());
    }

    @Test
    void oversizedTrailersGet431() {
        HttpConfig small = new HttpConfig(128, 1024, 5_000_000_000L, 10_000_000_000L);
        Wire w = new Wire(small, new TestApp(), false)
                .feed("POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: " + "t".repeat(200) + "\r\n\r\n");
        assertEquals(431, w.responses().get(0).status());
    }

    // ---- connection management ----

    @Test
    void connectionCloseIsHonouredAndLaterRequestsAreIgnored() {
        Wire w = Wire.of(new TestApp()).feed("GET /a HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n" + GET);
        List<Wire.Resp> rs = w.responses();
        assertEquals(1, rs.size());
        assertEquals("close", rs.get(0).header("Connection"));
        assertTrue(w.session.closeAfterFlush());
    }

    @Test
    void connectionTokensAreMatchedCaseInsensitivelyInAList() {
        Wire w = Wire.of(new TestApp()).feed("GET /a HTTP/1.1\r\nHost: h\r\nConnection: Upgrade ,  CLOSE\r\n\r\n");
        assertEquals("close", w.responses().get(0).header("Connection"));
        assertTrue(w.session.closeAfterFlush());
    }

    @Test
    void http10ClosesByDefault() {
        Wire w = Wire.of(new TestApp()).feed("GET /a HTTP/1.0\r\n\r\n" + GET);
        List<Wire.Resp> rs = w.responses();
        assertEquals(1, rs.size());
        assertEquals("close", rs.get(0).header("Connection"));
        assertTrue(w.session.closeAfterFlush());
    }

    @Test
    void http10WithKeepAliveStaysOpenAndSaysSo() {
        Wire w = Wire.of(new TestApp()).feed("GET /a HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n");
        Wire.Resp r = w.responses().get(0);
        assertEquals("keep-alive", r.header("Connection"));
        assertFalse(w.session.closeAfterFlush());
        w.feed("GET /b HTTP/1.0\r\n\r\n");
        assertEquals("close", w.responses().get(0).header("Connection"));
        assertTrue(w.session.closeAfterFlush());
    }

    @Test
    void http10ChunkedIsServedThenClosed() {
        Wire w = Wire.of(new TestApp()).feed("POST /echo HTTP/1.0\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n");
        Wire.Resp r = w.responses().get(0);
        assertEquals("POST /echo [hi]", r.body());
        assertEquals("close", r.header("Connection"));
    }

    @Test
    void headGetsHeadersWithoutTheBody() {
        Wire w = Wire.of(new TestApp()).feed("HEAD / HTTP/1.1\r\nHost: h\r\n\r\n");
        String raw = w.drain();
        assertTrue(raw.endsWith("\r\n\r\n"), raw);
        assertTrue(raw.contains("Content-Length: 6\r\n"), raw);
        assertFalse(raw.contains("hello"), raw);
        w.feed(GET);
        assertEquals("hello\n", w.responses().get(0).body(), "the stream stays in step after a HEAD");
    }

    @Test
    void eofAfterTheLastResponseCloses() {
        Wire w = Wire.of(new TestApp()).feed(GET);
        w.session.onEof(w.now);
        assertEquals(1, w.responses().size());
        assertTrue(w.session.closeAfterFlush());
    }

    @Test
    void eofWhileARequestRunsWaitsForItsResponse() {
        Wire w = new Wire(HttpConfig.defaults(), new TestApp(), true).feed("GET /block HTTP/1.1\r\nHost: h\r\n\r\n");
        w.session.onEof(w.now);
        assertFalse(w.session.closeAfterFlush());
        w.pool.run(0);
        w.session.pollCompletions(w.now);
        assertEquals(1, w.responses().size());
        assertTrue(w.session.closeAfterFlush());
    }

    @Test
    void eofWithRequestsStillQueuedAnswersThemAllThenCloses() {
        Wire w = new Wire(HttpConfig.defaults(), new TestApp(), true);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 20; i++) sb.append("GET /block").append(i).append(" HTTP/1.1\r\nHost: h\r\n\r\n");
        w.feed(sb.toString() + "GET /trunc");
        w.session.onEof(w.now);
        int answered = 0;
        for (int round = 0; round < 5 && !w.session.closeAfterFlush(); round++) {
            for (int i = 0; i < w.pool.submitted(); i++) {
                if (w.pool.tasks.get(i) != null) w.pool.run(i);
            }
            w.session.pollCompletions(w.now);
            answered += w.responses().size();
        }
        assertEquals(20, answered, "every complete request is answered, the truncated one dropped");
        assertTrue(w.session.closeAfterFlush());
    }

    @Test
    void connectionCloseOnABlockingRequestClosesAfterIt() {
        Wire w = new Wire(HttpConfig.defaults(), new TestApp(), true);
        w.feed("GET /block HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n" + GET);
        assertFalse(w.session.closeAfterFlush());
        assertEquals(1, w.pool.submitted());
        w.pool.run(0);
        w.session.pollCompletions(w.now);
        List<Wire.Resp> rs = w.responses();
        assertEquals(1, rs.size());
        assertEquals("close", rs.get(0).header("Connection"));
        assertTrue(w.session.closeAfterFlush());
    }

    @Test
    void eofInsideAHeadClosesQuietly() {
        Wire w = Wire.of(new TestApp()).feed("GET / HTT");
        w.session.onEof(w.now);
        assertNull(w.session.output());
        assertTrue(w.session.closeAfterFlush());
    }

    // ---- output ----

    @Test
    void partialWritesResumeWhereTheyStopped() {
        Wire whole = Wire.of(new TestApp()).feed("GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\n\r\n");
        String expected = whole.drain().replaceAll("Date: [^\r]*", "Date: D");

        Wire w = Wire.of(new TestApp()).feed("GET /a HTTP/1.1\r\nHost: h\r\n\r\nGET /b HTTP/1.1\r\nHost: h\r\n\r\n");
        StringBuilder got = new StringBuilder();
        ByteBuffer b;
        int writes = 0;
        while ((b = w.session.output()) != null) {
            assertTrue(writes++ < 10_000);
            int n = Math.min(7, b.remaining());
            byte[] chunk = new byte[n];
            b.get(chunk); // moving position must not matter: written(n) is the accounting
            got.append(new String(chunk, StandardCharsets.ISO_8859_1));
            w.session.written(n);
        }
        assertTrue(writes > 10);
        assertEquals(expected, got.toString().replaceAll("Date: [^\r]*", "Date: D"));
    }

    @Test
    void outputPositionIsTheAccountingNotTheCallers() {
        Wire w = Wire.of(new TestApp()).feed(GET);
        ByteBuffer b = w.session.output();
        int total = b.remaining();
        b.position(b.limit()); // a caller that consumed the buffer but wrote only 3
        w.session.written(3);
        assertEquals(total - 3, w.session.output().remaining());
        assertThrows(IllegalArgumentException.class, () -> w.session.written(total));
        assertThrows(IllegalArgumentException.class, () -> w.session.written(-1));
        w.session.written(0);
        assertEquals(total - 3, w.session.output().remaining());
    }

    @Test
    void newResponsesAppendBehindUnwrittenOutput() {
        Wire w = Wire.of(new TestApp()).feed("GET /a HTTP/1.1\r\nHost: h\r\n\r\n");
        ByteBuffer b = w.session.output();
        String first = new String(bytes(b), StandardCharsets.ISO_8859_1);
        w.session.written(10);
        w.feed("GET /b HTTP/1.1\r\nHost: h\r\n\r\n");
        String rest = w.drain();
        List<Wire.Resp> rs = Wire.parse(first.substring(0, 10) + rest);
        assertEquals(List.of("GET /a", "GET /b"), rs.stream().map(Wire.Resp::body).toList());
    }

    @Test
    void aLargeBodyIsWrittenWhole() {
        byte[] big = new byte[300_000];
        for (int i = 0; i < big.length; i++) big[i] = (byte) ('a' + i % 26);
        App app = r -> Response.bytes(200, "application/octet-stream", big);
        Wire w = Wire.of(app).feed(GET);
        Wire.Resp r = w.responses().get(0);
        assertArrayEquals(big, r.body().getBytes(StandardCharsets.ISO_8859_1));
    }

    @Test
    void aClientThatDoesNotReadStopsParsingAtTheHighWaterMark() {
        byte[] big = new byte[100_000];
        App app = r -> Response.bytes(200, null, big);
        Wire w = Wire.of(app);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 10; i++) sb.append(GET);
        w.feed(sb.toString());
        int pending = w.session.output().remaining();
        assertTrue(pending < 5 * 100_000, "parsing paused, pending " + pending);
        List<Wire.Resp> rs = w.responses(); // draining resumes parsing
        assertEquals(10, rs.size());
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return a;
    }

    // ---- timeouts ----

    private static final long IDLE = 5_000_000_000L;
    private static final long HEADER = 10_000_000_000L;

    @Test
    void idleTimeoutClosesQuietly() {
        Wire w = Wire.of(new TestApp()).feed(GET);
        w.drain();
        long deadline = w.session.deadline();
        assertEquals(w.now + IDLE, deadline);
        w.session.onTimeout(deadline - 1);
        assertFalse(w.session.closeAfterFlush(), "not yet");
        w.session.onTimeout(deadline);
        assertTrue(w.session.closeAfterFlush());
        assertNull(w.session.output(), "an idle close says nothing");
    }

    @Test
    void idleDeadlineMovesWithEachRequest() {
        Wire w = Wire.of(new TestApp());
        assertEquals(w.now + IDLE, w.session.deadline(), "a new connection is idle");
        w.now += 3_000_000_000L;
        w.feed(GET).drain();
        assertEquals(w.now + IDLE, w.session.deadline());
    }

    @Test
    void slowHeadGets408AndClose() {
        Wire w = Wire.of(new TestApp());
        w.now += 1000;
        w.feed("GET / HTTP/1.1\r\nHost: h\r\nHo");
        long start = w.now;
        assertEquals(start + HEADER, w.session.deadline());
        w.now += 4_000_000_000L;
        w.feed("st: x\r\n"); // trickling bytes do not extend a head's time
        assertEquals(start + HEADER, w.session.deadline());
        w.session.onTimeout(start + HEADER - 1);
        assertNull(w.session.output());
        w.session.onTimeout(start + HEADER);
        List<Wire.Resp> rs = w.responses();
        assertEquals(1, rs.size());
        assertEquals(408, rs.get(0).status());
        assertEquals("close", rs.get(0).header("Connection"));
        assertTrue(w.session.closeAfterFlush());
    }

    @Test
    void theHeaderClockStartsAtTheNextHeadNotTheConnection() {
        Wire w = Wire.of(new TestApp()).feed(GET);
        w.drain();
        w.now += 4_000_000_000L;
        w.feed("GET / HT");
        assertEquals(w.now + HEADER, w.session.deadline());
    }

    @Test
    void aRunningRequestHasNoDeadlineAndTheIdleClockRestartsAfterIt() {
        Wire w = new Wire(HttpConfig.defaults(), new TestApp(), true).feed("GET /block HTTP/1.1\r\nHost: h\r\n\r\n");
        assertEquals(Long.MAX_VALUE, w.session.deadline());
        w.session.onTimeout(w.now + 100 * IDLE);
        assertFalse(w.session.closeAfterFlush());
        w.now += 20_000_000_000L;
        w.pool.run(0);
        w.session.pollCompletions(w.now);
        assertEquals(w.now + IDLE, w.session.deadline());
        assertEquals(1, w.responses().size());
    }

    @Test
    void aHeadSentWhileARequestRanGetsItsFullTimeAfterTheResponse() {
        Wire w = new Wire(HttpConfig.defaults(), new TestApp(), true).feed("GET /block HTTP/1.1\r\nHost: h\r\n\r\nGET / HT");
        assertEquals(Long.MAX_VALUE, w.session.deadline());
        w.now += 12_000_000_000L; // longer than the header timeout
        w.pool.run(0);
        w.session.pollCompletions(w.now);
        assertEquals(1, w.responses().size());
        assertEquals(w.now + HEADER, w.session.deadline(), "our slowness is not the client's");
        w.session.onTimeout(w.now);
        assertFalse(w.session.closeAfterFlush());
    }

    @Test
    void aStalledBodyGets408AfterTheBodyTimeout() {
        HttpConfig c = new HttpConfig(16 * 1024, 1024, IDLE, HEADER, 3_000_000_000L);
        Wire w = new Wire(c, new TestApp(), false).feed("POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nab");
        assertEquals(w.now + 3_000_000_000L, w.session.deadline());
        w.now += 2_000_000_000L;
        w.feed("c"); // a byte of body: the body clock measures silence
        assertEquals(w.now + 3_000_000_000L, w.session.deadline());
        w.session.onTimeout(w.now + 3_000_000_000L);
        assertEquals(408, w.responses().get(0).status());
        assertTrue(w.session.closeAfterFlush());
        assertTrue(w.session.lingerOnClose());
    }

    // ---- issue 9: hostile clients ----

    @Test
    void aTrickleOfEmptyLinesRunsTheHeaderClockFromItsFirstByte() {
        Wire w = Wire.of(new TestApp());
        w.feed(GET).drain();
        w.now += 1_000_000_000L;
        long first = w.now;
        w.feed("\n");
        assertEquals(first + HEADER, w.session.deadline(), "an empty line starts the head clock");
        for (int i = 0; i < 3; i++) {
            w.now += 2_000_000_000L;
            w.feed("\n");
        }
        assertEquals(first + HEADER, w.session.deadline(), "later bytes do not move it");
        w.session.onTimeout(first + HEADER);
        assertEquals(408, w.responses().get(0).status());
        assertTrue(w.session.closeAfterFlush());
    }

    @Test
    void pipelinedHeadsWaitingBehindOurUnwrittenOutputAreNotTimedOut() {
        byte[] big = new byte[HttpSession.OUT_HIGH_WATER + 1];
        App app = r -> Response.bytes(200, null, big);
        HttpConfig c = new HttpConfig(16 * 1024, 1024, IDLE, 1_000_000_000L);
        Wire w = new Wire(c, app, false).feed(GET + GET + GET);
        assertFalse(w.session.wantsInput(), "paused at the high-water mark");
        w.now += 2_000_000_000L; // past the header timeout: we are slow to write, not the client to send
        w.session.onTimeout(w.now);
        assertFalse(w.session.closeAfterFlush(), "no 408 while our output waits");
        // The first answer: its head, then its body from the app's array (ADR 0071), in two writes.
        for (long sent = 0; sent < big.length; ) {
            ByteBuffer o = w.session.output();
            sent += o.remaining();
            w.session.written(o.remaining(), w.now);
        }
        List<Wire.Resp> rest = w.responses();
        assertEquals(2, rest.size(), "the other two are served, not 408");
        assertTrue(rest.stream().allMatch(r -> r.status() == 200));
    }

    @Test
    void fiveEmptyLinesAre400AtOnce() {
        Wire w = Wire.of(new TestApp()).feed("\r\n\n\r\n\n");
        assertNull(w.session.output(), "four are tolerated");
        w.feed("\n");
        assertEquals(400, w.responses().get(0).status());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "GET /\r\n",                        // HTTP/0.9
        "GET / HTTP/1.1\r\nHost: h\r\nBad Line\r\n",
        "GET / HTTP/1.1\r\nHost: h\r\n folded\r\n",
        "GET / HTTP/1.1\r\nA: \u0001\r\n",
        "GET * HTTP/1.1\r\n",
    })
    void aBadLineIsAnsweredBeforeTheHeadEnds(String partialHead) {
        Wire w = Wire.of(new TestApp()).feed(partialHead);
        List<Wire.Resp> rs = w.responses();
        assertEquals(1, rs.size(), "answered at the bad line");
        assertEquals(400, rs.get(0).status());
        assertTrue(w.session.closeAfterFlush());
        assertTrue(w.session.lingerOnClose(), "the rest of the request may be on its way");
    }

    @Test
    void aGoodHeadArrivingByteByByteIsNeverRefusedEarly() {
        Wire w = Wire.of(new TestApp());
        for (byte b : "OPTIONS * HTTP/1.1\r\nHost: [::1]:80\r\nX-A: b\tc\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1)) {
            w.feed(new byte[] {b});
        }
        assertEquals(200, w.responses().get(0).status());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "GET / HTTP/1.2\r\nHost: h\r\n\r\n",                // RFC 9110 2.5: served as 1.1
        "GET / HTTP/1.9\r\nHost: h\r\n\r\n",
        "GET / HTTP/1.0\r\n\r\n",                             // Host is optional in 1.0
        "OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n",
        "GET http://h:8080/x?y HTTP/1.1\r\nHost: h\r\n\r\n", // absolute-form: RFC 9112 3.2.2 MUST accept
        "GET HTTPS://h HTTP/1.1\r\nHost: h\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: [::1]\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: xn--a-b_c.example~\r\n\r\n",
    })
    void acceptedShapes(String input) {
        Wire w = Wire.of(new TestApp()).feed(input);
        List<Wire.Resp> rs = w.responses();
        assertEquals(1, rs.size());
        assertEquals(200, rs.get(0).status(), input);
    }

    @Test
    void http12IsServedAsHttp11() {
        TestApp app = new TestApp();
        Wire w = Wire.of(app).feed("GET / HTTP/1.2\r\nHost: h\r\n\r\n");
        assertEquals(200, w.responses().get(0).status());
        assertEquals("HTTP/1.1", app.seen.get(0).version());
        assertFalse(w.session.closeAfterFlush(), "1.1 keeps alive");
    }

    @Test
    void anUnknownTransferCodingBeforeChunkedIs501() {
        Wire w = Wire.of(new TestApp()).feed("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n");
        Wire.Resp r = w.responses().get(0);
        assertEquals(501, r.status());
        assertEquals("close", r.header("Connection"));
    }

    @Test
    void aPipelinedFloodStopsTheReadingAndBuffersAtMostOneRead() {
        Wire w = Wire.of(new TestApp());
        byte[] read = GET.repeat(64 * 1024 / GET.length()).getBytes(StandardCharsets.ISO_8859_1);
        int reads = 0;
        while (w.session.wantsInput()) {
            assertTrue(++reads < 1000, "reading never stopped");
            w.feed(read);
            assertTrue(w.session.bufferedInput() <= 16 * 1024 + read.length, "buffered " + w.session.bufferedInput());
        }
        assertTrue(w.session.output().remaining() > HttpSession.OUT_HIGH_WATER);
        w.drain();
        assertTrue(w.session.wantsInput(), "written output lets it read again");
    }

    @Test
    void aRunningBlockingQueueStopsTheReading() {
        Wire w = new Wire(HttpConfig.defaults(), new TestApp(), true);
        w.feed("GET /block HTTP/1.1\r\nHost: h\r\n\r\n".repeat(HttpSession.MAX_QUEUED + 4));
        assertFalse(w.session.wantsInput());
        for (int i = 0; i < HttpSession.MAX_QUEUED; i++) w.pool.run(i);
        w.session.pollCompletions(w.now);
        w.drain();
        assertTrue(w.session.wantsInput() || w.pool.submitted() > HttpSession.MAX_QUEUED);
    }

    @Test
    void lingeringIsWantedAfterErrorsAndDroppedBytesOnly() {
        Wire ok = Wire.of(new TestApp()).feed("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n");
        ok.drain();
        assertTrue(ok.session.closeAfterFlush());
        assertFalse(ok.session.lingerOnClose(), "a clean close needs no lingering");
        Wire dropped = Wire.of(new TestApp()).feed("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\nGET /");
        dropped.drain();
        assertTrue(dropped.session.lingerOnClose(), "bytes were dropped");
        Wire big = new Wire(new HttpConfig(1024, 10, IDLE, HEADER), new TestApp(), false)
                .feed("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 100\r\n\r\n");
        assertEquals(413, big.responses().get(0).status());
        assertTrue(big.session.lingerOnClose());
        big.session.onEof(big.now);
        assertFalse(big.session.lingerOnClose(), "the peer has finished sending");
    }

    @Test
    void aSlowReaderIsNotCutOffWhileItMakesProgress() {
        App app = r -> Response.bytes(200, null, new byte[10_000]);
        Wire w = Wire.of(app).feed(GET);
        w.session.written(100); // a partial write
        long d = w.session.deadline();
        w.session.onTimeout(d);
        assertFalse(w.session.closeAfterFlush(), "progress since the last check re-arms the deadline");
        assertEquals(d + IDLE, w.session.deadline());
        w.session.onTimeout(d + IDLE);
        assertTrue(w.session.closeAfterFlush(), "no progress: give up");
        assertNull(w.session.output());
    }

    @Test
    void idleReportsPartialRequestsAndUnwrittenOutput() {
        Wire w = Wire.of(new TestApp());
        assertTrue(w.session.idle());
        w.feed("GET / HTTP/1.1\r\nHost: h\r\n");
        assertFalse(w.session.idle(), "a head is partly read");
        w.feed("\r\n");
        assertFalse(w.session.idle(), "a response waits to be written");
        w.drain();
        assertTrue(w.session.idle());
    }
}
