package m0.server.supervisor;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import m0.core.Page;
import m0.server.jnr.Sockets;
import m0.server.log.RateLimitedLog;

/**
 * {@code --metrics-bind}: the supervisor's Prometheus endpoint, {@code GET /metrics}, on one
 * thread of its own (docs/adr/0017). The JDK's small HTTP server is enough for one scrape every
 * few seconds, keeps the supervisor's loop untouched, and adds no dependency. A scrape only
 * reads shared memory, so nothing on the request path of any worker waits for it.
 */
final class MetricsServer {

    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final HttpServer server;
    private final ExecutorService thread;

    private MetricsServer(HttpServer server, ExecutorService thread) {
        this.server = server;
        this.thread = thread;
    }

    static MetricsServer start(InetAddress host, int port, Page page, ServerCounters counters, boolean fountain)
            throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 16);
        PrometheusText text = new PrometheusText(page, counters, fountain);
        RateLimitedLog failures = new RateLimitedLog(System.err, "m0serve: metrics: ");
        server.createContext("/", exchange -> {
            try (exchange) {
                serve(exchange, text);
            } catch (IOException | RuntimeException e) {
                failures.log(e.toString()); // a scraper that went away, or a worker that did meanwhile
            }
        });
        ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "m0-metrics");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(thread);
        server.start();
        return new MetricsServer(server, thread);
    }

    private static void serve(HttpExchange exchange, PrometheusText text) throws IOException {
        String path = exchange.getRequestURI().getPath();
        if (!"/metrics".equals(path)) {
            byte[] body = "not found: try /metrics\n".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(404, body.length);
            exchange.getResponseBody().write(body);
            return;
        }
        if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod())) {
            exchange.sendResponseHeaders(405, -1);
            return;
        }
        byte[] body = text.render().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
        boolean head = "HEAD".equals(exchange.getRequestMethod());
        exchange.sendResponseHeaders(200, head ? -1 : body.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    /** host:port as bound (port 0 resolved). */
    String address() {
        InetSocketAddress a = server.getAddress();
        return Sockets.hostPort(a.getAddress(), a.getPort());
    }

    void stop() {
        server.stop(0);
        thread.shutdownNow();
    }
}
