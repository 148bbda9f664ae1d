package m0.server.jdkhttp;

import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsServer;
import com.sun.net.httpserver.spi.HttpServerProvider;
import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * The JDK's provider interface, m0's way: an {@code HttpServer} served by this worker's loop on
 * its share of the one listener. Chosen through the system property {@code
 * com.sun.net.httpserver.HttpServerProvider}, which {@link JdkHttpHost#install} sets in a worker;
 * deliberately not in {@code META-INF/services}, so no other JVM with m0serve's jar on its class
 * path gets it.
 */
public final class M0HttpServerProvider extends HttpServerProvider {

    @Override
    public HttpServer createHttpServer(InetSocketAddress addr, int backlog) throws IOException {
        M0HttpServer s = new M0HttpServer(JdkHttpHost.current());
        if (addr != null) {
            s.bind(addr, backlog);
        }
        return s;
    }

    /** The listener then speaks TLS with the app's {@code HttpsConfigurator} (ADR 0069). */
    @Override
    public HttpsServer createHttpsServer(InetSocketAddress addr, int backlog) throws IOException {
        M0HttpsServer s = new M0HttpsServer(new M0HttpServer(JdkHttpHost.current()));
        if (addr != null) {
            s.bind(addr, backlog);
        }
        return s;
    }
}
