package m0.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 44: whatever an {@link App}'s handler throws, inline or on the pool, its request is
 * answered 500 and the session tells its {@link HandlerFailures} once, on the loop; an Error
 * never leaves the session, nor kills a pool thread.
 */
class HandlerFailureTest {

    private final ExecutorService pool = Executors.newFixedThreadPool(1);
    private final Semaphore wakes = new Semaphore(0);
    private final List<String> failed = new ArrayList<>();
    private final List<Integer> statuses = new ArrayList<>();

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    private static Supplier<Throwable> thrown(String kind) {
        return switch (kind) {
            case "runtime" -> () -> new IllegalArgumentException("bad", new NullPointerException("inner"));
            case "stack" -> StackOverflowError::new;
            case "linkage" -> () -> new NoClassDefFoundError("com/example/Gone");
            case "memory" -> () -> new OutOfMemoryError("Java heap space");
            default -> () -> new AssertionError("never");
        };
    }

    private HttpSession session(Supplier<Throwable> t, boolean blocking) {
        App app = new App() {
            @Override
            public boolean blocking(Request request) {
                return blocking;
            }

            @Override
            public Response handle(Request request) throws Exception {
                if (request.target().equals("/ok")) {
                    return Response.text(200, "ok");
                }
                Throwable x = t.get();
                if (x instanceof Error e) {
                    throw e;
                }
                throw (Exception) x;
            }
        };
        return new HttpSession(HttpConfig.defaults(), app, blocking ? pool : null, wakes::release, 1L,
                (request, status, bytes, start, cut) -> statuses.add(status), null, null,
                (request, x) -> failed.add(request.target() + " " + x.getClass().getSimpleName()));
    }

    private static String drain(HttpSession s) {
        StringBuilder b = new StringBuilder();
        ByteBuffer o;
        while ((o = s.output()) != null) {
            byte[] a = new byte[o.remaining()];
            o.get(a);
            b.append(new String(a, StandardCharsets.ISO_8859_1));
            s.written(a.length);
        }
        return b.toString();
    }

    @ParameterizedTest
    @ValueSource(strings = {"runtime", "stack", "linkage", "memory", "assertion"})
    void inlineAndOnThePoolAThrowingHandlerIsA500AndOneReport(String kind) throws Exception {
        for (boolean blocking : new boolean[] {false, true}) {
            failed.clear();
            statuses.clear();
            HttpSession s = session(thrown(kind), blocking);
            byte[] req = "GET /boom HTTP/1.1\r\nHost: x\r\n\r\nGET /ok HTTP/1.1\r\nHost: x\r\n\r\n"
                    .getBytes(StandardCharsets.ISO_8859_1);
            ByteBuffer in = ByteBuffer.allocate(req.length);
            in.put(req).flip();
            s.onBytes(in, 2L);
            StringBuilder out = new StringBuilder(drain(s));
            while (blocking && !out.toString().contains("\r\n\r\nok")) {
                assertTrue(wakes.tryAcquire(10, TimeUnit.SECONDS), "the pool answered");
                s.pollCompletions(3L);
                out.append(drain(s));
            }
            String w = out.toString();
            assertTrue(w.startsWith("HTTP/1.1 500 "), kind + " blocking=" + blocking + ": " + w);
            assertTrue(w.contains("HTTP/1.1 200 OK"), "the connection serves the next request: " + w);
            assertFalse(s.closeAfterFlush());
            assertEquals(1, failed.size(), failed.toString());
            assertTrue(failed.get(0).startsWith("/boom "), failed.toString());
            assertEquals(List.of(500, 200), statuses);
        }
    }
}
