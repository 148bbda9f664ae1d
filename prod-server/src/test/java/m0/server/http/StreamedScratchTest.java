package m0.server.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A streamed body is taken into the output a scratch's worth at a time, into the scratch or the
 * one array the output keeps while the body flows: no array is made for a batch (each one was
 * garbage after its write, ~1.3 MB a streamed MiB), and none is held once the body has ended.
 * This test thread is the loop; a pool thread is the app.
 */
@Timeout(30)
class StreamedScratchTest {

    private final ExecutorService pool = Executors.newFixedThreadPool(1);
    private final Semaphore wakes = new Semaphore(0);

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    @Test
    void aStreamedMibIsWrittenFromTheScratchAlone() throws Exception {
        byte[] body = new byte[1 << 20];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) (i * 31 + (i >> 12));
        }
        App app = new App() {
            @Override
            public boolean blocking(Request r) {
                return true;
            }

            @Override
            public Response handle(Request r) {
                return Response.stream(200, "application/octet-stream", body.length, out -> {
                    for (int at = 0; at < body.length; at += 16 * 1024) {
                        out.write(body, at, 16 * 1024);
                    }
                });
            }
        };
        HttpSession s = new HttpSession(HttpConfig.defaults(), app, pool, wakes::release, 1L, null,
                new Scratch(64 * 1024), new Scratch(64 * 1024));
        byte[] get = "GET /mib HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
        ByteBuffer in = ByteBuffer.allocateDirect(get.length);
        in.put(get).flip();
        s.onBytes(in, 1L);
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        int writes = 0;
        java.util.Set<byte[]> arrays = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        int headEnd = -1;
        while (headEnd < 0 || wire.size() - headEnd < body.length) {
            assertTrue(wakes.tryAcquire(10, TimeUnit.SECONDS), "no wake-up from the app's thread");
            s.pollCompletions(1L);
            ByteBuffer o;
            while ((o = s.output()) != null) {
                arrays.add(s.held(true).bytes);
                writes++;
                byte[] b = new byte[o.remaining()];
                o.get(b);
                wire.write(b, 0, b.length);
                s.written(b.length);
            }
            int end = wire.toString(StandardCharsets.ISO_8859_1).indexOf("\r\n\r\n");
            headEnd = end < 0 ? -1 : end + 4;
        }
        byte[] got = java.util.Arrays.copyOfRange(wire.toByteArray(), headEnd, wire.size());
        assertArrayEquals(body, got);
        assertTrue(writes > 0);
        assertTrue(arrays.size() <= 2, "arrays written from: the scratch and the one kept, not " + arrays.size()
                + " in " + writes + " writes");
        assertEquals(0, s.held(true).bytes.length, "the body has ended: the output holds no array");
    }
}
