package m0.server.it;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import m0.server.http.App;
import m0.server.http.BuiltinApp;
import m0.server.http.Request;
import m0.server.http.Response;

/**
 * The apps of {@link FailuresSeenIntegrationTest}: handlers that throw what a team's code throws
 * (issue 44), real errors where they are cheap to make (a stack overflow by recursion, an array
 * too large for the VM), and answers of every framing for the access log's byte counts.
 */
final class FailingApps {

    private FailingApps() {
    }

    /** A real StackOverflowError: recursion with no end. */
    static int recurse(int n) {
        return recurse(n + 1) + 1;
    }

    /** A real OutOfMemoryError ("Requested array size exceeds VM limit"), cheap: nothing is allocated. */
    static long[] tooLarge() {
        return new long[Integer.MAX_VALUE];
    }

    /** What {@code /…/name} throws; {@code null} for a name that does not throw. */
    static void throwFor(String name) {
        switch (name) {
            case "runtime" -> throw new IllegalStateException("runtime", new NullPointerException("the cause"));
            case "stack" -> recurse(0);
            case "ncdf" -> throw new NoClassDefFoundError("com/example/Gone");
            case "oom" -> tooLarge();
            default -> {
            }
        }
    }

    /**
     * An {@link App}: {@code /runtime}, {@code /stack}, {@code /ncdf}, {@code /oom} throw inline;
     * under {@code /pool/} the same run on the blocking pool; {@code /stream} is a streamed
     * answer; the rest is the built-in app.
     */
    public static final class Throwing implements App {
        private final BuiltinApp builtin = new BuiltinApp();

        @Override
        public boolean blocking(Request request) {
            return request.path().startsWith("/pool/");
        }

        @Override
        public Response handle(Request request) throws Exception {
            String p = request.path();
            String name = p.startsWith("/pool/") ? p.substring(6) : p.substring(1);
            throwFor(name);
            if (name.equals("stream")) {
                return Response.stream(200, "text/plain", -1, out -> {
                    for (int k = 0; k < 3; k++) {
                        out.write(("piece " + k + "\n").getBytes(StandardCharsets.ISO_8859_1));
                    }
                });
            }
            return builtin.handle(request);
        }
    }

    /**
     * A {@code com.sun.net.httpserver} app for {@code --main}: {@code /t/NAME} throws before its
     * head, {@code /after} after its head and a piece of body; {@code /echo} answers the body it
     * reads (fixed length), {@code /chunked} three chunks, {@code /head} a HEAD-aware answer,
     * {@code /304} a not-modified.
     */
    public static final class JdkMain {
        public static void main(String[] args) throws IOException {
            HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            s.createContext("/t/", x -> throwFor(x.getRequestURI().getPath().substring(3)));
            s.createContext("/after", x -> {
                x.sendResponseHeaders(200, 0);
                x.getResponseBody().write("partial\n".getBytes(StandardCharsets.ISO_8859_1));
                x.getResponseBody().flush();
                throw new IllegalStateException("thrown after a body was started");
            });
            s.createContext("/echo", x -> {
                byte[] body;
                try (InputStream in = x.getRequestBody()) {
                    body = in.readAllBytes();
                }
                x.sendResponseHeaders(200, body.length);
                try (OutputStream o = x.getResponseBody()) {
                    o.write(body);
                }
            });
            s.createContext("/chunked", x -> {
                x.sendResponseHeaders(200, 0);
                try (OutputStream o = x.getResponseBody()) {
                    for (String piece : new String[] {"one\n", "two two\n", "three three three\n"}) {
                        o.write(piece.getBytes(StandardCharsets.ISO_8859_1));
                        o.flush();
                    }
                }
            });
            s.createContext("/head", x -> {
                x.getResponseHeaders().set("Content-Length", "32");
                x.sendResponseHeaders(200, -1);
                x.close();
            });
            s.createContext("/304", FailingApps::notModified);
            s.start();
        }
    }

    private static void notModified(HttpExchange x) throws IOException {
        x.sendResponseHeaders(304, -1);
        x.close();
    }
}
