package m0.server.jdkhttp;

import com.sun.net.httpserver.Authenticator;
import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/** One context of the app's server: its path, handler, filters, authenticator and attributes. */
final class M0HttpContext extends HttpContext {

    private final String path;
    /** The app's server: an {@code HttpsServer} when it made one (getServer returns what it made). */
    private final HttpServer server;
    private final Map<String, Object> attributes = new ConcurrentHashMap<>();
    private final List<Filter> filters = new CopyOnWriteArrayList<>();
    private volatile HttpHandler handler;
    private volatile Authenticator authenticator;

    M0HttpContext(String path, HttpServer server) {
        this.path = path;
        this.server = server;
    }

    @Override
    public HttpHandler getHandler() {
        return handler;
    }

    @Override
    public void setHandler(HttpHandler handler) {
        if (handler == null) {
            throw new NullPointerException("Null handler parameter");
        }
        if (this.handler != null) {
            throw new IllegalArgumentException("handler already set");
        }
        this.handler = handler;
    }

    @Override
    public String getPath() {
        return path;
    }

    @Override
    public HttpServer getServer() {
        return server;
    }

    @Override
    public Map<String, Object> getAttributes() {
        return attributes;
    }

    @Override
    public List<Filter> getFilters() {
        return filters;
    }

    @Override
    public Authenticator setAuthenticator(Authenticator auth) {
        Authenticator old = authenticator;
        authenticator = auth;
        return old;
    }

    @Override
    public Authenticator getAuthenticator() {
        return authenticator;
    }
}
