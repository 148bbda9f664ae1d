package m0.server.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class EncodingTest {
    @Test
    void imfFixdateMatchesTheRfcExample() {
        assertEquals("Sun, 06 Nov 1994 08:49:37 GMT", HttpDate.format(784111777L));
        assertEquals("Thu, 01 Jan 1970 00:00:00 GMT", HttpDate.format(0));
        assertEquals("Tue, 29 Feb 2028 23:59:59 GMT", HttpDate.format(1835481599L));
    }

    @Test
    void theDateLineIsCachedPerSecond() {
        byte[] a = HttpDate.line(784111777_000L);
        byte[] b = HttpDate.line(784111777_999L);
        assertSame(a, b, "same second, same bytes");
        assertEquals("Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n", new String(a, StandardCharsets.ISO_8859_1));
        byte[] c = HttpDate.line(784111778_000L);
        assertEquals("Date: Sun, 06 Nov 1994 08:49:38 GMT\r\n", new String(c, StandardCharsets.ISO_8859_1));
    }

    @Test
    void exactWireBytesOfAResponse() {
        App app = r -> new Response(201, "application/json", "{}".getBytes(StandardCharsets.UTF_8), "X-A", "1");
        Wire w = Wire.of(app).feed("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
        String raw = w.drain().replaceAll("Date: [^\r]*", "Date: D");
        assertEquals("HTTP/1.1 201 Created\r\nDate: D\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
                + "X-A: 1\r\n\r\n{}", raw);
    }

    @Test
    void noContentHasNoLengthAndNoBody() {
        App app = r -> new Response(204, null, "ignored".getBytes(StandardCharsets.UTF_8));
        String raw = Wire.of(app).feed("GET / HTTP/1.1\r\nHost: h\r\n\r\n").drain();
        assertTrue(raw.endsWith("\r\n\r\n") && !raw.contains("Content-Length") && !raw.contains("ignored"), raw);
    }

    @Test
    void responseRejectsFramingHeadersAndInjection() {
        assertThrows(IllegalArgumentException.class, () -> new Response(200, null, null, "Content-Length", "5"));
        assertThrows(IllegalArgumentException.class, () -> new Response(200, null, null, "connection", "close"));
        assertThrows(IllegalArgumentException.class, () -> new Response(200, null, null, "X", "a\r\nInjected: 1"));
        assertThrows(IllegalArgumentException.class, () -> new Response(200, null, null, "Bad Name", "v"));
        assertThrows(IllegalArgumentException.class, () -> new Response(200, null, null, "Odd"));
        assertThrows(IllegalArgumentException.class, () -> new Response(99, null, null));
        Response r = Response.text(200, "x").withHeader("Cache-Control", "no-store");
        assertEquals("no-store", r.header("cache-control"));
        assertNull(r.header("other"));
        assertArrayEquals("x".getBytes(StandardCharsets.UTF_8), r.body());
        assertEquals("Not Found\n", new String(Response.status(404).body(), StandardCharsets.UTF_8));
    }

    @Test
    void requestPathsAndQueries() {
        Request r = Request.of("GET", "http://example.com/a/b?x=1", null);
        assertEquals("/a/b", r.path());
        assertEquals("1", r.queryParam("x"));
        Request bare = Request.of("GET", "http://example.com", null);
        assertEquals("/", bare.path());
        Request flags = Request.of("GET", "/p?flag&k=v&k=w&e=", null);
        assertEquals("", flags.queryParam("flag"));
        assertEquals("v", flags.queryParam("k"));
        assertEquals("", flags.queryParam("e"));
        Request star = Request.of("OPTIONS", "*", null);
        assertEquals("*", star.path());
        assertNull(star.query());
        assertThrows(IllegalArgumentException.class, () -> Request.of("GET", "/?a=%zz", null).queryParam("a"));
    }

    @Test
    void configValidatesAndHasTheContractDefaults() {
        HttpConfig d = HttpConfig.defaults();
        assertEquals(16 * 1024, d.maxHeaderBytes());
        assertEquals(1024 * 1024, d.maxBodyBytes());
        assertEquals(5_000_000_000L, d.idleTimeoutNanos());
        assertEquals(10_000_000_000L, d.headerTimeoutNanos());
        assertThrows(IllegalArgumentException.class, () -> new HttpConfig(10, 1, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new HttpConfig(1024, -1, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new HttpConfig(1024, 1, 0, 1));
    }
}
