package m0.examples.embed;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.Executors;

/**
 * The embedding service written only against the JDK's {@code com.sun.net.httpserver} API, as a
 * team would write it: runs alone ({@code java -jar m0-embed-app.jar 127.0.0.1:8080}) and, the
 * same jar, as each worker's {@code --main} on m0serve.
 *
 * <p>Usage: {@code EmbedMain HOST:PORT [--threads N] [--ort-threads N]}. {@code --threads}: the
 * handler threads of its own executor; 0 (the default) sets none, so on m0serve the handlers run
 * on the worker's blocking pool ({@code --blocking-threads}) and on the JDK's server on its
 * dispatcher thread. {@code --ort-threads}: ONNX Runtime's threads per call, 0 (the default) its
 * own defaults.
 */
public final class EmbedMain {

    private EmbedMain() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 1 || args.length % 2 != 1) {
            System.err.println("usage: EmbedMain HOST:PORT [--threads N] [--ort-threads N]");
            System.exit(2);
        }
        int threads = 0;
        int ortThreads = 0;
        for (int i = 1; i < args.length; i += 2) {
            switch (args[i]) {
                case "--threads" -> threads = Integer.parseInt(args[i + 1]);
                case "--ort-threads" -> ortThreads = Integer.parseInt(args[i + 1]);
                default -> {
                    System.err.println("EmbedMain: unknown option " + args[i]);
                    System.exit(2);
                }
            }
        }
        int colon = args[0].lastIndexOf(':');
        InetSocketAddress bind = new InetSocketAddress(args[0].substring(0, colon),
                Integer.parseInt(args[0].substring(colon + 1)));
        MiniLm model = MiniLm.threads(ortThreads); // before start(): a worker counts as started once it serves
        HttpServer server = HttpServer.create(bind, 0);
        server.createContext("/embed", new Embed(model));
        server.setExecutor(threads > 0 ? Executors.newFixedThreadPool(threads) : null);
        server.start();
        System.out.println("EmbedMain listening on " + server.getAddress() + " (" + model.description() + ")");
    }

    /** {@code POST /embed}. */
    static final class Embed implements HttpHandler {
        private final MiniLm model;

        Embed(MiniLm model) {
            this.model = model;
        }

        @Override
        public void handle(HttpExchange x) throws IOException {
            try (x) {
                if (!x.getRequestMethod().equals("POST")) {
                    x.getResponseHeaders().set("Allow", "POST");
                    send(x, 405, "text/plain", "POST /embed\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
                    return;
                }
                byte[] body;
                try (InputStream in = x.getRequestBody()) {
                    body = in.readAllBytes();
                }
                EmbedJson.Ask ask;
                try {
                    ask = EmbedJson.parse(body);
                } catch (EmbedJson.BadRequest e) {
                    send(x, 400, "application/json", EmbedJson.error(e.getMessage()));
                    return;
                }
                List<float[]> vectors = model.embed(ask.texts());
                send(x, 200, "application/json", EmbedJson.answer(ask, vectors));
            }
        }

        private static void send(HttpExchange x, int status, String type, byte[] body) throws IOException {
            x.getResponseHeaders().set("Content-Type", type);
            x.sendResponseHeaders(status, body.length);
            try (OutputStream out = x.getResponseBody()) {
                out.write(body);
            }
        }
    }
}
