package m0.server.jdkhttp;

import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;

/**
 * The app's {@code HttpServer}: its contexts and executor, served by the worker's loop. Binding
 * takes the worker's listener (the address asked must be {@code --bind}'s); {@code start} is
 * what counts the worker as started; {@code stop} is the worker's graceful leave.
 */
public final class M0HttpServer extends HttpServer {

    private final JdkHttpHost host;
    private final CopyOnWriteArrayList<M0HttpContext> contexts = new CopyOnWriteArrayList<>();
    private volatile Executor executor;
    private volatile boolean bound;
    private volatile boolean started;
    private volatile boolean stopped;
    /** What the app holds: this, or the {@link M0HttpsServer} around it. */
    private volatile HttpServer face = this;

    M0HttpServer(JdkHttpHost host) {
        this.host = host;
    }

    void face(HttpServer outer) {
        this.face = outer;
    }

    /**
     * The app's {@code HttpsServer} when it made one (its TLS is the listener's: {@link AppTls}),
     * else null.
     */
    public M0HttpsServer https() {
        return face instanceof M0HttpsServer s ? s : null;
    }

    @Override
    public void bind(InetSocketAddress addr, int backlog) throws IOException {
        if (bound) {
            throw new java.net.BindException("HttpServer already bound");
        }
        host.checkAddress(addr);
        host.created(this);
        bound = true;
    }

    @Override
    public void start() {
        if (!bound || started || stopped) {
            throw new IllegalStateException("server " + (!bound ? "not bound" : started ? "already started" : "stopped"));
        }
        started = true;
        host.started(this);
    }

    boolean started() {
        return started;
    }

    @Override
    public void setExecutor(Executor executor) {
        if (started) {
            throw new IllegalStateException("server already started");
        }
        this.executor = executor;
    }

    @Override
    public Executor getExecutor() {
        return executor;
    }

    /** The worker leaves as at SIGTERM: what is in flight is finished within --grace-ms. */
    @Override
    public void stop(int delay) {
        if (delay < 0) {
            throw new IllegalArgumentException("negative delay parameter");
        }
        stopped = true;
        host.stop();
    }

    @Override
    public HttpContext createContext(String path, HttpHandler handler) {
        M0HttpContext c = context(path);
        c.setHandler(handler);
        return c;
    }

    @Override
    public HttpContext createContext(String path) {
        return context(path);
    }

    private M0HttpContext context(String path) {
        if (path == null || !path.startsWith("/")) {
            throw new IllegalArgumentException("Illegal value for path or protocol");
        }
        synchronized (contexts) {
            for (M0HttpContext c : contexts) {
                if (c.getPath().equals(path)) {
                    throw new IllegalArgumentException("cannot add context to list");
                }
            }
            M0HttpContext c = new M0HttpContext(path, face);
            contexts.add(c);
            return c;
        }
    }

    @Override
    public void removeContext(String path) {
        if (path == null) {
            throw new NullPointerException("null path parameter");
        }
        if (!contexts.removeIf(c -> c.getPath().equals(path))) {
            throw new IllegalArgumentException("cannot remove element from list");
        }
    }

    @Override
    public void removeContext(HttpContext context) {
        if (!(context instanceof M0HttpContext) || !contexts.remove(context)) {
            throw new IllegalArgumentException("wrong HttpContext type");
        }
    }

    @Override
    public InetSocketAddress getAddress() {
        return host.bound();
    }

    /**
     * The context for a request path: the longest context path the request's path starts with,
     * as the JDK's ContextList finds it (a plain string prefix: "/a" matches "/ab").
     */
    M0HttpContext find(String path) {
        M0HttpContext best = null;
        for (M0HttpContext c : contexts) {
            String p = c.getPath();
            if (path.startsWith(p) && (best == null || p.length() > best.getPath().length())) {
                best = c;
            }
        }
        return best;
    }
}
