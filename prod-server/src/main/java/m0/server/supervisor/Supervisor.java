package m0.server.supervisor;

import java.io.PrintStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import m0.core.AcceptPolicy;
import m0.core.GiveUp;
import m0.core.SupervisorShare;
import m0.server.jnr.Epoll;
import m0.server.jnr.EventFd;
import m0.server.jnr.Fds;
import m0.server.jnr.Native;
import m0.server.jnr.NativeException;
import m0.server.jnr.Processes;
import m0.server.jnr.Processes.WaitStatus;
import m0.server.jnr.Sockets;
import m0.server.jnr.Spawn;
import m0.server.share.Accepted;
import m0.server.share.SharedPage;
import m0.server.share.Signals;
import m0.server.share.SocketChannels;
import m0.server.worker.Worker;
import m0.server.worker.WorkerSpec;

/**
 * The supervisor JVM: binds the listener, creates the shared page and one datagram socketpair
 * per worker, spawns the worker JVMs with exactly those descriptors (posix_spawnp), and
 * watches them with pidfds in its own epoll set.
 *
 * <p>On every reap it calls {@link SupervisorShare#markReaped} before deciding anything (RP);
 * it respawns into the same index within a budget, or gives the index up and drains its
 * channel (RB). SIGTERM or SIGINT: SIGTERM to every worker, wait for all, exit 0.
 */
public final class Supervisor {

    /** A worker that dies within this long of its start counts toward the fast-death budget. */
    private static final long FAST_DEATH_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final int MAX_FAST_DEATHS = 5;
    private static final long DEATH_WINDOW_NANOS = TimeUnit.HOURS.toNanos(1);
    private static final int BACKLOG = 4096;
    private static final long WAKE = -1L;

    private final ServerConfig config;
    private final PrintStream out;
    private final int workers;
    private final Slot[] slots;
    private final Deque<Long> deaths = new ArrayDeque<>();
    private final List<GiveUp<Accepted>> giveUps = new ArrayList<>();
    private final EventFd wake = new EventFd();
    private final Epoll epoll = new Epoll(64);

    private volatile boolean stopRequested;
    private boolean stopping;
    private long killDeadline;
    private int listener = -1;
    private SharedPage page;
    private int[] sendFds;
    private int[] receiveFds;
    private SupervisorShare<Accepted> share;
    private int port;

    /** One worker index: its current process, if any, and its death record. */
    private static final class Slot {
        int pid = -1;
        int pidfd = -1;
        long startedAt;
        int fastDeaths;
        boolean gaveUp;
    }

    public Supervisor(ServerConfig config, PrintStream out) {
        this.config = config;
        this.out = out;
        this.workers = config.workers();
        this.slots = new Slot[workers];
        for (int i = 0; i < workers; i++) {
            slots[i] = new Slot();
        }
    }

    /** Serves until SIGTERM/SIGINT; returns the process's exit status. */
    public int run() {
        String where = Sockets.hostPort(config.host(), config.port());
        try {
            listener = Sockets.listenTcp(config.host(), config.port(), BACKLOG);
        } catch (NativeException e) {
            String why = e.errno() == Native.EADDRINUSE
                    ? "port " + config.port() + " is already in use (another server on " + where + "?)"
                    : e.getMessage();
            System.err.println("m0serve: cannot bind " + where + ": " + why);
            return 1;
        }
        port = Sockets.localPort(listener);
        page = SharedPage.create(workers);
        sendFds = new int[workers];
        receiveFds = new int[workers];
        for (int i = 0; i < workers; i++) {
            int[] pair = Sockets.datagramPair(SocketChannels.BUFFER_BYTES);
            sendFds[i] = pair[0];
            receiveFds[i] = pair[1];
        }
        boolean sharing = AcceptPolicy.named(config.acceptPolicy()).shares();
        share = new SupervisorShare<>(page.page(), new SocketChannels(sendFds, receiveFds), System::nanoTime,
                workers, sharing);
        epoll.add(wake.fd(), Epoll.IN, WAKE);
        Signals.onSignal("TERM", () -> requestStop());
        Signals.onSignal("INT", () -> requestStop());
        for (int i = 0; i < workers; i++) {
            spawn(i);
        }
        out.printf("m0serve: listening on http://%s/ (workers %d, accept policy %s, pid %d)%n",
                Sockets.hostPort(config.host(), port), workers, config.acceptPolicy(), ProcessHandle.current().pid());
        out.flush();
        return loop();
    }

    private void requestStop() {
        stopRequested = true;
        wake.signal();
    }

    private int loop() {
        for (;;) {
            int n = epoll.await(giveUps.isEmpty() && !stopping ? 1000 : 10);
            for (int i = 0; i < n; i++) {
                long data = epoll.data(i);
                if (data == WAKE) {
                    wake.drain();
                } else {
                    reap((int) data);
                }
            }
            giveUps.removeIf(g -> !g.step(c -> Fds.close(c.fd())));
            long now = System.nanoTime();
            if (stopRequested && !stopping) {
                stopping = true;
                killDeadline = now + TimeUnit.MILLISECONDS.toNanos(config.graceMillis() + 5_000);
                for (Slot s : slots) {
                    if (s.pid > 0) {
                        Processes.kill(s.pid, Processes.SIGTERM);
                    }
                }
            }
            if (stopping && now - killDeadline >= 0) {
                for (Slot s : slots) {
                    if (s.pid > 0) {
                        System.err.println("m0serve: worker pid " + s.pid + " outlived the grace period: SIGKILL");
                        Processes.kill(s.pid, Processes.SIGKILL);
                    }
                }
                killDeadline = now + TimeUnit.SECONDS.toNanos(5);
            }
            if (live() == 0 && giveUps.isEmpty()) {
                if (stopping) {
                    return 0;
                }
                System.err.println("m0serve: every worker index was given up; stopping");
                return 1;
            }
        }
    }

    private int live() {
        int live = 0;
        for (Slot s : slots) {
            if (s.pid > 0) {
                live++;
            }
        }
        return live;
    }

    /** The pidfd of worker {@code index} is readable: collect its status and decide. */
    private void reap(int index) {
        Slot s = slots[index];
        if (s.pid <= 0) {
            return;
        }
        WaitStatus st = Processes.poll(s.pid);
        if (st == null || !st.dead()) {
            return; // a stop or continue; the pidfd fires again when it really exits
        }
        epoll.delete(s.pidfd);
        Fds.close(s.pidfd);
        int pid = s.pid;
        s.pid = -1;
        s.pidfd = -1;
        // RP: mark the index LEFT before anything decides whether to replace it.
        share.markReaped(index);
        long now = System.nanoTime();
        boolean fast = now - s.startedAt < FAST_DEATH_NANOS;
        s.fastDeaths = fast ? s.fastDeaths + 1 : 0;
        deaths.addLast(now);
        while (!deaths.isEmpty() && now - deaths.peekFirst() > DEATH_WINDOW_NANOS) {
            deaths.removeFirst();
        }
        String why = null;
        if (stopping) {
            why = "stopping";
        } else if (st.exited() && (st.exitCode() == 0 || st.exitCode() == Worker.EXIT_CONFIG)) {
            why = "it exited " + st.exitCode();
        } else if (s.fastDeaths >= MAX_FAST_DEATHS) {
            why = MAX_FAST_DEATHS + " deaths within a second of start";
        } else if (deaths.size() > 10 * workers) {
            why = (10 * workers) + " deaths within an hour";
        }
        if (why == null) {
            System.err.println("m0serve: worker " + index + " (pid " + pid + ") " + st + "; respawning");
            try {
                spawn(index);
                return;
            } catch (NativeException e) {
                why = e.getMessage();
            }
        }
        if (!stopping) {
            System.err.println("m0serve: worker " + index + " (pid " + pid + ") " + st + "; not replaced: " + why);
        }
        s.gaveUp = true;
        // RB: what was queued to the dead worker goes to a live one (or is closed) within 250 ms.
        giveUps.add(share.giveUp(index));
    }

    private void spawn(int index) {
        WorkerSpec spec = new WorkerSpec(index, workers, (int) ProcessHandle.current().pid(),
                WorkerSpec.LISTEN_FD, WorkerSpec.PAGE_FD, WorkerSpec.RECEIVE_FD, sendFdNumbers(),
                config.app(), config.blockingThreads(), config.acceptPolicy(), config.maxHeaderBytes(),
                config.idleTimeoutMillis(), config.headerTimeoutMillis(), config.graceMillis());
        int[] inherit = new int[WorkerSpec.descriptorCount(workers)];
        inherit[0] = listener;
        inherit[1] = page.fd();
        inherit[2] = receiveFds[index];
        System.arraycopy(sendFds, 0, inherit, 3, workers);
        List<String> argv = new ArrayList<>(JavaCommand.workerPrefix());
        argv.add(Worker.class.getName());
        argv.addAll(spec.toArgs());
        List<String> env = new ArrayList<>();
        for (Map.Entry<String, String> e : System.getenv().entrySet()) {
            env.add(e.getKey() + "=" + e.getValue());
        }
        Slot s = slots[index];
        s.pid = Spawn.spawn(argv, env, inherit);
        s.pidfd = Processes.pidfdOpen(s.pid);
        s.startedAt = System.nanoTime();
        s.gaveUp = false;
        epoll.add(s.pidfd, Epoll.IN, index);
    }

    private int[] sendFdNumbers() {
        int[] fds = new int[workers];
        for (int i = 0; i < workers; i++) {
            fds[i] = WorkerSpec.FIRST_SEND_FD + i;
        }
        return fds;
    }
}
