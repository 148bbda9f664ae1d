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
 * {@code --metrics-bind}: the supervisor's Prometheus endpoint, {@code GET /metrics}, and its
 * health probes {@code /livez} and {@code /readyz} (docs/adr/0067), on one thread of its own
 * (docs/adr/0017). The JDK's small HTTP server is enough for one scrape every
 * few seconds, keeps the supervisor's loop untouched, and adds no dependency. A scrape only
 * reads shared memory, so nothing on the request path of any worker waits for it.
 */
final class MetricsServer {

    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
    private static final String HEALTH_TYPE = "text/plain; charset=utf-8";

    private final HttpServer server;
    private final ExecutorService thread;

    private MetricsServer(HttpServer server, ExecutorService thread) {
        this.server = server;
        this.thread = thread;
    }

    static MetricsServer start(InetAddress host, int port, Page page, ServerCounters counters, boolean fountain,
                               Health health) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 16);
        PrometheusText text = new PrometheusText(page, counters, fountain);
        RateLimitedLog failures = new RateLimitedLog(System.err, "m0serve: metrics: ");
        server.createContext("/", exchange -> {
            try (exchange) {
                serve(exchange, text, health);
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

    private static void serve(HttpExchange exchange, PrometheusText text, Health health) throws IOException {
        String path = exchange.getRequestURI().getPath();
        if (!"/metrics".equals(path) && !"/livez".equals(path) && !"/readyz".equals(path)) {
            byte[] body = "not found: try /metrics, /readyz or /livez\n".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(404, body.length);
            exchange.getResponseBody().write(body);
            return;
        }
        if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod())) {
            exchange.sendResponseHeaders(405, -1);
            return;
        }
        switch (path) {
            case "/metrics" -> answer(exchange, 200, CONTENT_TYPE, text.render());
            // Alive while this process answers at all, draining included: a liveness probe that
            // failed during a drain would have the orchestrator kill what is finishing requests.
            case "/livez" -> answer(exchange, 200, HEALTH_TYPE, "alive\n");
            default -> {
                Health.State s = health.state();
                answer(exchange, s == Health.State.SERVING ? 200 : 503, HEALTH_TYPE,
                        s.name().toLowerCase(java.util.Locale.ROOT) + "\n");
            }
        }
    }

    private static void answer(HttpExchange exchange, int status, String type, String text) throws IOException {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        // A probe must never read a cached answer from before a stop began.
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        boolean head = "HEAD".equals(exchange.getRequestMethod());
        exchange.sendResponseHeaders(status, head ? -1 : body.length);
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
