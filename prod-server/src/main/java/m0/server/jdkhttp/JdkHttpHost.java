package m0.server.jdkhttp;

import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * What one worker JVM lends the app's {@code HttpServer}: the address its listener is bound to
 * (a server must ask for that one), the moment the server starts (the worker starts its loop
 * then), and the worker's graceful leave (the server's {@code stop}). One per worker JVM: the
 * provider is a JVM-wide singleton, so this is too.
 */
public final class JdkHttpHost {

    private static volatile JdkHttpHost current;

    private final InetSocketAddress bound;
    private final String bindText;
    private final Runnable leave;
    private final CountDownLatch started = new CountDownLatch(1);
    private volatile M0HttpServer server;

    private JdkHttpHost(InetSocketAddress bound, String bindText, Runnable leave) {
        this.bound = bound;
        this.bindText = bindText;
        this.leave = leave;
    }

    /**
     * Installs m0's provider for this JVM (the system property the JDK reads first) with the
     * worker's listener address and leave. Before the app's code runs: the JDK picks its
     * provider once, at the first {@code HttpServer.create}.
     */
    public static JdkHttpHost install(InetSocketAddress bound, String bindText, Runnable leave) {
        JdkHttpHost h = new JdkHttpHost(bound, bindText, leave);
        current = h;
        System.setProperty("com.sun.net.httpserver.HttpServerProvider", M0HttpServerProvider.class.getName());
        return h;
    }

    static JdkHttpHost current() {
        JdkHttpHost h = current;
        if (h == null) {
            throw new IllegalStateException("m0's HttpServerProvider serves only inside an m0serve worker (m0serve --main)");
        }
        return h;
    }

    InetSocketAddress bound() {
        return bound;
    }

    /**
     * The address a server asks for must be the listener's: the same port (0 takes it as it
     * is), and the same host unless either is the wildcard.
     */
    void checkAddress(InetSocketAddress asked) throws java.net.BindException {
        if (asked == null) {
            return;
        }
        boolean port = asked.getPort() == 0 || asked.getPort() == bound.getPort();
        boolean host = asked.getAddress() == null || asked.getAddress().isAnyLocalAddress()
                || bound.getAddress().isAnyLocalAddress() || asked.getAddress().equals(bound.getAddress());
        if (!port || !host) {
            throw new java.net.BindException("m0serve: the app asked to bind " + text(asked)
                    + " but m0serve listens on " + bindText + " (--bind): make them the same");
        }
    }

    private static String text(InetSocketAddress a) {
        return (a.getAddress() == null ? a.getHostString() : a.getAddress().getHostAddress()) + ":" + a.getPort();
    }

    /** The app's server was created: one per worker. */
    void created(M0HttpServer s) throws java.net.BindException {
        synchronized (this) {
            if (server != null && server != s) {
                throw new java.net.BindException("m0serve: one HttpServer per worker; " + bindText + " is already "
                        + "bound by the app's first one");
            }
            server = s;
        }
    }

    void started(M0HttpServer s) {
        started.countDown();
    }

    void stop() {
        leave.run();
    }

    /**
     * Waits until the app's server has started, its main has returned without starting one, or
     * the time is up: the server, or null.
     */
    public M0HttpServer awaitStart(Thread main, long millis) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() - until < 0) {
            if (started.await(20, TimeUnit.MILLISECONDS)) {
                return server;
            }
            if (!main.isAlive() && started.getCount() > 0) {
                return null;
            }
        }
        return null;
    }
}
