package m0.server.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A file answer given to an exchange (ExchangeApp's respond): the file's length and bytes through the pipe; 404 when missing. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FileThroughPipeTest {

    @TempDir
    Path dir;

    /** The head and the body the loop would take, the exchange answered by {@code r} on another thread. */
    private static String[] run(Response r, ByteArrayOutputStream body) throws Exception {
        PipedExchange x = new PipedExchange(Request.of("GET", "/f", new byte[0]), () -> { }, null);
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            try {
                x.respond(r);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        HeldBytes out = new HeldBytes(null);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        boolean complete = false;
        while (!complete) {
            assertTrue(System.nanoTime() - until < 0, "never complete");
            complete = x.moveTo(out, 256 * 1024); // as the loop takes; polled, bounded
            body.write(out.bytes, out.rd, out.size());
            out.holdNothing();
        }
        writer.get(10, TimeUnit.SECONDS);
        return new String[] {new String(x.headBytes(), StandardCharsets.ISO_8859_1), String.valueOf(x.status())};
    }

    @Test
    void aFileIsItsLengthAndItsBytesAndAMissingOneIs404() throws Exception {
        byte[] content = new byte[300_000];
        new Random(9).nextBytes(content);
        Path f = Files.write(dir.resolve("f.bin"), content);
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        String[] head = run(Response.file(200, "application/octet-stream", f), body);
        assertTrue(head[0].contains("Content-Length: 300000\r\n"), head[0]);
        assertArrayEquals(content, body.toByteArray());

        ByteArrayOutputStream none = new ByteArrayOutputStream();
        assertEquals("404", run(Response.file(200, null, dir.resolve("missing")), none)[1]);
        assertEquals("Not Found\n", none.toString(StandardCharsets.UTF_8));
    }
}
