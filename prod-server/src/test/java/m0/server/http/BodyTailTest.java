package m0.server.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ADR 0071 on the session: a large array answer leaves from the app's own array after its head,
 * and a file answer is its head with the file's length, then the file (read into the output
 * here: {@link BodyFiles#JAVA} has no descriptor; the worker's sendfile is SendfileTest's),
 * logged with the bytes that left, cut when the file shrinks under it.
 */
class BodyTailTest {

    private static final String GET = "GET /f HTTP/1.1\r\nHost: x\r\n\r\n";

    @TempDir
    Path dir;

    /** What the observer was told: status, bytes, cut. */
    private final List<long[]> logged = new ArrayList<>();

    private HttpSession session(App app) {
        return new HttpSession(HttpConfig.defaults(), app, null, () -> { }, 1L,
                (request, status, bytes, start, cut) -> logged.add(new long[] {status, bytes, cut ? 1 : 0}));
    }

    private static void feed(HttpSession s, String request) {
        ByteBuffer in = ByteBuffer.wrap(request.getBytes(StandardCharsets.ISO_8859_1));
        s.onBytes(in, 2L);
    }

    /** Everything the session outputs, written in full; the test fails if it never ends. */
    private static byte[] drain(HttpSession s) {
        return Wire.drainBytes(s, 3L);
    }

    private static byte[] bodyOf(byte[] wire) {
        String text = new String(wire, StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        return java.util.Arrays.copyOfRange(wire, end + 4, wire.length);
    }

    private static String headOf(byte[] wire) {
        String text = new String(wire, StandardCharsets.ISO_8859_1);
        return text.substring(0, text.indexOf("\r\n\r\n") + 2);
    }

    private Path file(String name, int length) throws IOException {
        byte[] b = new byte[length];
        new Random(length).nextBytes(b);
        return Files.write(dir.resolve(name), b);
    }

    @Test
    void aLargeArrayAnswerIsWrittenFromTheAppsOwnArrayAfterItsHead() {
        byte[] big = new byte[1 << 20];
        new Random(1).nextBytes(big);
        HttpSession s = session(r -> Response.bytes(200, "application/octet-stream", big));
        feed(s, GET);
        ByteBuffer first = s.output();
        assertNotSame(big, first.array(), "the head and the body's first bytes, in the output");
        int firstLength = first.remaining();
        s.written(firstLength, 3L);
        ByteBuffer rest = s.output();
        assertSame(big, rest.array(), "the rest of the body is the app's array itself: no copy into the output");
        assertEquals(big.length - rest.remaining(), rest.position());
        int from = rest.position();
        byte[] tail = drain(s);
        assertEquals(big.length, from + tail.length, "every byte of the body left");
        assertArrayEquals(java.util.Arrays.copyOfRange(big, big.length - tail.length, big.length), tail);
        assertEquals(1, logged.size());
        assertEquals(big.length, logged.get(0)[1], "logged with its length once the last byte left");
        assertEquals(0, logged.get(0)[2]);
        assertTrue(s.idle());
    }

    @Test
    void aFileAnswerIsItsLengthThenItsBytesAndAPipelinedAnswerWaitsBehindIt() throws IOException {
        Path f = file("a.bin", 200_000);
        HttpSession s = session(r -> r.path().equals("/f") ? Response.file(200, "application/octet-stream", f)
                : Response.text(200, "after"));
        feed(s, GET + "GET /g HTTP/1.1\r\nHost: x\r\n\r\n");
        byte[] wire = drain(s);
        String text = new String(wire, StandardCharsets.ISO_8859_1);
        assertTrue(headOf(wire).contains("Content-Length: 200000\r\n"), headOf(wire));
        int second = text.indexOf("HTTP/1.1 200", 10);
        byte[] body = java.util.Arrays.copyOfRange(bodyOf(wire), 0, 200_000);
        assertArrayEquals(Files.readAllBytes(f), body);
        assertTrue(second == headOf(wire).length() + 2 + 200_000, "the second answer right after the file's last byte");
        assertTrue(text.endsWith("after"), "then the pipelined answer");
        assertEquals(200_000, logged.get(0)[1]);
        assertEquals(0, logged.get(0)[2]);
        assertFalse(s.closeAfterFlush(), "the connection is kept");
    }

    @Test
    void aMissingFileOrADirectoryIs404AndHeadGetsTheLengthAlone() throws IOException {
        Path f = file("h.bin", 5_000);
        HttpSession s = session(r -> Response.file(200, null, r.path().equals("/dir") ? dir
                : r.path().equals("/h") ? f : dir.resolve("nope")));
        feed(s, "GET /missing HTTP/1.1\r\nHost: x\r\n\r\n");
        assertTrue(new String(drain(s), StandardCharsets.ISO_8859_1).startsWith("HTTP/1.1 404 "));
        feed(s, "GET /dir HTTP/1.1\r\nHost: x\r\n\r\n");
        assertTrue(new String(drain(s), StandardCharsets.ISO_8859_1).startsWith("HTTP/1.1 404 "));
        feed(s, "HEAD /h HTTP/1.1\r\nHost: x\r\n\r\n");
        byte[] head = drain(s);
        assertTrue(headOf(head).contains("Content-Length: 5000\r\n"), headOf(head));
        assertEquals(0, bodyOf(head).length, "HEAD: no body");
        assertEquals(List.of(404L, 404L, 200L), logged.stream().map(l -> l[0]).toList());
        assertTrue(s.idle());
    }

    @Test
    void aFileThatShrinksWhileItIsSentIsCutAndTheConnectionCloses() throws IOException {
        Path f = file("s.bin", 300_000);
        HttpSession s = session(r -> Response.file(200, null, f));
        feed(s, GET);
        ByteBuffer head = s.output();
        s.written(head.remaining(), 3L);
        ByteBuffer chunk = s.output();
        int first = chunk.remaining();
        s.written(first, 3L); // one chunk left; now the file loses its end
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
            ch.truncate(first);
        }
        assertNull(s.output(), "nothing more to send");
        assertTrue(s.closeAfterFlush(), "the promised length cannot be kept: the close tells the client");
        assertEquals(1, logged.size());
        assertEquals(first, logged.get(0)[1], "the bytes that left");
        assertEquals(1, logged.get(0)[2], "marked cut");
    }
}
