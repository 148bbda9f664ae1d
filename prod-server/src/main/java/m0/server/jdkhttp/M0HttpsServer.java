package m0.server.jdkhttp;

import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.Executor;

/**
 * The app's {@code HttpsServer} (ADR 0069): an {@link M0HttpServer} whose listener speaks TLS
 * with the app's {@link HttpsConfigurator}: its {@code SSLContext} makes each connection's
 * engine, and its {@code configure} sets each engine's parameters, as the JDK's server does
 * ({@link AppTls}). The configurator is fixed at {@code start}, as the JDK's is.
 */
public final class M0HttpsServer extends HttpsServer {

    private final M0HttpServer server;
    private volatile HttpsConfigurator configurator;

    M0HttpsServer(M0HttpServer server) {
        this.server = server;
        server.face(this);
    }

    @Override
    public void setHttpsConfigurator(HttpsConfigurator config) {
        if (config == null) {
            throw new NullPointerException("null HttpsConfigurator");
        }
        if (server.started()) {
            throw new IllegalStateException("server already started");
        }
        this.configurator = config;
    }

    @Override
    public HttpsConfigurator getHttpsConfigurator() {
        return configurator;
    }

    @Override
    public void bind(InetSocketAddress addr, int backlog) throws IOException {
        server.bind(addr, backlog);
    }

    @Override
    public void start() {
        server.start();
    }

    @Override
    public void setExecutor(Executor executor) {
        server.setExecutor(executor);
    }

    @Override
    public Executor getExecutor() {
        return server.getExecutor();
    }

    @Override
    public void stop(int delay) {
        server.stop(delay);
    }

    @Override
    public HttpContext createContext(String path, HttpHandler handler) {
        return server.createContext(path, handler);
    }

    @Override
    public HttpContext createContext(String path) {
        return server.createContext(path);
    }

    @Override
    public void removeContext(String path) {
        server.removeContext(path);
    }

    @Override
    public void removeContext(HttpContext context) {
        server.removeContext(context);
    }

    @Override
    public InetSocketAddress getAddress() {
        return server.getAddress();
    }
}
