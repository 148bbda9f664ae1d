package m0.server.supervisor;

import java.io.PrintStream;
import java.util.concurrent.TimeUnit;
import m0.core.Page;
import m0.core.SupervisorShare;
import m0.server.jnr.CpuAffinity;
import m0.server.jnr.Epoll;
import m0.server.jnr.EventFd;
import m0.server.jnr.Native;
import m0.server.jnr.NativeException;
import m0.server.jnr.NativePaths;
import m0.server.jnr.Processes;
import m0.server.jnr.Sockets;
import m0.server.launch.ExitCodes;
import m0.server.launch.LoopThread;
import m0.server.log.RateLimitedLog;
import m0.server.log.StartTrace;
import m0.server.share.Accepted;
import m0.server.share.SharedPage;
import m0.server.share.SocketChannels;

/**
 * The supervisor JVM: binds the listener, creates the shared page and one datagram socketpair
 * per worker index ({@link Slots}: 2N + 1 lines), spawns the worker JVMs with exactly those
 * descriptors ({@link Spawner}), and watches them with pidfds in its own epoll set (or SIGCHLD
 * where the kernel has no pidfds: {@link ChildWatch}).
 * docs/adr/0006 has the lifecycle.
 *
 * <p>One thread runs one loop, in the manner of nginx's master cycle: wait on epoll (a signal's
 * wake-up, a worker's pidfd, a given-up channel), then give every part its turn, in this order:
 * reaps ({@link Reaper}: {@link SupervisorShare#markReaped} before anything is respawned or given
 * up, RP), give-up drains ({@link GiveUps}, RB), respawn retries, starts seen on the page
 * ({@link Readiness}), a stop, SIGTTIN / SIGTTOU ({@link Scaling}), SIGHUP
 * ({@link RollingReload}), SIGUSR1 forwarded, systemd's status. SIGTERM or SIGINT: SIGTERM to
 * every worker, wait for all (SIGKILL past the grace), exit 0.
 *
 * <p>Its environment comes in once, as {@link SupervisorKnobs} (with the test's
 * {@code --dev-max-respawns}).
 */
public final class Supervisor {

    private static final int BACKLOG = 4096;
    /** Epoll data of the wake-up; a pidfd's is its index, a watched channel's is tagged ({@link GiveUps}). */
    private static final long WAKE = -1L;
    /** How often the page is read while a worker's start or a reload step is awaited. */
    private static final int WATCH_MILLIS = 20;

    private final ServerConfig config;
    /** Operators' additions (metrics, access log, systemd): docs/adr/0017, 0018. */
    private final OperatorConfig ops;
    /** Read once at start: test hooks, the workers' JVM options, the environment itself. */
    private final SupervisorKnobs knobs;
    private final SystemdNotify notify;
    private final PrintStream out;
    private final Slots slots;
    private final RespawnBudget budget;
    private final EventFd wake = new EventFd();
    private final Epoll epoll = new Epoll(64);
    private final SignalRequests signals = new SignalRequests(wake);
    private final ChildWatch children = new ChildWatch(epoll, NativePaths.current().pidfd());
    /** What /readyz says: the loop moves it (docs/adr/0067). */
    private final Health health = new Health();
    /** The stop's two lines: why, how many workers, how long the drain took. */
    private final StopLines stopLines;
    /** {@code --pid-file}: written once the listeners are bound, removed at exit; null: none. */
    private java.nio.file.Path pidFilePath;
    /** The loop's failures (a reap, a give-up step, a spawn): one line a second, then retried. */
    private final RateLimitedLog failures = new RateLimitedLog(System.err, "m0serve: ");

    /** --drain-delay-ms: how long a stop serves on with /readyz 503 before it begins. */
    private final DrainDelay drainDelay;
    /** SIGTERM or SIGINT was acted on: nobody is replaced any more. */
    private boolean stopping;
    /** While stopping: when the workers still running are SIGKILLed. */
    private long killDeadline;
    /** The exit status once every worker is gone: 0, or 78 when the app could not start (ADR 0062). */
    private int stopStatus;

    // Made by run() once the listener, the page and the channels exist; the loop's parts.
    private MetricsServer metrics;
    private GiveUps giveUps;
    private Reaper reaper;
    private Readiness readiness;
    private Scaling scaling;
    private RollingReload reload;
    private Pinning pinning;
    private Oversubscription oversubscription;
    /** The TLS session-ticket keys, made and rotated here (ADR 0073); null: plain HTTP. */
    private TicketRotation tickets;

    public Supervisor(ServerConfig config, OperatorConfig ops, SupervisorKnobs knobs, PrintStream out) {
        this.config = config;
        this.ops = ops;
        this.knobs = knobs;
        this.notify = SystemdNotify.fromEnvironment(knobs.environment());
        this.out = out;
        this.stopLines = new StopLines(out);
        this.drainDelay = new DrainDelay(config.drainDelayMillis(), health, out);
        this.slots = new Slots(config.workers());
        this.budget = new RespawnBudget(slots.lines(), knobs.maxRespawns());
    }

    /**
     * {@code --pid-file}: where {@link #run} writes the supervisor's pid once it has bound its
     * listeners (a second server that fails to bind leaves the first's file alone), and removes
     * it at exit. Set before {@link #run}.
     */
    public Supervisor pidFile(java.nio.file.Path file) {
        this.pidFilePath = file;
        return this;
    }

    /**
     * TCP_DEFER_ACCEPT as {@code --defer-accept} says, on the listener this process bound and on
     * one systemd passed alike (ADR 0054, 0056): a fixed number is set, and auto starts at 0 for
     * the share workers to set while every one keeps (fountain and race never do). systemd keeps a
     * socket across restarts, so what is on an adopted one may be a past run's; the flag, not the
     * unit's DeferAcceptSec=, is what holds. WarmUp's own listener never has it (its connection is
     * accepted before it writes). A kernel or sandbox that refuses the option costs the saving,
     * not the server: one line, as nginx does.
     */
    private void deferAccept(int listener) {
        int seconds = Math.max(0, config.deferAcceptSeconds());
        try {
            Sockets.deferAccept(listener, seconds);
        } catch (NativeException e) {
            System.err.println("m0serve: TCP_DEFER_ACCEPT " + seconds + " not set on the listener: " + e.getMessage());
        }
    }

    /** Serves until SIGTERM/SIGINT; returns the process's exit status. */
    public int run() {
        String rejected = JavaCommand.rejectedArchive();
        if (rejected != null) {
            System.err.println(rejected);
        }
        if (ops.tls().on()) { // before the first spawn: every worker maps the keys at its start
            try {
                tickets = TicketRotation.open(config.values().text(m0.server.settings.ServerSettings.TLS_TICKET_KEY),
                        config.values().number(m0.server.settings.ServerSettings.DEV_TLS_TICKET_ROTATE_MS), System.nanoTime());
            } catch (m0.server.tls.TlsSetupException e) {
                System.err.println("m0serve: " + e.getMessage());
                return 2; // as ServerStart's check (usage): the files changed since
            }
        }
        String where = Sockets.hostPort(config.host(), config.port());
        int listener;
        try {
            listener = SocketActivation.adopt(knobs.environment(), ProcessHandle.current().pid());
        } catch (SocketActivation.Misconfigured e) {
            System.err.println("m0serve: " + e.getMessage());
            return 2;
        }
        try {
            if (listener < 0) {
                listener = Sockets.listenTcp(config.host(), config.port(), BACKLOG);
            }
        } catch (NativeException e) {
            String why = e.errno() == Native.EADDRINUSE
                    ? "port " + config.port() + " is already in use (another server on " + where + "?)"
                    : e.getMessage();
            System.err.println("m0serve: cannot bind " + where + ": " + why);
            return 1;
        }
        deferAccept(listener);
        StartTrace.mark("listener bound");
        String address = Sockets.localHostPort(listener);
        int lines = slots.lines();
        SharedPage shared = SharedPage.create(lines);
        Page page = shared.page();
        ServerCounters counters = new ServerCounters(lines);
        if (ops.metrics()) {
            try {
                metrics = MetricsServer.start(ops.metricsHost(), ops.metricsPort(), page, counters,
                        "fountain".equals(config.acceptPolicy()), health);
            } catch (java.io.IOException e) {
                System.err.println("m0serve: cannot serve metrics on "
                        + Sockets.hostPort(ops.metricsHost(), ops.metricsPort()) + ": " + e.getMessage());
                return 1;
            }
        }
        m0.server.control.PidFile pidFile = null;
        if (pidFilePath != null) {
            try {
                pidFile = m0.server.control.PidFile.write(pidFilePath, ProcessHandle.current().pid());
            } catch (java.io.IOException | RuntimeException e) {
                System.err.println("m0serve: cannot write --pid-file " + pidFilePath + ": " + e);
                if (metrics != null) {
                    metrics.stop();
                }
                return 1;
            }
        }
        StartupTimes startup = StartupTimes.create(lines);
        int[] cpus = config.cpuAffinity() == CpuPlacement.Mode.OFF ? new int[0] : allowedCpus();
        CpuPlacement placement = CpuPlacement.of(config.cpuAffinity(), config.workers(), cpus, ops.mainClass() != null);
        pinning = new Pinning(slots, placement, cpus,
                (pid, loop) -> CpuAffinity.pinLoop(pid, LoopThread.NAME, loop), failures);
        oversubscription = new Oversubscription(slots, Runtime.getRuntime().availableProcessors(),
                Oversubscription::runnableThreads, System.err,
                config.workers() + " workers x " + config.blockingThreads() + " blocking threads");
        int[] sendFds = new int[lines];
        int[] receiveFds = new int[lines];
        for (int i = 0; i < lines; i++) {
            int[] pair = Sockets.datagramPair(SocketChannels.BUFFER_BYTES);
            sendFds[i] = pair[0];
            receiveFds[i] = pair[1];
        }
        // Sharing on whatever the policy: the marks (LEFT on reap) and the give-up drain are
        // lifecycle, not per-connection work; under race nothing is ever queued to drain.
        StartTrace.mark("page and channels made");
        SupervisorShare<Accepted> share =
                new SupervisorShare<>(page, new SocketChannels(sendFds, receiveFds), System::nanoTime, lines, true);
        giveUps = new GiveUps(slots, epoll, receiveFds, share, page, counters, failures);
        Spawner spawner = new Spawner(slots,
                new WorkerCommand(config, ops, knobs, listener, shared.fd(), sendFds, receiveFds, placement),
                children, share, giveUps, budget, startup, counters, failures);
        reaper = new Reaper(slots, children, share, budget, spawner, giveUps, counters);
        // Under --main without --tls-cert the app's main decides http or https, after this line:
        // the start line names both, and the ready line says which once the workers have started.
        String appScheme = ops.mainClass() != null && !ops.tls().on() ? address : null;
        readiness = new Readiness(slots, page, share, startup, counters, notify, out, health, appScheme);
        reload = new RollingReload(slots, spawner, readiness, counters, () -> { // certificates first: a bad one keeps the keys too
            String unfit = m0.server.tls.TlsContext.problem(ops.tls());
            return unfit != null || tickets == null ? unfit : tickets.reread();
        });
        scaling = new Scaling(slots, spawner, reload);
        epoll.add(wake.fd(), Epoll.IN, WAKE);
        signals.install();
        children.install(wake);
        StartTrace.mark("signals handled");
        for (int i = 0; i < slots.wanted(); i++) {
            slots.at(i).member = true;
            spawner.spawn(i);
            StartTrace.mark("worker " + i + " spawned");
        }
        // The start line: what runs, where, as which process (the stop line pairs with it).
        NativePaths paths = NativePaths.current();
        out.printf("m0serve: listening on %s (workers %d, accept policy %s, pid %d, m0serve %s; native calls: %s%s)%n",
                appScheme != null ? "http://" + address + "/ or https://" + address + "/ as the app's main makes its server"
                        : (ops.tls().on() ? "https" : "http") + "://" + address + "/", slots.wanted(), config.acceptPolicy(),
                ProcessHandle.current().pid(), ServerVersion.text(), paths.describe(), paths.forced().isEmpty() ? "" : ", fallbacks forced: " + paths.forced());
        String pinned = placement.describe(slots.wanted());
        if (pinned != null) {
            out.println(pinned);
        }
        if (metrics != null) {
            out.printf("m0serve: metrics on http://%s/metrics%n", metrics.address());
        }
        out.flush();
        try {
            return loop();
        } finally {
            if (metrics != null) {
                metrics.stop();
            }
            String notRemoved = pidFile == null ? null : pidFile.removeIfOurs();
            if (notRemoved != null) {
                System.err.println("m0serve: " + notRemoved);
            }
        }
    }

    private int loop() {
        for (;;) {
            int n = epoll.await(timeoutMillis());
            for (int i = 0; i < n; i++) {
                long data = epoll.data(i);
                if (data == WAKE) {
                    wake.drain();
                } else if (GiveUps.isWatch(data)) {
                    giveUps.watchStep(GiveUps.watchedIndex(data));
                } else {
                    reap((int) data);
                }
            }
            if (children.takeChildSignal()) {
                for (int i = 0; i < slots.lines(); i++) {
                    reap(i); // no pidfds: SIGCHLD says some worker changed, not which
                }
            }
            giveUps.step();
            long now = System.nanoTime();
            if (!stopping) {
                reaper.retryRespawns(now);
            }
            readiness.observeStarts(now, stopping);
            String configExit = reaper.takeConfigExit();
            if (configExit != null && !readiness.anyStarted() && !stopping) {
                // Every worker runs the same app: the others would fail alike. Stop, not N failures.
                System.err.println("m0serve: " + configExit + " before any worker started: the app cannot start; "
                        + "stopping (exit " + ExitCodes.CONFIG + ")");
                stopStatus = ExitCodes.CONFIG;
                beginStop(now, "the app cannot start");
            }
            if (signals.stopRequested() && !stopping
                    && drainDelay.over(now, signals.stopSignal(), signals.stopSignals())) {
                beginStop(now, signals.stopSignal());
            }
            if (!stopping) {
                scaling.apply(signals.takeScale());
                reload.step(signals.takeReload());
                pinning.step(reload.inProgress());
                oversubscription.step(now);
                if (tickets != null) {
                    tickets.step(now); // a reload keeps a made set: only the period makes a new key
                }
            }
            if (signals.takeReopen()) {
                signalRunning(Processes.SIGUSR1);
            }
            readiness.status(stopping);
            if (stopping && now - killDeadline >= 0) {
                killOutlivers(now);
            }
            if (slots.running() == 0 && !giveUps.draining() && !slots.respawnDue()) {
                if (stopping) {
                    stopLines.end(System.nanoTime(), stopStatus, null);
                    return stopStatus;
                }
                System.err.println("m0serve: every worker index was given up; stopping");
                stopLines.end(System.nanoTime(), 1, "every worker index was given up");
                return 1;
            }
        }
    }

    private void reap(int index) {
        try {
            reaper.reap(index, stopping, reload.replacing(index));
        } catch (RuntimeException e) {
            // The pidfd stays readable (level-triggered): the reap is tried again at the next
            // wait. Without pidfds, the next pass looks at every worker again.
            children.lookAgain();
            failures.log("reaping worker " + index + ": " + e + "; retrying");
        }
    }

    private int timeoutMillis() {
        if (stopping || giveUps.draining() || drainDelay.begun()) {
            return 10; // the give-up drains, the drain delay's end and the grace deadline are polled
        }
        if (slots.respawnDue()) {
            return WATCH_MILLIS; // a failed spawn is retried
        }
        if (reload.inProgress()) {
            return WATCH_MILLIS;
        }
        if (slots.startAwaited()) {
            return StartupTimes.WATCH_MILLIS; // finer: the start-up time is read off this poll
        }
        return tickets == null ? 1000 : Math.min(1000, tickets.millisToNext(System.nanoTime()));
    }

    /**
     * SIGTERM to every worker (each leaves through the core); a respawn still due is given up
     * instead. /readyz turns 503 first, before any worker is told (docs/adr/0067).
     */
    private void beginStop(long now, String why) {
        health.stopping();
        stopping = true;
        stopLines.begin(why, now, slots.running(), config.graceMillis());
        readiness.stopping();
        killDeadline = now + TimeUnit.MILLISECONDS.toNanos(config.graceMillis() + 5_000);
        reload.cancel();
        for (int i = 0; i < slots.lines(); i++) {
            Slot s = slots.at(i);
            if (s.running()) {
                Processes.kill(s.pid, Processes.SIGTERM);
            } else if (s.respawnAt != 0) {
                giveUps.giveUp(i, now); // a respawn that never came: nobody will read its channel
            }
        }
    }

    /** The grace (--grace-ms + 5 s) is over: SIGKILL whoever is left, and again every 5 s. */
    private void killOutlivers(long now) {
        for (int i = 0; i < slots.lines(); i++) {
            Slot s = slots.at(i);
            if (s.running()) {
                System.err.println("m0serve: worker pid " + s.pid + " outlived the grace period: SIGKILL");
                stopLines.killed();
                Processes.kill(s.pid, Processes.SIGKILL);
            }
        }
        killDeadline = now + TimeUnit.SECONDS.toNanos(5);
    }

    private void signalRunning(int signal) {
        for (int i = 0; i < slots.lines(); i++) {
            Slot s = slots.at(i);
            if (s.running()) {
                Processes.kill(s.pid, signal);
            }
        }
    }

    /** The CPUs the workers may be placed on; none (every worker free) if the kernel will not say. */
    private static int[] allowedCpus() {
        try {
            return CpuAffinity.allowed();
        } catch (NativeException e) {
            System.err.println("m0serve: CPUs not known, workers left free: " + e.getMessage());
            return new int[0];
        }
    }
}
