package m0.server.jdkhttp;

import com.sun.net.httpserver.BasicAuthenticator;
import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpPrincipal;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeSet;

/**
 * The handlers of the differential conformance harness: one context per corner of the
 * {@link HttpExchange} contract. Every body is a pure function of the request (no time, no
 * addresses, no ports), so two servers given the same bytes must answer the same bytes, apart
 * from what {@link Normalizer} removes.
 *
 * <p>{@link #main} is the same set as an application: {@code host:port} in args[0], run by
 * whichever {@code HttpServerProvider} the classpath selects (m0serve's, or the JDK's).
 */
public final class ConformanceHandlers {

    /** Body of /fixed and /head-aware: 32 bytes, so a HEAD's Content-Length is checkable. */
    static final byte[] FIXED = "fixed body 0123456789abcdefghij\n".getBytes(StandardCharsets.US_ASCII);
    static final List<String> CHUNKS = List.of("one\n", "two two\n", "three three three\n");
    static final int BIG_BYTES = 1 << 20;
    static final int BIG_WRITE = 16 << 10;
    static final String REALM = "m0";

    private ConformanceHandlers() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1 || args[0].lastIndexOf(':') < 0) {
            throw new IllegalArgumentException("usage: ConformanceHandlers host:port");
        }
        int colon = args[0].lastIndexOf(':');
        String host = args[0].substring(0, colon);
        int port = Integer.parseInt(args[0].substring(colon + 1));
        HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 0);
        install(server);
        server.start();
    }

    public static void install(HttpServer server) {
        server.createContext("/fixed", new Fixed());
        server.createContext("/chunked", new Chunked());
        server.createContext("/nobody", ex -> respond(ex, 200, -1, null));
        server.createContext("/empty-chunked", ex -> respond(ex, 200, 0, null));
        server.createContext("/204", ex -> respond(ex, 204, -1, null));
        server.createContext("/304", ex -> respond(ex, 304, -1, null));
        server.createContext("/head-aware", new HeadAware());
        server.createContext("/echo", new Echo());
        server.createContext("/headers", new HeadersEcho());
        installFiltered(server);
        server.createContext("/private", new Private()).setAuthenticator(new Basic());
        server.createContext("/", new Prefix("root"));
        server.createContext("/a", new Prefix("a"));
        server.createContext("/a/b", new Prefix("a/b"));
        server.createContext("/throw-before", new ThrowBefore());
        server.createContext("/throw-after", new ThrowAfter());
        server.createContext("/short", new ShortBody());
        server.createContext("/long", new LongBody());
        server.createContext("/no-close", new NoClose());
        server.createContext("/big", new Big());
        // setExecutor: every handler runs on these threads, under either server; /executor says so.
        server.setExecutor(java.util.concurrent.Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, EXECUTOR_THREAD);
            t.setDaemon(true);
            return t;
        }));
        server.createContext("/executor", ex -> respond(ex, 200, 0,
                ("on the server's executor: " + Thread.currentThread().getName().equals(EXECUTOR_THREAD) + "\n")
                        .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1)));
    }

    static final String EXECUTOR_THREAD = "conformance-executor";

    /** Headers, then the body (null: none written), then close: the well-behaved shape. */
    private static void respond(HttpExchange ex, int status, long length, byte[] body) throws IOException {
        ex.sendResponseHeaders(status, length);
        try (OutputStream out = ex.getResponseBody()) {
            if (body != null) {
                out.write(body);
            }
        }
    }

    private static void text(HttpExchange ex, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        respond(ex, 200, bytes.length, bytes);
    }

    /** sendResponseHeaders(200, n), exactly n bytes. A HEAD gets the same call: the JDK decides. */
    static final class Fixed implements HttpHandler {
        @Override
        public void handle(HttpExchange ex) throws IOException {
            respond(ex, 200, FIXED.length, FIXED);
        }
    }

    /** sendResponseHeaders(200, 0): chunked; a flush between pieces puts each on the wire. */
    static final class Chunked implements HttpHandler {
        @Override
        public void handle(HttpExchange ex) throws IOException {
            ex.sendResponseHeaders(200, 0);
            try (OutputStream out = ex.getResponseBody()) {
                for (String piece : CHUNKS) {
                    out.write(piece.getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                }
            }
        }
    }

    /** What the JDK's javadoc asks of a HEAD handler: the length in a header, then -1. */
    static final class HeadAware implements HttpHandler {
        @Override
        public void handle(HttpExchange ex) throws IOException {
            if (ex.getRequestMethod().equals("HEAD")) {
                ex.getResponseHeaders().set("Content-Length", Integer.toString(FIXED.length));
                respond(ex, 200, -1, null);
            } else {
                respond(ex, 200, FIXED.length, FIXED);
            }
        }
    }

    /** The request body read to its end: its length and SHA-256 say whether the framing was right. */
    static final class Echo implements HttpHandler {
        @Override
        public void handle(HttpExchange ex) throws IOException {
            MessageDigest sha = sha256();
            long length = 0;
            try (InputStream in = ex.getRequestBody()) {
                byte[] buf = new byte[8192];
                for (int n; (n = in.read(buf)) >= 0; ) {
                    sha.update(buf, 0, n);
                    length += n;
                }
            }
            text(ex, "method=" + ex.getRequestMethod() + "\nlength=" + length
                    + "\nsha256=" + HexFormat.of().formatHex(sha.digest()) + "\n");
        }
    }

    /**
     * Repeated response names (two Set-Cookie, X-Multi added twice) and what the exchange says
     * of the request: method, URI in its forms, protocol, the repeated X-Rep list, the header
     * names as the Headers map spells them, and X-Long's length (not its value).
     */
    static final class HeadersEcho implements HttpHandler {
        @Override
        public void handle(HttpExchange ex) throws IOException {
            Headers rsp = ex.getResponseHeaders();
            rsp.add("Set-Cookie", "a=1");
            rsp.add("Set-Cookie", "b=2; Path=/");
            rsp.add("X-Multi", "one");
            rsp.add("X-Multi", "two");
            URI uri = ex.getRequestURI();
            Headers req = ex.getRequestHeaders();
            String xLong = req.getFirst("X-Long");
            text(ex, "method=" + ex.getRequestMethod()
                    + "\nprotocol=" + ex.getProtocol()
                    + "\nuri=" + uri
                    + "\nraw-path=" + uri.getRawPath()
                    + "\npath=" + uri.getPath()
                    + "\nraw-query=" + uri.getRawQuery()
                    + "\nquery=" + uri.getQuery()
                    + "\nx-rep=" + req.get("x-rep")
                    + "\nnames=" + new TreeSet<>(req.keySet())
                    + "\nx-long-length=" + (xLong == null ? -1 : xLong.length()) + "\n");
        }
    }

    /**
     * Two filters around a handler. beforeHandler's effect shows in an attribute and a response
     * header. afterHandler runs once the handler has returned, when the headers are already
     * sent: the handler leaves the body open, so the after-op can append a line and close it.
     * Only attributes set on every exchange are echoed: on JDK 17 an exchange's attributes are
     * its context's map, so one set now and then would leak from one request into the next.
     */
    private static void installFiltered(HttpServer server) {
        HttpContext ctx = server.createContext("/filtered", ex -> {
            ex.setAttribute("handler", "h");
            ex.sendResponseHeaders(200, 0);
            write(ex, "before-attr=" + ex.getAttribute("before")
                    + "\ninstalled-via-context=" + ex.getHttpContext().getAttributes().get("installed")
                    + "\ninstalled-via-exchange=" + ex.getAttribute("installed") + "\n");
        });
        ctx.getAttributes().put("installed", "at-install");
        ctx.getFilters().add(Filter.beforeHandler("sets before", ex -> {
            ex.setAttribute("before", "b1");
            ex.getResponseHeaders().add("X-Before", "yes");
        }));
        ctx.getFilters().add(Filter.afterHandler("appends and closes", ex -> {
            try (OutputStream out = ex.getResponseBody()) {
                out.write(("after-sees-handler=" + ex.getAttribute("handler")
                        + "\nafter-status=" + ex.getResponseCode() + "\n").getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }));
    }

    private static void write(HttpExchange ex, String s) throws IOException {
        OutputStream out = ex.getResponseBody();
        out.write(s.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** Realm "m0", user "u", password "p". */
    static final class Basic extends BasicAuthenticator {
        Basic() {
            super(REALM);
        }

        @Override
        public boolean checkCredentials(String user, String password) {
            return "u".equals(user) && "p".equals(password);
        }
    }

    static final class Private implements HttpHandler {
        @Override
        public void handle(HttpExchange ex) throws IOException {
            HttpPrincipal p = ex.getPrincipal();
            text(ex, "user=" + p.getUsername() + "\nrealm=" + p.getRealm() + "\nname=" + p.getName() + "\n");
        }
    }

    /** Which context took the request: the corpus records the JDK's prefix matching. */
    static final class Prefix implements HttpHandler {
        private final String name;

        Prefix(String name) {
            this.name = name;
        }

        @Override
        public void handle(HttpExchange ex) throws IOException {
            text(ex, name + " ctx=" + ex.getHttpContext().getPath() + " path=" + ex.getRequestURI().getPath() + "\n");
        }
    }

    static final class ThrowBefore implements HttpHandler {
        @Override
        public void handle(HttpExchange ex) {
            throw new RuntimeException("conformance: thrown before sendResponseHeaders");
        }
    }

    static final class ThrowAfter implements HttpHandler {
        @Override
        public void handle(HttpExchange ex) throws IOException {
            ex.sendResponseHeaders(200, 0);
            write(ex, "partial\n");
            throw new RuntimeException("conformance: thrown after a body was started");
        }
    }

    /** Promises 10 bytes, writes 5, closes: the JDK's close throws; swallowed, it is the server's move. */
    static final class ShortBody implements HttpHandler {
        @Override
        public void handle(HttpExchange ex) throws IOException {
            ex.sendResponseHeaders(200, 10);
            OutputStream out = ex.getResponseBody();
            out.write("12345".getBytes(StandardCharsets.US_ASCII));
            try {
                out.close();
            } catch (IOException expected) {
                // "insufficient bytes written to stream": the wire shows what the server did next
            }
        }
    }

    /** Promises 5 bytes, writes 10 in one call: the JDK refuses the write; then the exchange is closed. */
    static final class LongBody implements HttpHandler {
        @Override
        public void handle(HttpExchange ex) throws IOException {
            ex.sendResponseHeaders(200, 5);
            try {
                ex.getResponseBody().write("0123456789".getBytes(StandardCharsets.US_ASCII));
            } catch (IOException expected) {
                // "too many bytes to write to stream": recorded on the wire, not here
            } finally {
                ex.close();
            }
        }
    }

    /** Headers and the whole fixed-length body, no flush, no close: the handler just returns. */
    static final class NoClose implements HttpHandler {
        @Override
        public void handle(HttpExchange ex) throws IOException {
            ex.sendResponseHeaders(200, FIXED.length);
            ex.getResponseBody().write(FIXED);
        }
    }

    /** 1 MiB, chunked, in 16 KiB writes of {@link #bigByte}. */
    static final class Big implements HttpHandler {
        @Override
        public void handle(HttpExchange ex) throws IOException {
            ex.sendResponseHeaders(200, 0);
            byte[] buf = new byte[BIG_WRITE];
            try (OutputStream out = ex.getResponseBody()) {
                for (int off = 0; off < BIG_BYTES; off += BIG_WRITE) {
                    for (int i = 0; i < BIG_WRITE; i++) {
                        buf[i] = bigByte(off + i);
                    }
                    out.write(buf);
                }
            }
        }
    }

    /** Not periodic in 256 (the high bits mix in), so a misplaced 16 KiB block changes the hash. */
    static byte bigByte(int i) {
        return (byte) (i * 31 + (i >>> 8) + (i >>> 16));
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
