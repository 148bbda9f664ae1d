package m0.sim;

import java.lang.reflect.Method;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * A pooled thread that runs one actor's body at a time. Threads are reused across runs:
 * exhaustive mode starts tens of thousands of runs.
 *
 * <p>Two kinds, one hand-off protocol ({@link Scheduler}): a {@link Kind#PLATFORM} carrier is an
 * OS thread, and a hand-off between two of them is a futex wake-up on the other core (5–25 µs
 * on this VM: ADR 0026). A {@link Kind#VIRTUAL} carrier is a virtual thread (JDK 21+, created
 * reflectively: the code is built for 17), and every virtual thread of the JVM runs on ONE
 * scheduler thread ({@code jdk.virtualThreadScheduler.parallelism=1}, set here unless the
 * command line sets it): {@code unpark} queues the next actor on that thread and the holder's
 * {@code park} runs it there, a continuation switch of about a microsecond with no kernel in it.
 * Only the baton decides who runs, so the kind changes no schedule and no trace.
 */
final class Carrier implements Runnable {

    enum Kind {
        PLATFORM, VIRTUAL
    }

    /** Virtual threads' builder, or null on a JDK without them (17). */
    private static final Object VIRTUAL_BUILDER;
    private static final Method UNSTARTED;

    static {
        if (System.getProperty("jdk.virtualThreadScheduler.parallelism") == null) {
            System.setProperty("jdk.virtualThreadScheduler.parallelism", "1");
        }
        Object builder = null;
        Method unstarted = null;
        try {
            builder = Thread.class.getMethod("ofVirtual").invoke(null);
            unstarted = Class.forName("java.lang.Thread$Builder").getMethod("unstarted", Runnable.class);
        } catch (ReflectiveOperationException | RuntimeException e) {
            builder = null; // JDK 17: platform carriers only
            unstarted = null;
        }
        VIRTUAL_BUILDER = builder;
        UNSTARTED = unstarted;
    }

    /**
     * The kind new runs use: virtual where the JDK has them, unless {@code -Dm0.sim.carriers=platform}.
     * A test seam too ({@code SchedulerHangTest} runs each kind); set it between runs only.
     */
    static final Kind DEFAULT = VIRTUAL_BUILDER != null && !"platform".equals(System.getProperty("m0.sim.carriers"))
            ? Kind.VIRTUAL : Kind.PLATFORM;

    static volatile Kind kind = DEFAULT;

    private static final ArrayDeque<Carrier> PLATFORM_POOL = new ArrayDeque<>();
    private static final ArrayDeque<Carrier> VIRTUAL_POOL = new ArrayDeque<>();
    /** Every carrier ever made (a few dozen), for a hung test's dump. */
    private static final List<Thread> ALL = new ArrayList<>();
    private static final ThreadLocal<Carrier> CURRENT = new ThreadLocal<>();

    private final Kind ofKind;
    private final Thread thread;
    private volatile Actor assigned;
    /** The actor whose body this thread runs now (read only on this thread). */
    private Actor carrying;

    private Carrier(Kind ofKind, int n) {
        this.ofKind = ofKind;
        String name = "sim-carrier-" + (ofKind == Kind.VIRTUAL ? "v" : "") + n;
        if (ofKind == Kind.VIRTUAL) {
            thread = virtual(this, name);
        } else {
            thread = new Thread(this, name);
            thread.setDaemon(true);
        }
    }

    /** The kinds this JDK can run: platform always, virtual on 21+. */
    static List<Kind> kinds() {
        return VIRTUAL_BUILDER == null ? List.of(Kind.PLATFORM) : List.of(Kind.PLATFORM, Kind.VIRTUAL);
    }

    /** Starts {@code actor}'s body on a pooled carrier of the current kind; it waits for the baton. */
    static void run(Actor actor, Kind k) {
        ArrayDeque<Carrier> pool = k == Kind.VIRTUAL ? VIRTUAL_POOL : PLATFORM_POOL;
        Carrier c;
        boolean start = false;
        synchronized (pool) {
            c = pool.pollFirst();
            if (c == null) {
                synchronized (ALL) {
                    c = new Carrier(k, ALL.size());
                    ALL.add(c.thread);
                }
                start = true;
            }
        }
        actor.thread = c.thread;
        c.assigned = actor;
        if (start) {
            c.thread.start();
        } else {
            LockSupport.unpark(c.thread);
        }
    }

    /**
     * Runs {@code body} (a loop of runs: an exploration, a campaign) on a virtual thread when runs
     * use virtual carriers, so that each run's controller shares their scheduler thread too:
     * starting a run, its end and the abort loop's hand-offs then cost no kernel wake-up either
     * (two to four per run otherwise, a tenth of an exhaustive run). Here, otherwise.
     */
    static <T> T control(java.util.function.Supplier<T> body) {
        if (kind != Kind.VIRTUAL || CONTROLLING.get() != null) {
            return body.get();
        }
        Object[] out = new Object[2];
        Thread t = virtual(() -> {
            CONTROLLING.set(Boolean.TRUE);
            try {
                out[0] = body.get();
            } catch (RuntimeException | Error e) {
                out[1] = e;
            }
        }, "sim-controller");
        t.start();
        boolean interrupted = false;
        for (;;) {
            try {
                t.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true; // a run parks through interrupts; so does its caller
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (out[1] instanceof RuntimeException) {
            throw (RuntimeException) out[1];
        }
        if (out[1] instanceof Error) {
            throw (Error) out[1];
        }
        @SuppressWarnings("unchecked")
        T result = (T) out[0];
        return result;
    }

    private static final ThreadLocal<Boolean> CONTROLLING = new ThreadLocal<>();

    /** An unstarted virtual thread. Under ALL's lock: a {@code Thread.Builder} is not for concurrent use. */
    private static Thread virtual(Runnable body, String name) {
        synchronized (ALL) {
            try {
                Thread t = (Thread) UNSTARTED.invoke(VIRTUAL_BUILDER, body);
                t.setName(name);
                return t;
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot make a virtual thread", e);
            }
        }
    }

    /** The carrier whose thread is the caller's, or null (a test's or the controller's thread). */
    static Carrier current() {
        return CURRENT.get();
    }

    Actor carrying() {
        return carrying;
    }

    static List<Thread> all() {
        synchronized (ALL) {
            return new ArrayList<>(ALL);
        }
    }

    @Override
    public void run() {
        CURRENT.set(this);
        ArrayDeque<Carrier> pool = ofKind == Kind.VIRTUAL ? VIRTUAL_POOL : PLATFORM_POOL;
        for (;;) {
            Actor a;
            while ((a = assigned) == null) {
                LockSupport.park(this);
            }
            assigned = null;
            carrying = a;
            try {
                a.sim.runActor(a);
            } finally {
                carrying = null;
            }
            synchronized (pool) {
                pool.addFirst(this);
            }
        }
    }
}
