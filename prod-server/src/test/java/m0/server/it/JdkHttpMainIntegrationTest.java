package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code --main} at its edges on the real binary: an app that asks for another address than
 * {@code --bind}, or never starts its server, is told in one line and its worker is not respawned;
 * an app whose handler calls {@code HttpServer.stop} makes its worker leave gracefully, and the
 * supervisor starts another.
 */
class JdkHttpMainIntegrationTest {

    /** Asks for port 1 on 127.0.0.1, which m0serve does not listen on. */
    public static final class WrongAddress {
        public static void main(String[] args) throws Exception {
            HttpServer.create(new InetSocketAddress("127.0.0.1", 1), 0).start();
        }
    }

    /** Creates a server and returns without starting it. */
    public static final class NeverStarts {
        public static void main(String[] args) throws Exception {
            HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        }
    }

    /** /pid answers the worker's pid; /stop stops the server after answering. */
    public static final class Stoppable {
        public static void main(String[] args) throws Exception {
            HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            s.createContext("/pid", x -> {
                byte[] b = Long.toString(ProcessHandle.current().pid()).getBytes();
                x.sendResponseHeaders(200, b.length);
                x.getResponseBody().write(b);
                x.close();
            });
            s.createContext("/stop", x -> {
                x.sendResponseHeaders(200, -1);
                x.close();
                s.stop(0);
            });
            s.start();
        }
    }

    @Test
    @Timeout(60)
    void anAppThatAsksForAnotherAddressIsToldBoth() throws Exception {
        try (ServerProcess s = ServerProcess.start("--workers", "1", "--main", WrongAddress.class.getName())) {
            String err = awaitStderr(s, "make them the same");
            assertTrue(err.contains("127.0.0.1:1") && err.contains("127.0.0.1:" + s.port), err);
        }
    }

    @Test
    @Timeout(60)
    void anAppThatNeverStartsItsServerIsTold() throws Exception {
        try (ServerProcess s = ServerProcess.start("--workers", "1", "--main", NeverStarts.class.getName())) {
            awaitStderr(s, "returned without starting an HttpServer");
        }
    }

    @Test
    @Timeout(90)
    void stopIsTheWorkersGracefulLeaveAndAnotherTakesItsPlace() throws Exception {
        try (ServerProcess s = ServerProcess.start("--workers", "1", "--main", Stoppable.class.getName())) {
            awaitStderr(s, "ready");
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            URI base = URI.create("http://127.0.0.1:" + s.port);
            String first = get(http, base.resolve("/pid"));
            assertEquals(200, http.send(HttpRequest.newBuilder(base.resolve("/stop")).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode());
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            String next = first;
            while (next.equals(first)) {
                assertTrue(System.nanoTime() < until, "no new worker after stop(); stderr: " + s.stderr());
                try {
                    next = get(http, base.resolve("/pid"));
                } catch (java.io.IOException e) {
                    next = first; // between the leave and the respawn: nobody serves yet
                }
            }
            assertTrue(ProcessHandle.of(Long.parseLong(first)).map(ProcessHandle::isAlive).orElse(false) == false,
                    "the stopped worker exited");
        }
    }

    private static String get(HttpClient http, URI u) throws Exception {
        return http.send(HttpRequest.newBuilder(u).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    /** Polls the server's stderr (bounded by the test's timeout) until it contains {@code part}. */
    private static String awaitStderr(ServerProcess s, String part) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(45);
        String err;
        while (!(err = s.stderr()).contains(part)) {
            assertTrue(System.nanoTime() < until, "stderr never said '" + part + "': " + err);
            Thread.sleep(50); // a process's log, polled: not the core's synchronisation
        }
        return err;
    }
}
