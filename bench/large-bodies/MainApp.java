import com.sun.net.httpserver.HttpServer;
import java.io.FileInputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;

/** --main: /1m a constant 1 MiB from memory; /fis the 1 MiB file copied with FileInputStream.transferTo. */
public final class MainApp {
    private static final byte[] MIB = new byte[1 << 20];

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < MIB.length; i++) MIB[i] = (byte) ('a' + i % 26);
        HttpServer s = HttpServer.create(new InetSocketAddress(0), 0);
        s.createContext("/1m", x -> {
            x.sendResponseHeaders(200, MIB.length);
            try (OutputStream o = x.getResponseBody()) { o.write(MIB); }
        });
        s.createContext("/fis", x -> {
            x.sendResponseHeaders(200, 1 << 20);
            try (OutputStream o = x.getResponseBody(); FileInputStream in = new FileInputStream(System.getenv().getOrDefault("M0_TEST_WWW", "/tmp/m0-large-bodies/www") + "/1m.bin")) {
                in.transferTo(o);
            }
        });
        s.start();
    }
}
