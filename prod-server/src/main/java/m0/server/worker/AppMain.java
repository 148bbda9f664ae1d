package m0.server.worker;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import m0.server.http.App;
import m0.server.jdkhttp.JdkHttpApp;
import m0.server.jdkhttp.JdkHttpHost;
import m0.server.jdkhttp.M0HttpServer;
import m0.server.jnr.Sockets;

/**
 * {@code --main}: the app's own {@code main}, run on a thread of its own with m0's
 * {@code HttpServer} provider in force, until the server it creates is started. Its contexts
 * become the worker's app ({@link JdkHttpApp}); its {@code stop} the worker's leave. A main that
 * throws, returns without starting a server, or takes longer than its bound
 * ({@link #START_MILLIS} unless the launch contract says otherwise) cannot start: a
 * {@link StartFailure} carrying what the app threw, or where its main thread was at the bound.
 */
final class AppMain {

    /** How long an app's main may take to start its server (Jersey's scan included). */
    static final long START_MILLIS = 60_000;

    private final JdkHttpApp app;
    private final AtomicReference<Runnable> leave;
    private final String className;
    private final M0HttpServer server;

    private AppMain(JdkHttpApp app, AtomicReference<Runnable> leave, String className, M0HttpServer server) {
        this.app = app;
        this.leave = leave;
        this.className = className;
        this.server = server;
    }

    String className() {
        return className;
    }

    /** The app's {@code HttpsServer}, whose TLS the listener speaks (ADR 0069), or null: it made a plain one. */
    m0.server.jdkhttp.M0HttpsServer https() {
        return server.https();
    }

    App app() {
        return app;
    }

    /** The worker's leave, once it exists (a stop asked before then is kept and done now). */
    void leaveWith(Runnable workerLeave) {
        Runnable before = leave.getAndSet(workerLeave);
        if (before == ASKED) {
            workerLeave.run();
        }
    }

    private static final Runnable ASKED = () -> { };

    /** @param startMillis how long its main may take to start its server: 0 for {@link #START_MILLIS} */
    static AppMain run(String className, List<String> args, int listenFd, int index, long startMillis) {
        long startBound = startMillis > 0 ? startMillis : START_MILLIS;
        String bound = Sockets.localHostPort(listenFd);
        InetSocketAddress address = address(bound);
        AtomicReference<Runnable> leave = new AtomicReference<>();
        JdkHttpHost host = JdkHttpHost.install(address, bound, () -> {
            Runnable r = leave.compareAndExchange(null, ASKED);
            if (r != null && r != ASKED) {
                r.run();
            }
        });
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        Method main;
        try {
            Class<?> c = Class.forName(className, true, loader);
            main = c.getMethod("main", String[].class);
        } catch (ReflectiveOperationException e) {
            throw new StartFailure("--main " + className + ": " + e, null);
        }
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                main.invoke(null, (Object) args.toArray(new String[0]));
            } catch (InvocationTargetException e) {
                failed.set(e.getCause());
            } catch (ReflectiveOperationException | RuntimeException e) {
                failed.set(e);
            }
        }, "m0-app-main-" + index);
        t.setContextClassLoader(loader);
        t.setDaemon(true); // an app's main that parks forever (join, System.in) must not hold the exit
        t.start();
        M0HttpServer server;
        try {
            server = host.awaitStart(t, startBound);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for --main " + className);
        }
        if (server == null) {
            Throwable f = failed.get();
            if (f != null) {
                throw new StartFailure("--main " + className + "'s main threw", f);
            }
            if (t.isAlive()) {
                // Where it is stuck is the one clue to why: its main thread's stack at the bound.
                Throwable where = new IllegalStateException("--main " + className + "'s main thread at the bound");
                where.setStackTrace(t.getStackTrace());
                throw new StartFailure("--main " + className + " did not start an HttpServer within " + startBound + " ms",
                        where);
            }
            throw new StartFailure("--main " + className + " returned without starting an HttpServer", null);
        }
        return new AppMain(new JdkHttpApp(server), leave, className, server);
    }

    private static InetSocketAddress address(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        String h = hostPort.substring(0, colon);
        if (h.startsWith("[")) {
            h = h.substring(1, h.length() - 1);
        }
        try {
            return new InetSocketAddress(InetAddress.getByName(h), Integer.parseInt(hostPort.substring(colon + 1)));
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e); // a literal from getsockname
        }
    }
}
