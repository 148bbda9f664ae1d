// The issue 26 benchmark app: one com.sun.net.httpserver app, served unchanged by the JDK's
// built-in server, by Jetty's provider (jetty-http-spi) and by m0serve --main.
//   java -cp app.jar Bench HOST:PORT [fixed]
// /hello  12 bytes, sendResponseHeaders(200, 12)
// /mib    1 MiB, sendResponseHeaders(200, 0) (chunked), in 16 KiB writes
// /gib    1 GiB (or ?mib=N MiB), sendResponseHeaders(200, 0), 64 KiB writes of one reused buffer
// "fixed": Executors.newFixedThreadPool(4) as the server's executor; otherwise none (the default).
// Compiled by the scripts beside it (javac, no build tool): not part of the Maven build.
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.Executors;

public final class Bench {
    private static final byte[] HELLO = "hello world\n".getBytes(StandardCharsets.US_ASCII);

    public static void main(String[] args) throws IOException {
        String hp = args[0];
        int colon = hp.lastIndexOf(':');
        InetSocketAddress at = new InetSocketAddress(InetAddress.getByName(hp.substring(0, colon)),
                Integer.parseInt(hp.substring(colon + 1)));
        HttpServer server = HttpServer.create(at, 1024);
        server.createContext("/hello", ex -> {
            ex.sendResponseHeaders(200, HELLO.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(HELLO);
            }
        });
        byte[] k16 = new byte[16 * 1024];
        Arrays.fill(k16, (byte) 'm');
        server.createContext("/mib", ex -> {
            ex.sendResponseHeaders(200, 0);
            try (OutputStream out = ex.getResponseBody()) {
                for (int i = 0; i < 64; i++) {
                    out.write(k16);
                }
            }
        });
        server.createContext("/gib", Bench::gib);
        if (args.length > 1 && args[1].equals("fixed")) {
            server.setExecutor(Executors.newFixedThreadPool(4));
        }
        server.start();
        System.out.println("Bench: serving on " + hp + " (" + server.getClass().getName()
                + (args.length > 1 ? ", executor " + args[1] : "") + ")");
    }

    private static void gib(HttpExchange ex) throws IOException {
        long mib = 1024;
        String q = ex.getRequestURI().getRawQuery();
        if (q != null && q.startsWith("mib=")) {
            mib = Long.parseLong(q.substring(4));
        }
        byte[] buf = new byte[64 * 1024]; // reused for every write
        Arrays.fill(buf, (byte) 'g');
        ex.sendResponseHeaders(200, 0);
        try (OutputStream out = ex.getResponseBody()) {
            for (long i = 0, n = mib * 16; i < n; i++) {
                out.write(buf);
            }
        }
    }
}
