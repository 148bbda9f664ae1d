package m0.server.supervisor;

import java.io.PrintStream;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import m0.core.GiveUp;
import m0.core.Page;
import m0.core.PageLayout;
import m0.core.SupervisorShare;
import m0.server.jnr.Epoll;
import m0.server.jnr.EventFd;
import m0.server.jnr.Native;
import m0.server.jnr.NativeException;
import m0.server.jnr.Processes;
import m0.server.jnr.Sockets;
import m0.server.log.RateLimitedLog;
import m0.server.log.StartTrace;
import m0.server.share.Accepted;
import m0.server.share.SharedPage;
import m0.server.share.Signals;
import m0.server.share.SocketChannels;

/**
 * The supervisor JVM: binds the listener, creates the shared page and one datagram socketpair
 * per worker index, spawns the worker JVMs with exactly those descriptors (posix_spawnp), and
 * watches them with pidfds in its own epoll set. docs/adr/0006 has the lifecycle.
 *
 * <p>Indices: the page and the channels have {@code 2N + 1} lines for {@code --workers N}:
 * up to 2N running workers (SIGTTIN) and always one spare, because a reload's replacement
 * cannot take the index of a predecessor that is still alive (its start would subtract the
 * live one's taken). Pick skips lines that read NOT_STARTED or LEFT, so spare lines cost nothing.
 *
 * <p>On every reap: {@link SupervisorShare#markReaped} before anything is decided (RP); then
 * respawn into the same index within the budget, or give the index up and drive the core's
 * {@link GiveUp} drain, which re-homes what was queued to it (RB). SIGHUP: rolling reload, one
 * worker at a time. SIGTTIN / SIGTTOU: one worker more / fewer. SIGTERM or SIGINT: SIGTERM to
 * every worker, wait for all, exit 0.
 *
 * <p>Its environment comes in once, as {@link SupervisorKnobs} (the test hook
 * {@code M0_TEST_MAX_RESPAWNS} among them).
 */
public final class Supervisor {

    private static final int BACKLOG = 4096;
    private static final long WAKE = -1L;
    /** How often the page is read while a worker's start or a reload step is awaited. */
    private static final int WATCH_MILLIS = 20;

    private final ServerConfig config;
    private final PrintStream out;
    /** Operators' additions (metrics, access log, systemd): docs/adr/0017, 0018. */
    private final OperatorConfig ops;
    /** Read once at start: test hooks, the workers' JVM options, the environment itself. */
    private final SupervisorKnobs knobs;
    private final SystemdNotify notify;
    private ServerCounters counters;
    private MetricsServer metrics;
    /** RELOADING=1 was sent; READY=1 follows when the reload's queue is done. */
    private boolean reloadNotified;
    private volatile boolean reopenRequested;
    /** The "ready" line was printed: every first-generation worker has started. */
    private boolean announcedReady;
    /** Lines on the page (worker indices), running or not: 2N + 1. */
    private final int lines;
    private final Slots slots;
    private final EventFd wake = new EventFd();
    private final Epoll epoll = new Epoll(64);
    private final RespawnBudget budget;
    /** The loop's failures (a reap, a give-up step, a spawn): one line a second, then retried. */
    private final RateLimitedLog failures = new RateLimitedLog(System.err, "m0serve: ");

    private volatile boolean stopRequested;
    private volatile boolean reloadRequested;
    private final AtomicInteger scaleRequests = new AtomicInteger();
    private boolean stopping;
    private long killDeadline;
    private int listener = -1;
    private SharedPage shared;
    private Page page;
    private int[] sendFds;
    private int[] receiveFds;
    private SupervisorShare<Accepted> share;
    private int port;
    /** Spawn to start per index, launch to ready: for the log and m0serve stats (docs/adr/0011). */
    private StartupTimes startup;
    /** The parts the loop drives, made once the page and the channels exist. */
    private GiveUps giveUps;
    private Spawner spawner;
    private Reaper reaper;

    /** Old indices a running reload has still to replace, one at a time. */
    private final Deque<Integer> reloadQueue = new ArrayDeque<>();
    /** A SIGHUP that came during a reload: run another once this one is done. */
    private boolean reloadAgain;
    /** The reload step in progress, or null. */
    private ReloadStep step;

    /** One step of a rolling reload: start {@code fresh}, wait for its start, then retire {@code old}. */
    private static final class ReloadStep {
        final int old;
        final int fresh;
        boolean leaving;

        ReloadStep(int old, int fresh) {
            this.old = old;
            this.fresh = fresh;
        }
    }

    public Supervisor(ServerConfig config, OperatorConfig ops, SupervisorKnobs knobs, PrintStream out) {
        this.config = config;
        this.ops = ops;
        this.knobs = knobs;
        this.notify = SystemdNotify.fromEnvironment(knobs.environment());
        this.out = out;
        this.slots = new Slots(config.workers());
        this.lines = slots.lines();
        this.budget = new RespawnBudget(lines, knobs.maxRespawns());
    }

    /** Serves until SIGTERM/SIGINT; returns the process's exit status. */
    public int run() {
        String rejected = JavaCommand.rejectedArchive();
        if (rejected != null) {
            System.err.println(rejected);
        }
        String where = Sockets.hostPort(config.host(), config.port());
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
        port = Sockets.localPort(listener);
        StartTrace.mark("listener bound");
        String address = Sockets.localHostPort(listener);
        shared = SharedPage.create(lines);
        page = shared.page();
        counters = new ServerCounters(lines);
        if (ops.metrics()) {
            try {
                metrics = MetricsServer.start(ops.metricsHost(), ops.metricsPort(), page, counters,
                        "fountain".equals(config.acceptPolicy()));
            } catch (java.io.IOException e) {
                System.err.println("m0serve: cannot serve metrics on "
                        + Sockets.hostPort(ops.metricsHost(), ops.metricsPort()) + ": " + e.getMessage());
                return 1;
            }
        }
        startup = StartupTimes.create(lines);
        sendFds = new int[lines];
        receiveFds = new int[lines];
        for (int i = 0; i < lines; i++) {
            int[] pair = Sockets.datagramPair(SocketChannels.BUFFER_BYTES);
            sendFds[i] = pair[0];
            receiveFds[i] = pair[1];
        }
        // Sharing on whatever the policy: the marks (LEFT on reap) and the give-up drain are
        // lifecycle, not per-connection work; under race nothing is ever queued to drain.
        StartTrace.mark("page and channels made");
        share = new SupervisorShare<>(page, new SocketChannels(sendFds, receiveFds), System::nanoTime, lines, true);
        giveUps = new GiveUps(slots, epoll, receiveFds, share, page, counters, failures);
        spawner = new Spawner(slots, new WorkerCommand(config, ops, knobs, listener, shared.fd(), sendFds, receiveFds),
                epoll, share, giveUps, budget, startup, counters, failures);
        reaper = new Reaper(slots, epoll, share, budget, spawner, giveUps, counters);
        epoll.add(wake.fd(), Epoll.IN, WAKE);
        Signals.onSignal("TERM", () -> requestStop());
        Signals.onSignal("INT", () -> requestStop());
        Signals.onSignal("HUP", () -> {
            reloadRequested = true;
            wake.signal();
        });
        Signals.onSignal("TTIN", () -> {
            scaleRequests.incrementAndGet();
            wake.signal();
        });
        Signals.onSignal("TTOU", () -> {
            scaleRequests.decrementAndGet();
            wake.signal();
        });
        Signals.onSignal("USR1", () -> { // logrotate's convention: forwarded, each worker reopens its log
            reopenRequested = true;
            wake.signal();
        });
        StartTrace.mark("signals handled");
        for (int i = 0; i < slots.wanted(); i++) {
            slots.at(i).member = true;
            spawner.spawn(i);
            StartTrace.mark("worker " + i + " spawned");
        }
        out.printf("m0serve: listening on http://%s/ (workers %d, accept policy %s, pid %d)%n",
                address, slots.wanted(), config.acceptPolicy(), ProcessHandle.current().pid());
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
        }
    }

    private void requestStop() {
        stopRequested = true;
        wake.signal();
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
                    int index = (int) data;
                    try {
                        reaper.reap(index, stopping, step != null && step.old == index);
                    } catch (RuntimeException e) {
                        // The pidfd stays readable (level-triggered): the reap is tried again
                        // at the next wait.
                        failures.log("reaping worker " + data + ": " + e + "; retrying");
                    }
                }
            }
            giveUps.step();
            long now = System.nanoTime();
            if (!stopping) {
                reaper.retryRespawns(now);
            }
            observeStarts(now);
            if (stopRequested && !stopping) {
                beginStop(now);
            }
            if (!stopping) {
                scale();
                reload();
            }
            if (reopenRequested) {
                reopenRequested = false;
                forward(Processes.SIGUSR1);
            }
            if (notify.enabled()) {
                notify.status(statusLine());
            }
            if (stopping && now - killDeadline >= 0) {
                for (int i = 0; i < lines; i++) {
                    Slot s = slots.at(i);
                    if (s.running()) {
                        System.err.println("m0serve: worker pid " + s.pid + " outlived the grace period: SIGKILL");
                        Processes.kill(s.pid, Processes.SIGKILL);
                    }
                }
                killDeadline = now + TimeUnit.SECONDS.toNanos(5);
            }
            if (slots.running() == 0 && !giveUps.draining() && !slots.respawnDue()) {
                if (stopping) {
                    return 0;
                }
                System.err.println("m0serve: every worker index was given up; stopping");
                return 1;
            }
        }
    }

    private void forward(int signal) {
        for (int i = 0; i < lines; i++) {
            Slot s = slots.at(i);
            if (s.running()) {
                Processes.kill(s.pid, signal);
            }
        }
    }

    /** For {@code systemctl status}: what a person wants to know at a glance. */
    private String statusLine() {
        long open = 0;
        for (int i = 0; i < lines; i++) {
            if (slots.at(i).running()) {
                open += Math.max(0, page.getVolatile(PageLayout.activeWord(i)));
            }
        }
        return (stopping ? "stopping: " : "") + slots.running() + " worker(s) live, " + open + " connection(s) open, "
                + counters.respawns() + " respawn(s)";
    }

    private int timeoutMillis() {
        if (stopping || giveUps.draining()) {
            return 10; // the give-up drains and the grace deadline are polled
        }
        if (slots.respawnDue()) {
            return WATCH_MILLIS; // a failed spawn is retried
        }
        if (step != null || !reloadQueue.isEmpty()) {
            return WATCH_MILLIS;
        }
        if (slots.startAwaited()) {
            return StartupTimes.WATCH_MILLIS; // finer: the start-up time is read off this poll
        }
        return 1000;
    }

    private void beginStop(long now) {
        stopping = true;
        notify.stopping(statusLine());
        killDeadline = now + TimeUnit.MILLISECONDS.toNanos(config.graceMillis() + 5_000);
        reloadQueue.clear();
        step = null;
        for (int i = 0; i < lines; i++) {
            Slot s = slots.at(i);
            if (s.running()) {
                Processes.kill(s.pid, Processes.SIGTERM);
            } else if (s.respawnAt != 0) {
                giveUps.giveUp(i, now); // a respawn that never came: nobody will read its channel
            }
        }
    }

    /** A worker has started once its state word reads PARKED or a pass (what start() writes). */
    private void observeStarts(long now) {
        boolean allStarted = true;
        for (int i = 0; i < lines; i++) {
            Slot s = slots.at(i);
            if (s.awaitingStart()) {
                long state = page.getVolatile(PageLayout.stateWord(i));
                if (state == PageLayout.PARKED || PageLayout.inPass(state)) {
                    s.sawStart(now);
                    share.started(i);
                    System.err.printf("m0serve: worker %d (pid %d) started %.0f ms after its spawn%n",
                            i, s.pid, startup.started(i, now));
                } else {
                    allStarted = false;
                }
            }
        }
        if (allStarted && !announcedReady) {
            // "listening" is printed once the port is bound; a connection made before a worker has
            // started is served, but not shared with that worker (NS). Say when all are in.
            announcedReady = true;
            // The timing line first: whoever waits for the ready line on stdout then finds it.
            System.err.printf("m0serve: ready %d ms after launch%n", startup.ready());
            out.printf("m0serve: ready: %d worker(s) started%n", slots.running());
            StartTrace.mark("ready");
            out.flush();
            notify.ready(ProcessHandle.current().pid(), statusLine());
        }
    }

    /** SIGTTIN / SIGTTOU, one worker at a time, within the lines made at start. */
    private void scale() {
        int d = scaleRequests.getAndSet(0);
        for (; d > 0; d--) {
            int i = slots.freeIndex();
            if (slots.members() >= slots.maxWorkers() || i < 0) {
                System.err.println("m0serve: SIGTTIN: already at " + slots.members()
                        + " workers, the most this page has lines for");
                break;
            }
            slots.wantOneMore();
            spawner.startFresh(i, "SIGTTIN");
        }
        for (; d < 0; d++) {
            int victim = -1;
            for (int i = lines - 1; i >= 0 && victim < 0; i--) {
                Slot s = slots.at(i);
                if (s.member && s.running() && (step == null || (i != step.old && i != step.fresh))) {
                    victim = i;
                }
            }
            if (slots.members() <= 1 || victim < 0) {
                System.err.println("m0serve: SIGTTOU: keeping the last worker");
                break;
            }
            slots.wantOneFewer();
            slots.at(victim).askToLeave("SIGTTOU");
        }
    }

    /** SIGHUP: replace every worker, one at a time, each only once its replacement has started. */
    private void reload() {
        if (reloadRequested) {
            reloadRequested = false;
            if (step == null && reloadQueue.isEmpty()) {
                queueReload();
            } else {
                reloadAgain = true;
            }
        }
        for (;;) {
            if (step == null) {
                if (reloadQueue.isEmpty()) {
                    if (!reloadAgain) {
                        if (reloadNotified) {
                            reloadNotified = false;
                            notify.ready(ProcessHandle.current().pid(), statusLine());
                        }
                        return;
                    }
                    reloadAgain = false;
                    queueReload();
                    continue;
                }
                int old = reloadQueue.peekFirst();
                if (!slots.at(old).member || !slots.at(old).running()) {
                    reloadQueue.removeFirst(); // gone meanwhile (a scale-down, a give-up)
                    continue;
                }
                int fresh = slots.freeIndex();
                if (fresh < 0) {
                    return; // every line taken (a leaver not yet reaped): try again next time
                }
                reloadQueue.removeFirst();
                step = new ReloadStep(old, fresh);
                if (!spawner.startFresh(fresh, "reload of worker " + old)) {
                    step = null;
                }
                return;
            }
            Slot fresh = slots.at(step.fresh);
            if (!step.leaving) {
                if (!fresh.member) {
                    System.err.println("m0serve: reload: the replacement at index " + step.fresh
                            + " was given up; keeping worker " + step.old + " and stopping the reload");
                    step = null;
                    reloadQueue.clear();
                    return;
                }
                if (!fresh.started) {
                    return; // NS: the old one serves until the new one reads its channel
                }
                if (slots.at(step.old).running()) {
                    slots.at(step.old).askToLeave("reload");
                }
                step.leaving = true;
            }
            if (slots.at(step.old).running()) {
                return; // one at a time: the next replacement waits for this leaver's exit
            }
            step = null;
        }
    }

    private void queueReload() {
        for (int i = 0; i < lines; i++) {
            if (slots.at(i).member && slots.at(i).running()) {
                reloadQueue.addLast(i);
            }
        }
        System.err.println("m0serve: SIGHUP: reloading " + reloadQueue.size() + " worker(s), one at a time");
        counters.reloaded();
        if (!reloadNotified) {
            reloadNotified = true;
            notify.reloading("reloading " + reloadQueue.size() + " worker(s)");
        }
    }
}
