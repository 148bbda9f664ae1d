import com.sun.net.httpserver.HttpServer;
import java.io.FileInputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;

/**
 * --main: /1m a constant 1 MiB from memory; /fis the 1 MiB file copied with FileInputStream.transferTo.
 * Also run by plain java on another HttpServer provider (run.sh's jetty arm): then args[0] is the port.
 */
public final class MainApp {
    private static final byte[] MIB = new byte[1 << 20];

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < MIB.length; i++) MIB[i] = (byte) ('a' + i % 26);
        InetSocketAddress at = args.length > 0 ? new InetSocketAddress("127.0.0.1", Integer.parseInt(args[0])) : new InetSocketAddress(0);
        HttpServer s = HttpServer.create(at, 0);
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
        System.out.println("MainApp: serving on " + s.getAddress() + " by " + s.getClass().getName());
    }
}
