package m0.server.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Range on a file answer, in the session (ADR 0071's addendum). The file is read into the output
 * here ({@link BodyFiles#JAVA}: no descriptor), the path TLS takes; the sendfile path is
 * FileAnswersIntegrationTest's. Each answer's head, body bytes against the file's slice, and log.
 */
class FileRangeSessionTest {

    private static final int LENGTH = 200_000;
    private static final String ETAG = "\"5f-30d40\"";
    private static final String MODIFIED = "Sun, 06 Nov 1994 08:49:37 GMT";
    private static final String FUTURE = "Fri, 01 Jan 2100 00:00:00 GMT";

    @TempDir
    Path dir;

    private Path file;
    private byte[] bytes;
    /** What the observer was told: status, bytes, cut. */
    private final List<long[]> logged = new ArrayList<>();

    @BeforeEach
    void aFile() throws IOException {
        bytes = new byte[LENGTH];
        new Random(7).nextBytes(bytes);
        file = Files.write(dir.resolve("v.bin"), bytes);
    }

    /**
     * /f: the file with validators; /404: the file at 404; /none, /None: the app says no ranges;
     * /bytes: the app says the ranges the server takes itself; /cors: CORS, HSTS and a stray Content-Range;
     * /future: a Last-Modified later than any Date this test's answers carry.
     */
    private HttpSession session() {
        App app = r -> switch (r.path()) {
            case "/404" -> Response.file(404, "text/html", file);
            case "/none" -> Response.file(200, null, file, "Accept-Ranges", "none");
            case "/None" -> Response.file(200, null, file, "accept-ranges", "None");
            case "/cors" -> Response.file(200, "video/mp4", file, "Access-Control-Allow-Origin", "*",
                    "Strict-Transport-Security", "max-age=63072000", "ETag", ETAG, "Content-Range", "bytes 0-0/1");
            case "/bytes" -> Response.file(200, "video/mp4", file, "Accept-Ranges", "bytes", "ETag", ETAG);
            case "/future" -> Response.file(200, "video/mp4", file, "ETag", ETAG, "Last-Modified", FUTURE);
            default -> Response.file(200, "video/mp4", file, "ETag", ETAG, "Last-Modified", MODIFIED);
        };
        return new HttpSession(HttpConfig.defaults(), app, null, () -> { }, 1L,
                (request, status, sent, start, cut) -> logged.add(new long[] {status, sent, cut ? 1 : 0}));
    }

    private record Answer(String head, byte[] body) {
    }

    /** One request's answer, the output written in full. */
    private static Answer ask(HttpSession s, String method, String path, String... headers) {
        StringBuilder req = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: x\r\n");
        for (String h : headers) req.append(h).append("\r\n");
        s.onBytes(ByteBuffer.wrap(req.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1)), 2L);
        byte[] wire = Wire.drainBytes(s, 3L);
        String text = new String(wire, StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n") + 4;
        return new Answer(text.substring(0, end), Arrays.copyOfRange(wire, end, wire.length));
    }

    private void assertSlice(Answer a, long first, long last) {
        assertTrue(a.head.startsWith("HTTP/1.1 206 Partial Content\r\n"), a.head);
        assertTrue(a.head.contains("\r\nContent-Range: bytes " + first + "-" + last + "/" + LENGTH + "\r\n"), a.head);
        assertTrue(a.head.contains("\r\nContent-Length: " + (last - first + 1) + "\r\n"), a.head);
        assertTrue(a.head.contains("\r\nAccept-Ranges: bytes\r\n"), a.head);
        assertTrue(a.head.contains("\r\nContent-Type: video/mp4\r\n") && a.head.contains("\r\nETag: " + ETAG + "\r\n"),
                "the app's own fields stay: " + a.head);
        assertArrayEquals(Arrays.copyOfRange(bytes, (int) first, (int) last + 1), a.body, "the file's slice");
    }

    private void assertWhole(Answer a) {
        assertTrue(a.head.startsWith("HTTP/1.1 200 OK\r\n"), a.head);
        assertTrue(a.head.contains("\r\nContent-Length: " + LENGTH + "\r\n"), a.head);
        assertFalse(a.head.contains("Content-Range"), a.head);
        assertArrayEquals(bytes, a.body, "the whole file");
    }

    @Test
    void oneRangeIs206WithItsSliceFromItsOffsetOnAKeptConnection() {
        HttpSession s = session();
        assertSlice(ask(s, "GET", "/f", "Range: bytes=100-199"), 100, 199);
        assertSlice(ask(s, "GET", "/f", "Range: bytes=70000-"), 70_000, LENGTH - 1); // several read chunks
        assertSlice(ask(s, "GET", "/f", "Range: bytes=-10"), LENGTH - 10, LENGTH - 1);
        assertSlice(ask(s, "GET", "/f", "Range: bytes=199990-999999"), 199_990, LENGTH - 1);
        Answer whole = ask(s, "GET", "/f");
        assertWhole(whole);
        assertTrue(whole.head.contains("\r\nAccept-Ranges: bytes\r\n"), "a 200 file answer says it takes ranges");
        assertEquals(List.of(206L, 100L, 206L, 130_000L, 206L, 10L, 206L, 10L, 200L, (long) LENGTH),
                logged.stream().flatMap(l -> java.util.stream.Stream.of(l[0], l[1])).toList(), "status and bytes logged");
        assertFalse(s.closeAfterFlush());
    }

    @Test
    void nothingSatisfiableIs416WithTheLengthAndTheConnectionGoesOn() {
        HttpSession s = session();
        Answer a = ask(s, "GET", "/f", "Range: bytes=200000-");
        assertTrue(a.head.startsWith("HTTP/1.1 416 Range Not Satisfiable\r\n"), a.head);
        assertTrue(a.head.contains("\r\nContent-Range: bytes */" + LENGTH + "\r\n"), a.head);
        assertEquals("Range Not Satisfiable\n", new String(a.body, StandardCharsets.UTF_8));
        assertTrue(ask(s, "GET", "/f", "Range: bytes=-0").head.startsWith("HTTP/1.1 416 "));
        assertSlice(ask(s, "GET", "/f", "Range: bytes=0-0"), 0, 0);
        assertEquals(416L, logged.get(0)[0]);
    }

    @Test
    void malformedOrSeveralRangesOrAnotherUnitGetTheWholeFile() {
        HttpSession s = session();
        for (String range : List.of("bytes=5-4", "bytes=x-", "items=0-1", "bytes=0-1,5-6")) {
            assertWhole(ask(s, "GET", "/f", "Range: " + range));
        }
        assertWhole(ask(s, "GET", "/f", "Range: bytes=0-1", "Range: bytes=2-3")); // two fields: ignored
    }

    @Test
    void ifRangeThatMatchesTheAnswersValidatorsIsASliceElseTheWholeFile() {
        HttpSession s = session();
        assertSlice(ask(s, "GET", "/f", "Range: bytes=1-2", "If-Range: " + ETAG), 1, 2);
        assertSlice(ask(s, "GET", "/f", "Range: bytes=1-2", "If-Range: " + MODIFIED), 1, 2);
        assertWhole(ask(s, "GET", "/f", "Range: bytes=1-2", "If-Range: \"other\""));
        assertWhole(ask(s, "GET", "/f", "Range: bytes=1-2", "If-Range: W/" + ETAG)); // weak: never a strong match
        assertWhole(ask(s, "GET", "/f", "Range: bytes=1-2", "If-Range: Mon, 07 Nov 1994 08:49:37 GMT"));
        assertWhole(ask(s, "GET", "/f", "Range: bytes=1-2", "If-Range: garbage"));
        assertWhole(ask(s, "GET", "/none", "Range: bytes=1-2", "If-Range: " + ETAG)); // no validators here
    }

    /** A date is strong only a second or more before the answer's Date (RFC 9110 13.1.5): an equal later one is not. */
    @Test
    void ifRangeEqualToALastModifiedNotBeforeTheDateIsTheWholeFile() {
        HttpSession s = session();
        assertWhole(ask(s, "GET", "/future", "Range: bytes=1-2", "If-Range: " + FUTURE));
        assertSlice(ask(s, "GET", "/future", "Range: bytes=1-2"), 1, 2); // without If-Range the range is served
    }

    @Test
    void headGetsTheHeadGetWouldAndOtherAnswersAreNotRanged() {
        HttpSession s = session();
        // A server MUST ignore Range on any method but GET (RFC 9110 14.2): HEAD gets GET's 200 head.
        for (String range : List.of("bytes=10-19", "bytes=999999-")) {
            Answer head = ask(s, "HEAD", "/f", "Range: " + range);
            assertTrue(head.head.startsWith("HTTP/1.1 200 OK\r\n") && !head.head.contains("Content-Range")
                    && head.head.contains("\r\nContent-Length: " + LENGTH + "\r\n")
                    && head.head.contains("\r\nAccept-Ranges: bytes\r\n"), head.head);
            assertEquals(0, head.body.length, "HEAD: no body");
        }

        Answer notFound = ask(s, "GET", "/404", "Range: bytes=0-9");
        assertTrue(notFound.head.startsWith("HTTP/1.1 404 ") && !notFound.head.contains("Range"), notFound.head);
        assertEquals(LENGTH, notFound.body.length, "another status is sent whole");

        Answer none = ask(s, "GET", "/none", "Range: bytes=0-9");
        assertTrue(none.head.startsWith("HTTP/1.1 200 ") && none.head.contains("\r\nAccept-Ranges: none\r\n")
                && !none.head.contains("Accept-Ranges: bytes"), none.head);
        assertEquals(LENGTH, none.body.length, "the app said no ranges");

        Answer post = ask(s, "POST", "/f", "Range: bytes=0-9", "Content-Length: 0");
        assertTrue(post.head.startsWith("HTTP/1.1 200 ") && !post.head.contains("Accept-Ranges"), post.head);
        assertEquals(LENGTH, post.body.length, "ranges are GET's");
    }

    @Test
    void anAppsOwnAcceptRangesTurnsRangesOffOnlyWhenItSaysNone() {
        HttpSession s = session();
        Answer bytesSaid = ask(s, "GET", "/bytes", "Range: bytes=100-199");
        assertSlice(bytesSaid, 100, 199);
        assertEquals(1, bytesSaid.head.split("(?i)\r\nAccept-Ranges:", -1).length - 1, "one Accept-Ranges: " + bytesSaid.head);
        Answer noneSaid = ask(s, "GET", "/None", "Range: bytes=100-199");
        assertTrue(noneSaid.head.startsWith("HTTP/1.1 200 ") && noneSaid.head.contains("\r\naccept-ranges: None\r\n")
                && !noneSaid.head.contains("Content-Range"), noneSaid.head);
        assertEquals(LENGTH, noneSaid.body.length, "none, in any case: the whole file");
    }

    @Test
    void a416KeepsTheAppsHeadersButTheRangeAndTypeFieldsTheServerWrites() {
        HttpSession s = session();
        Answer a = ask(s, "GET", "/cors", "Range: bytes=" + LENGTH + "-");
        assertTrue(a.head.startsWith("HTTP/1.1 416 Range Not Satisfiable\r\n"), a.head);
        assertTrue(a.head.contains("\r\nAccess-Control-Allow-Origin: *\r\n")
                && a.head.contains("\r\nStrict-Transport-Security: max-age=63072000\r\n")
                && a.head.contains("\r\nETag: " + ETAG + "\r\n"), "the app's headers stay: " + a.head);
        assertEquals(1, a.head.split("(?i)\r\nContent-Range:", -1).length - 1, "one Content-Range: " + a.head);
        assertTrue(a.head.contains("\r\nContent-Range: bytes */" + LENGTH + "\r\n")
                && a.head.contains("\r\nContent-Type: text/plain; charset=utf-8\r\n") && !a.head.contains("video/mp4")
                && a.head.contains("\r\nContent-Length: 22\r\n"), "the server's own fields for its text: " + a.head);
        assertEquals("Range Not Satisfiable\n", new String(a.body, StandardCharsets.UTF_8));
    }
}
