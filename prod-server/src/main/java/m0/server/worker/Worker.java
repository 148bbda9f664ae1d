package m0.server.worker;

import java.util.concurrent.TimeUnit;
import m0.core.AcceptPolicy;
import m0.core.AcceptShare;
import m0.core.Page;
import m0.core.Rebalance;
import m0.core.WorkerShare;
import m0.core.loop.WorkerLoop;
import m0.server.http.App;
import m0.server.http.AppContext;
import m0.server.http.Apps;
import m0.server.http.HttpConfig;
import m0.server.jnr.Epoll;
import m0.server.jnr.EventFd;
import m0.server.jnr.Fds;
import m0.server.jnr.Native;
import m0.server.jnr.NativePaths;
import m0.server.jnr.Processes;
import m0.server.jnr.Sockets;
import m0.server.launch.ExitCodes;
import m0.server.launch.LoopThread;
import m0.server.launch.WorkerOperations;
import m0.server.launch.WorkerSpec;
import m0.server.log.RateLimitedLog;
import m0.server.log.StartTrace;
import m0.server.share.Accepted;
import m0.server.share.SharedPage;
import m0.server.share.Signals;
import m0.server.share.SocketChannels;

/**
 * A worker JVM, from its start to its exit: it adopts the descriptors the supervisor gave it,
 * loads the app, assembles its parts, warms up, takes over its index, and runs its
 * {@link EventLoop} (which runs the core's {@link WorkerLoop}) until it has left.
 *
 * <p>The parts, top-down: {@link EventLoop} the cycle; {@link ConnectionIo} over
 * {@link ConnectionTable} the connections' bytes, {@link AnswerWrites} how its answers leave,
 * {@link LingeringClose} its closes after an error answer, and
 * {@link HeldConnections},
 * {@link EpollListener} and {@link WorkerChannels} the core loop's ports over them;
 * {@link PassStats} what a pass shows; {@link WarmUp} the start-up's warm-up; {@link WorkerKnobs}
 * the A/B knobs and test faults, read once here.
 *
 * <p>SIGTERM (or the supervisor's death) makes it leave: the core's leave and drain, what is in
 * flight finished, its idle connections handed to a live sibling (closed when none is live),
 * exit 0. INT and HUP are the supervisor's; USR1 reopens the access log.
 */
public final class Worker {

    /**
     * Descriptors kept free below RLIMIT_NOFILE beside those held at start (JVM, page, channels,
     * epoll): for hand-offs received at the cap, the pool's work and a lingering close. Past the
     * reserve a hand-off arrives truncated and is counted as lost by the core.
     */
    static final int DESCRIPTOR_RESERVE = 64;

    private final WorkerSpec spec;
    private final WorkerKnobs knobs;
    private final App app;
    private final String name;
    private final RateLimitedLog failures;
    private final Page page;
    private final AcceptShare<Accepted> share;
    private final Epoll epoll = EventLoop.epoll();
    private final EventFd wake = new EventFd();
    private final BlockingPool pool;
    private final ConnectionIo io;
    private final EpollListener listener;
    private final WorkerLoop<Accepted> loop;
    private final PassStats stats;
    /** App failures: logged on their own (rate limited), counted, and an OutOfMemoryError's leave. */
    private final FailedHandlers failed;
    /** The listener's TLS (ADR 0069), or null: plain HTTP. */
    private m0.server.tls.EngineSource tls;

    private Worker(WorkerSpec spec, WorkerKnobs knobs, App app) {
        this.spec = spec;
        this.knobs = knobs;
        this.app = app;
        this.name = "m0serve worker " + spec.index();
        this.failures = new RateLimitedLog(System.err, name + ": ");
        this.page = SharedPage.adopt(spec.pageFd(), spec.lines()).page();
        int[] receiveFds = new int[spec.lines()];
        java.util.Arrays.fill(receiveFds, -1);
        receiveFds[spec.index()] = spec.receiveFd();
        SocketChannels channels = new SocketChannels(spec.sendFds(), receiveFds, name + ": ",
                knobs.holdSentCopyNanos() > 0 ? SocketChannels.heldFor(knobs.holdSentCopyNanos())
                        : SocketChannels.CLOSE_SENT_COPY);
        this.share = new AcceptShare<>(page, channels, System::nanoTime, AcceptPolicy.named(spec.acceptPolicy()),
                spec.lines(), spec.index(), AcceptShare.LEAVE_DRAIN_NANOS, spec.rebalance()
                        ? new Rebalance(AcceptShare.REBALANCE_DEAD_BAND, AcceptShare.REBALANCE_INTERVAL_NANOS)
                        : Rebalance.off());
        WorkerShare<Accepted> protocol = knobs.standIn(share); // share itself, but for a test's fault
        this.pool = spec.blockingThreads() <= 0 ? null
                : new BlockingPool(spec.blockingThreads(), 4096, "m0-blocking-" + spec.index());
        if (pool != null) {
            // Made here, free: a thread made later by the loop would inherit its CPU once pinned (docs/adr/0070).
            pool.prestartAllCoreThreads();
        }
        HttpConfig http = new HttpConfig(spec.maxHeaderBytes(), spec.maxBodyBytes(),
                TimeUnit.MILLISECONDS.toNanos(spec.idleTimeoutMillis()),
                TimeUnit.MILLISECONDS.toNanos(spec.headerTimeoutMillis()),
                TimeUnit.MILLISECONDS.toNanos(spec.bodyTimeoutMillis()));
        // Affinities are read only where a swap can follow: share rebalancing over siblings.
        ConnectionTable table = new ConnectionTable(share.rebalances() && knobs.pairAt() > 0
                ? new Affinities(Sockets::incomingCpu, Affinities.placedAmong(spec.cpus(), share::pairedWorker),
                        spec.lines(), knobs.pairAt(),
                        knobs.pairReread())
                : Affinities.none());
        RingSends sends = knobs.ringSends() && NativePaths.current().ioUring() ? RingSends.open(failures::log) : null;
        this.io = new ConnectionIo(epoll, table, http, app, pool, wake, failures, this::work, knobs.eagerRead(),
                knobs.keepReceivedRegistered(), sends);
        // One waiter per connection where the policy wants it (share, race); fountain must not (ADR 0022).
        this.listener = new EpollListener(epoll, spec.listenFd(), EventTags.LISTENER,
                share.policy().wakesOne() && knobs.listenExclusive(), failures);
        long maxConnections = spec.maxConnections() > 0 ? spec.maxConnections()
                : defaultMaxConnections(Fds.openFileLimit(), Fds.openCount(), spec.blockingThreads());
        this.loop = new WorkerLoop<>(protocol, listener, new HeldConnections(table, io, pool, System::nanoTime),
                new WorkerChannels(channels, epoll, spec.receiveFd()), System::nanoTime,
                new WorkerLoop.Limits(WorkerLoop.ACCEPT_BATCH, maxConnections, TimeUnit.MILLISECONDS.toNanos(spec.graceMillis())),
                failures::log);
        this.stats = new PassStats(page, share, spec.index(), loop.meter(), pool, io, sends);
        this.failed = new FailedHandlers(new RateLimitedLog(System.err, name + ": "), this::leave);
        io.reportFailures(failed);
    }

    /** Work in the warm-up and the loop's passes: the loop stamps it once it has started. */
    private void work() {
        loop.work();
    }

    private void handshaking() {
        loop.handshaking();
    }

    /**
     * {@code --max-connections 0}: RLIMIT_NOFILE less what the process holds at start and a
     * reserve ({@link #DESCRIPTOR_RESERVE} plus one per pool thread), at least 1.
     */
    static long defaultMaxConnections(long openFileLimit, int openAtStart, int blockingThreads) {
        long reserve = (long) openAtStart + DESCRIPTOR_RESERVE + Math.max(0, blockingThreads);
        return Math.max(1, openFileLimit - reserve);
    }

    public static void main(String[] args) {
        m0.server.log.WholeLines.install(); // the supervisor's and every worker's lines share one stream
        WorkerSpec spec = WorkerSpec.parse(args);
        if (spec.settings().on(m0.server.settings.ServerSettings.DEV_START_TRACE)) {
            StartTrace.turnOn();
        }
        StartTrace.as("worker " + spec.index());
        StartTrace.mark("main");
        // Inherited through dup2, so not close-on-exec any more: restore it.
        Fds.setCloseOnExec(spec.listenFd());
        Fds.setCloseOnExec(spec.pageFd());
        Fds.setCloseOnExec(spec.receiveFd());
        for (int fd : spec.sendFds()) {
            Fds.setCloseOnExec(fd);
        }
        // Before the loop: at the descriptor limit a class read from a directory cannot be loaded
        // (App: m0-app-api's classes, a directory of their own when the tests run unshaded).
        ExplodedClassPath.preload(java.util.List.of(Worker.class, AcceptShare.class, App.class));
        StartTrace.mark("descriptors adopted");
        WorkerOperations ops = WorkerOperations.of(spec);
        NativePaths.choose(NativePaths.parse(ops.nativeFallbacks())); // before the first epoll (docs/adr/0060)
        WorkerKnobs knobs;
        App app;
        AppMain appMain = null;
        try {
            knobs = WorkerKnobs.from(spec.settings());
            if (ops.appClasspath() != null) {
                // Apps.load and the pool threads (created by this thread) use the context loader.
                Thread.currentThread().setContextClassLoader(m0.server.http.AppClassPath.loader(ops.appClasspath()));
            }
            if (ops.mainClass() != null) {
                // --main: the app's own main makes its HttpServer on our provider; serving waits for its start()
                appMain = AppMain.run(ops.mainClass(), ops.mainArgs(), spec.listenFd(), spec.index(),
                        ops.mainStartMillis());
                app = appMain.app();
                knobs = knobs.withoutWarmUp(); // the warm-up's requests would reach the app's own handlers
            } else {
                app = loadApp(spec.app());
            }
        } catch (StartFailure f) {
            exitCannotStart(spec, f);
            return;
        } catch (RuntimeException | LinkageError e) {
            System.err.println("m0serve worker " + spec.index() + ": cannot load the app: " + e.getMessage());
            System.exit(ExitCodes.CONFIG);
            return;
        }
        StartTrace.mark("app loaded");
        Worker w = new Worker(spec, knobs, app);
        if (appMain != null) {
            appMain.leaveWith(w::leave);
        }
        StartTrace.mark("page mapped, loop made");
        RequestRecorder recorder;
        try {
            recorder = RequestRecorder.create(ops, spec.index(), w.failures);
        } catch (java.io.IOException | RuntimeException e) {
            System.err.println("m0serve worker " + spec.index() + ": cannot open the access log: " + e.getMessage());
            System.exit(ExitCodes.CONFIG);
            return;
        }
        // ---- TLS (ADR 0069): each worker reads the PEM files itself; one that does not load is
        // the configuration's fault (the supervisor checked them once before any worker started).
        // Under --main, an app's HttpsServer brings its own (ListenerTls).
        m0.server.tls.EngineSource tls;
        try {
            tls = ListenerTls.choose(args, appMain, w.name, spec);
        } catch (StartFailure f) {
            exitCannotStart(spec, f);
            return;
        } catch (m0.server.tls.TlsSetupException e) {
            System.err.println("m0serve worker " + spec.index() + ": " + e.getMessage());
            System.exit(ExitCodes.CONFIG);
            return;
        }
        w.tls = tls;
        int status;
        try {
            status = w.run(recorder);
        } catch (StartFailure f) {
            exitCannotStart(spec, f);
            return;
        } catch (Throwable t) {
            System.err.println("m0serve worker " + spec.index() + " failed: " + t);
            t.printStackTrace();
            status = 1;
        }
        System.exit(status);
    }

    /** {@code --app}'s class made: its constructor's or static initialiser's throwable is the app's cause. */
    private static App loadApp(String name) {
        try {
            return Apps.load(name);
        } catch (IllegalArgumentException e) {
            Throwable cause = e.getCause() instanceof ClassNotFoundException ? null : e.getCause(); // the name says it all
            throw new StartFailure(e.getMessage(), cause);
        }
    }

    /**
     * The app cannot start here: said once for the server (the page's word keeps N workers from
     * printing one cause N times), then exit 78, which the supervisor does not respawn.
     */
    private static void exitCannotStart(WorkerSpec spec, StartFailure f) {
        m0.core.Page page = null;
        try {
            page = SharedPage.adopt(spec.pageFd(), spec.lines()).page();
        } catch (RuntimeException e) {
            // printed in full, then: a page we cannot map is no reason to hide the cause
        }
        f.report("m0serve worker " + spec.index(), page, System.err);
        System.exit(ExitCodes.CONFIG);
    }

    /** ORs {@code fact} into the page's facts word (siblings report theirs at the same time). */
    private void reportFact(long fact) {
        for (long was = page.getVolatile(m0.core.PageLayout.FACTS_WORD);
                !page.compareAndSet(m0.core.PageLayout.FACTS_WORD, was, was | fact);
                was = page.getVolatile(m0.core.PageLayout.FACTS_WORD)) {
            // another worker's fact landed first: OR ours into the new value
        }
    }

    /** A graceful leave, as at SIGTERM (the app's HttpServer.stop under --main). */
    private void leave() {
        loop.requestStop();
        wake.signal();
    }

    private int run(RequestRecorder recorder) {
        // First act: NOT_STARTED until the loop reads the channel. Under race too: the supervisor
        // reads starts off the page (a reload waits for one; the budget counts it).
        share.bind();
        // Before the app's init, which may be slow: a SIGTERM from here on is a graceful stop.
        Signals.onSignal("TERM", this::leave);
        Signals.onSignal("INT", () -> { }); // the supervisor owns Ctrl-C: it sends each worker a TERM
        Signals.onSignal("HUP", () -> { }); // a reload is the supervisor's; a group hang-up must not kill us
        Signals.onSignal("USR1", () -> { // forwarded by the supervisor: reopen the access log
            if (recorder != null) {
                recorder.requestReopen();
                wake.signal(); // a pass now, so the renamed file is let go of without waiting for traffic
            }
        });
        try {
            app.init(new AppContext(ProcessHandle.current().pid(), spec.index()));
        } catch (Throwable t) { // an Error too: it is the app's, and it cannot serve without its init
            throw new StartFailure("app " + app.getClass().getName() + ": init threw", t);
        }
        StartTrace.mark("app initialised");
        epoll.add(wake.fd(), Epoll.IN, EventTags.WAKE); // before the warm-up: a pool app's answer wakes us
        if (knobs.warmUp()) {
            new WarmUp(epoll, io, failures, name).run(); // its requests are no client's: not recorded
        }
        StartTrace.mark("warmed up");
        io.record(recorder);
        if (tls != null) {
            io.secure(tls, name, this::handshaking); // after the warm-up, whose own requests are plain
            System.err.println(name + ": " + tls.describe());
            if (tls instanceof m0.server.jdkhttp.AppTls) {
                // Before our start shows: the supervisor's ready line says https from it.
                reportFact(m0.core.PageLayout.FACT_APP_TLS);
            }
        }
        // A hand-off's payload, the access log, an exchange's remote address.
        listener.keepPeers(share.sharing() || recorder != null || app instanceof m0.server.http.ExchangeApp);
        int parentFd = watchSupervisor();
        if (parentFd == SUPERVISOR_GONE) {
            return 1; // the supervisor died before we could watch it
        }
        loop.listen();
        if (spec.deferOnChurn()) {
            loop.deferOnChurn();
        }
        epoll.add(spec.receiveFd(), Epoll.IN, EventTags.CHANNEL);
        if (parentFd >= 0) {
            epoll.add(parentFd, Epoll.IN, EventTags.PARENT);
        }
        // The one thread the supervisor pins when it places workers: it finds it by this name
        // (docs/adr/0070). Named only now: a native thread takes its maker's name, and the app's
        // init (an inference runtime's pool) ran on this thread.
        Thread.currentThread().setName(LoopThread.NAME);
        holdBeforeStart();
        loop.start();
        StartTrace.mark("PARKED");
        if (knobs.diesAtStart(spec.index())) {
            System.err.println(name + ": --dev-die-at-start-index: exit 1");
            return 1;
        }
        new EventLoop(epoll, loop, io, stats, recorder, parentFd, failed).run();
        if (pool != null) {
            pool.shutdownNow();
        }
        if (recorder != null) {
            recorder.close();
        }
        return failed.retiring() ? 1 : 0; // left for an error: a death, for the supervisor's budget
    }

    private static final int SUPERVISOR_GONE = -2;

    /**
     * Watches the supervisor: its pidfd (readable when it dies: the loop leaves as on SIGTERM);
     * without pidfds (docs/adr/0060), the kernel's SIGTERM at its death (PR_SET_PDEATHSIG), which
     * the TERM handler already takes as a leave.
     *
     * @return the pidfd, -1 when the signal watches instead, {@link #SUPERVISOR_GONE} when the
     *         supervisor is no longer our parent
     */
    private int watchSupervisor() {
        if (NativePaths.current().pidfd()) {
            return Native.getppid() != spec.supervisorPid() ? SUPERVISOR_GONE : Processes.pidfdOpen(spec.supervisorPid());
        }
        Processes.signalWhenParentDies(Processes.SIGTERM);
        // After the request: a parent that died before it sends nothing, and we are reparented.
        return Native.getppid() != spec.supervisorPid() ? SUPERVISOR_GONE : -1;
    }

    /**
     * --dev-arm-gap-ms: stay NOT_STARTED for that long, as a worker whose app is slow to import
     * would (the NS case: nothing may be handed to us meanwhile). Bounded; a SIGTERM ends the
     * hold early (the loop then leaves at once).
     */
    private void holdBeforeStart() {
        long ms = knobs.armGapMillis(spec.index());
        if (ms <= 0) {
            return;
        }
        System.err.println(name + ": --dev-arm-gap-ms: holding " + ms + " ms before start");
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        while (!loop.stopRequested() && System.nanoTime() - until < 0) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
