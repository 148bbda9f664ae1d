package m0.server.worker;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import m0.core.AcceptPolicy;
import m0.core.AcceptShare;
import m0.core.BusyEstimator;
import m0.core.Page;
import m0.core.PageLayout;
import m0.core.Rebalance;
import m0.server.http.App;
import m0.server.http.AppContext;
import m0.server.http.Apps;
import m0.server.http.HttpConfig;
import m0.server.http.HttpSession;
import m0.server.http.Scratch;
import m0.server.jnr.Acceptor;
import m0.server.jnr.Epoll;
import m0.server.jnr.EventFd;
import m0.server.jnr.Fds;
import m0.server.jnr.Memory;
import m0.server.jnr.Native;
import m0.server.jnr.NativeException;
import m0.server.jnr.Processes;
import m0.server.jnr.Sockets;
import m0.server.launch.ExitCodes;
import m0.server.launch.WorkerOperations;
import m0.server.launch.WorkerSpec;
import m0.server.log.RateLimitedLog;
import m0.server.log.StartTrace;
import m0.server.share.Accepted;
import m0.server.share.SharedPage;
import m0.server.share.Signals;
import m0.server.share.SocketChannels;
import m0.server.stats.WorkerCounters;

/**
 * A worker JVM: one epoll loop over the listener, its hand-off channel, its connections, the
 * wake-up its blocking pool and signal handlers share, and its supervisor's pidfd.
 *
 * <p>Every wake-up of epoll is one pass of the core: the events, stamped by {@code work()} at
 * the first that is real work (docs/adr/0015), then a rebalance look after work or on its
 * tick, and {@code passEnd(open)}. Every accept goes through {@code passOn} (false: admit it here), and
 * the channel is drained with {@code receive()} to null; accepted and received connections
 * enter through the same tail ({@link #admit}). SIGTERM (or the supervisor's death) runs
 * {@code leave()} and {@code leaveStep} until done, finishes what is in flight, hands its idle
 * connections to a live sibling (closes them when none is live) and exits 0.
 *
 * <p>The listener (docs/adr/0022): registered EPOLLEXCLUSIVE under share and race (one worker
 * woken per connection), plainly under fountain, whose loop asks the core's {@code takeListener}
 * whenever it looks at the listener, leaves it to an earlier worker when told to (out of the
 * epoll set) and looks again, with a zero-timeout poll, at the deadline the core gives. The loop
 * keeps its busy time (outside epoll_wait, from the timestamps it takes anyway) and hands it to
 * {@code sample} at every pass end, waking at least every 20 ms for it under fountain.
 * {@link ListenerInterest} owns whether the listener is in the epoll set, and why not.
 *
 * <p>Test hooks (environment): {@code M0_TEST_ARM_GAP_MS} holds the worker between bind and
 * start (only index {@code M0_TEST_ARM_GAP_INDEX} when set); {@code M0_TEST_DIE_AT_START_INDEX}
 * makes that index exit 1 right after start (a respawn storm); {@code M0_TEST_LOOK_LATE_MS}
 * makes fountain's looks that much later than the core's deadline (the negative control of the
 * takeover test); {@code M0_TEST_KEEP_RECEIVED_REGISTERED=1} closes a received connection
 * without leaving the epoll set first (with the channel's {@code M0_TEST_HOLD_SENT_COPY_MS}, the
 * negative control of the received-close test, ADR 0034). A/B knobs: {@code
 * M0_LISTEN_EXCLUSIVE=0} registers the listener without EPOLLEXCLUSIVE under share and race (the
 * herd, for the benchmark); {@code M0_EAGER_READ=1} reads a new connection at once instead of
 * when epoll reports it (ADR 0033).
 */
public final class Worker {

    /**
     * A new connection's first read is left to epoll, as nginx leaves it: read at once, a
     * connection-close load found nothing in 41 % of them (a read that is only an EAGAIN), and
     * the level-triggered set reports the request in the same wait as the rest of the batch
     * (ADR 0033). M0_EAGER_READ=1 reads at once again: the A/B knob.
     */
    private static final boolean EAGER_READ = "1".equals(System.getenv("M0_EAGER_READ"));
    /** M0_TEST_KEEP_RECEIVED_REGISTERED=1: close a received connection as a fresh one (test only). */
    private static final boolean KEEP_RECEIVED_REGISTERED = "1".equals(System.getenv("M0_TEST_KEEP_RECEIVED_REGISTERED"));

    private static final long TAG = 1L << 40;
    private static final long LISTENER = TAG | 1;
    private static final long CHANNEL = TAG | 2;
    private static final long WAKE = TAG | 3;
    private static final long PARENT = TAG | 4;

    private static final int MAX_EVENTS = 256;
    /** Accepts per listener wake-up: keeps one burst from starving the connections already open. */
    private static final int ACCEPT_BATCH = 64;
    private static final int IO_BYTES = 64 * 1024;
    /** Reads per readable event; level-triggered epoll brings us back for the rest. */
    private static final int READS_PER_EVENT = 4;
    private static final int WRITES_PER_FLUSH = 64;
    private static final long MIN_SWEEP_NANOS = 10_000_000L;
    private static final long STOP_POLL_NANOS = 5_000_000L;
    /** After EMFILE/ENFILE on accept, the listener stays out of our epoll set this long. */
    static final long ACCEPT_BACKOFF_NANOS = 100_000_000L;
    /**
     * Descriptors kept free below RLIMIT_NOFILE beside those held at start (JVM, page, channels,
     * epoll): for hand-offs received at the cap, the pool's work and a lingering close. Past
     * the reserve a hand-off arrives truncated and is counted as lost by the core.
     */
    static final int DESCRIPTOR_RESERVE = 64;
    /**
     * Lingering close after an error answer (nginx: lingering_time 30 s, lingering_timeout 5 s):
     * at most this long in all, this long without a byte, and this many bytes discarded. A
     * client writing a 10 MB body it has no answer for yet gets to read our 413.
     */
    static final long LINGER_NANOS = 10_000_000_000L;
    static final long LINGER_IDLE_NANOS = 2_000_000_000L;
    static final long LINGER_MAX_BYTES = 32L * 1024 * 1024;

    private final WorkerSpec spec;
    private final Page page;
    private final AcceptShare<Accepted> share;
    /** A leaver's hand-over of its idle connections to a live sibling (the core's forward). */
    private final Epoll epoll = new Epoll(MAX_EVENTS);
    private final EventFd wake = new EventFd();
    private final AtomicBoolean wakePending = new AtomicBoolean();
    private final ConcurrentLinkedQueue<Connection> completions = new ConcurrentLinkedQueue<>();
    private final Memory in = new Memory(IO_BYTES);
    private final Memory out = new Memory(IO_BYTES);
    private final ByteBuffer inView;
    /**
     * What this loop's sessions parse in and encode in while they hold bytes (docs/adr/0036): a
     * request read whole and a response written whole need no array of the connection's own.
     */
    private final Scratch inScratch = new Scratch(IO_BYTES);
    private final Scratch outScratch = new Scratch(IO_BYTES);
    private final Acceptor acceptor;
    /** The channels to every worker: hand-offs through the core, nudges (fountain) directly. */
    private final SocketChannels channels;
    private final HttpConfig http;
    private final App app;
    private final BlockingPool pool;
    /** A connection that fails in our code is closed; the failure is said once a second. */
    private final RateLimitedLog failures;

    private volatile boolean stopRequested;
    /** Metrics counters and the access log (docs/adr/0017); null when neither is on. */
    private RequestRecorder recorder;
    /** The supervisor's pidfd: readable when it dies, and then we leave. */
    private int parentFd = -1;
    private Connection[] byFd = new Connection[1024];
    private int maxFd = -1;
    private long open;
    private long nextSweep = Long.MAX_VALUE;
    private boolean stopping;
    private boolean draining;
    private long stopDeadline;

    /** The index's stats words as the predecessors left them: this worker adds to them. */
    private final long sentBase;
    private final long receivedBase;
    private final long forwardedBase;
    private long shownSent;
    private long shownReceived;
    private long shownForwarded;
    private long shownLost;

    /**
     * Fresh accepts stop at this many open connections, before the process runs out of
     * descriptors. Hand-offs are still received and admitted past it (the reserve is for them):
     * a sibling's pick only chooses us while we are the least loaded, and the core never drops
     * what it was sent.
     */
    private final long maxConnections;
    /** Whether the listener is in our epoll set, and why not (the cap, a back-off, fountain, leaving). */
    private final ListenerInterest listener;
    /** Fresh accepts (for the empty wake-up count). */
    private long accepted;
    private final RateLimitedLog acceptFailures;
    /** Fountain on a page of several workers: the loop samples its busy time and may leave the listener. */
    private final boolean fountain;
    /** The loop's time outside epoll_wait, cumulative (docs/adr/0022): fountain's busy share, and stats. */
    private long busyNanos;
    /** Fountain: the next pass end at which the core takes a sample (20 ms after its last). */
    private long nextSample;
    /** M0_TEST_LOOK_LATE_MS: each look that much after the core's deadline (test only; 0). */
    private final long lookLateNanos;

    /**
     * How often a worker holding idle connections looks whether one should move, when no
     * pass end did (a sibling that respawned or was added is lighter, and nothing wakes us).
     * 25 ms: a skew left by a crash starts draining within a tick, far inside the second a
     * client could notice; 40 wake-ups a second cost microseconds each. A pass end after work
     * looks anyway, so under load the tick never fires.
     */
    static final long REBALANCE_TICK_NANOS = 25_000_000L;
    /**
     * While sharing, the loop waits at most this long in epoll, so that an idle worker looks at
     * the page's heal requests (ADR 0024) at least once a second: one read of a page word.
     */
    static final long HEAL_LOOK_NANOS = 1_000_000_000L;
    /** Requests the warm-up asks before and after its hand-off to itself. */
    private static final int WARM_REQUESTS = 3;
    private static final byte[] WARM_REQUEST =
            "GET / HTTP/1.1\r\nHost: m0serve-warm-up\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    /** The warm-up's bound, whatever the app does: past it the worker starts as it is. */
    private static final long WARM_UP_NANOS = 5_000_000_000L;
    private static final int WARM_IO_MILLIS = 100;
    /** start() has run: the loop's passes are the protocol's. */
    private boolean started;
    /** --rebalance on and the policy shares: the loop looks at pass ends and on the tick. */
    private final boolean rebalancing;
    /** When the next look is due without work (System.nanoTime); MAX_VALUE: none. */
    private long nextRebalance = Long.MAX_VALUE;
    private int rebalanceCursor;
    /** This pass did work (see {@link #work()}): its end looks whether to rebalance. */
    private boolean worked;
    /** Rebalanced, accepted, empty wake-ups, looks, busy, wake-ups: the worker's memfd (published at pass ends). */
    private final WorkerCounters counters;

    Worker(WorkerSpec spec, App app) {
        this.spec = spec;
        this.app = app;
        this.page = SharedPage.adopt(spec.pageFd(), spec.lines()).page();
        int[] receiveFds = new int[spec.lines()];
        java.util.Arrays.fill(receiveFds, -1);
        receiveFds[spec.index()] = spec.receiveFd();
        this.channels = new SocketChannels(spec.sendFds(), receiveFds, "m0serve worker " + spec.index() + ": ");
        this.share = new AcceptShare<>(page, channels, System::nanoTime,
                AcceptPolicy.named(spec.acceptPolicy()), spec.lines(), spec.index(),
                AcceptShare.LEAVE_DRAIN_NANOS, spec.rebalance()
                        ? new Rebalance(AcceptShare.REBALANCE_DEAD_BAND, AcceptShare.REBALANCE_INTERVAL_NANOS)
                        : Rebalance.off());
        // Fountain moves nothing (the note's "established connections never move"): no tick.
        this.rebalancing = share.sharing() && spec.rebalance() && share.policy().movesConnections();
        this.fountain = share.sharing() && "fountain".equals(share.policy().name());
        this.counters = WorkerCounters.create();
        // One waiter per connection for share and race; fountain must not (docs/adr/0022).
        boolean exclusive = !"fountain".equals(share.policy().name()) && !"0".equals(System.getenv("M0_LISTEN_EXCLUSIVE"));
        this.listener = new ListenerInterest(epoll, spec.listenFd(), LISTENER, exclusive);
        String late = System.getenv("M0_TEST_LOOK_LATE_MS");
        this.lookLateNanos = late == null ? 0 : TimeUnit.MILLISECONDS.toNanos(Long.parseLong(late.trim()));
        this.sentBase = page.getVolatile(PageLayout.sentWord(spec.index()));
        this.receivedBase = page.getVolatile(PageLayout.receivedWord(spec.index()));
        this.forwardedBase = page.getVolatile(PageLayout.forwardedWord(spec.index()));
        this.acceptor = new Acceptor(spec.listenFd());
        this.acceptFailures = new RateLimitedLog(System.err, "m0serve worker " + spec.index() + ": ");
        this.maxConnections = spec.maxConnections() > 0 ? spec.maxConnections()
                : defaultMaxConnections(Fds.openFileLimit(), Fds.openCount(), spec.blockingThreads());
        this.inView = in.buffer().duplicate();
        this.failures = new RateLimitedLog(System.err, "m0serve worker " + spec.index() + ": ");
        this.http = new HttpConfig(spec.maxHeaderBytes(), spec.maxBodyBytes(),
                TimeUnit.MILLISECONDS.toNanos(spec.idleTimeoutMillis()),
                TimeUnit.MILLISECONDS.toNanos(spec.headerTimeoutMillis()),
                TimeUnit.MILLISECONDS.toNanos(spec.bodyTimeoutMillis()));
        this.pool = spec.blockingThreads() <= 0 ? null
                : new BlockingPool(spec.blockingThreads(), 4096, "m0-blocking-" + spec.index());
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
        WorkerSpec spec = WorkerSpec.parse(args);
        StartTrace.as("worker " + spec.index());
        StartTrace.mark("main");
        // Inherited through dup2, so not close-on-exec any more: restore it.
        Fds.setCloseOnExec(spec.listenFd());
        Fds.setCloseOnExec(spec.pageFd());
        Fds.setCloseOnExec(spec.receiveFd());
        for (int fd : spec.sendFds()) {
            Fds.setCloseOnExec(fd);
        }
        // Before the loop: at the descriptor limit a class read from a directory cannot be loaded.
        ExplodedClassPath.preload(java.util.List.of(Worker.class, m0.core.AcceptShare.class));
        StartTrace.mark("descriptors adopted");
        WorkerOperations ops = WorkerOperations.parse(args);
        App app;
        try {
            if (ops.appClasspath() != null) {
                // Apps.load and the pool threads (created by this thread) use the context loader.
                Thread.currentThread().setContextClassLoader(m0.server.http.AppClassPath.loader(ops.appClasspath()));
            }
            app = Apps.load(spec.app());
        } catch (RuntimeException | LinkageError e) {
            System.err.println("m0serve worker " + spec.index() + ": cannot load the app: " + e.getMessage());
            System.exit(ExitCodes.CONFIG);
            return;
        }
        StartTrace.mark("app loaded");
        Worker w = new Worker(spec, app);
        StartTrace.mark("page mapped, loop made");
        try {
            w.recorder = RequestRecorder.create(ops, spec.index(), w.failures);
        } catch (java.io.IOException | RuntimeException e) {
            System.err.println("m0serve worker " + spec.index() + ": cannot open the access log: " + e.getMessage());
            System.exit(ExitCodes.CONFIG);
            return;
        }
        int status;
        try {
            status = w.run();
        } catch (Throwable t) {
            System.err.println("m0serve worker " + spec.index() + " failed: " + t);
            t.printStackTrace();
            status = 1;
        }
        System.exit(status);
    }

    int run() {
        // First act: NOT_STARTED until the loop below reads the channel. Under race too: the
        // supervisor reads starts off the page (a reload waits for one; the budget counts it).
        share.bind();
        // Before the app's init, which may be slow: a SIGTERM from here on is a graceful stop.
        Signals.onSignal("TERM", this::requestStop);
        // The supervisor owns Ctrl-C: it turns INT into a TERM for each worker.
        Signals.onSignal("INT", () -> { });
        // HUP is the supervisor's (a reload); a hang-up sent to the whole group must not kill us.
        Signals.onSignal("HUP", () -> { });
        // USR1 is forwarded by the supervisor: reopen the access log (its default would kill us).
        Signals.onSignal("USR1", () -> {
            if (recorder != null) {
                recorder.requestReopen();
                wake.signal(); // a pass now, so the renamed file is let go of without waiting for traffic
            }
        });
        app.init(new AppContext(ProcessHandle.current().pid(), spec.index()));
        StartTrace.mark("app initialised");
        epoll.add(wake.fd(), Epoll.IN, WAKE); // before the warm-up: a pool app's answer wakes us
        warmUp();
        StartTrace.mark("warmed up");
        if (Native.getppid() != spec.supervisorPid()) {
            return 1; // the supervisor died before we could watch it
        }
        parentFd = Processes.pidfdOpen(spec.supervisorPid());
        listener.register();
        epoll.add(spec.receiveFd(), Epoll.IN, CHANNEL);
        epoll.add(parentFd, Epoll.IN, PARENT);
        holdBeforeStart();
        share.start();
        started = true;
        StartTrace.mark("PARKED");
        if (Integer.toString(spec.index()).equals(System.getenv("M0_TEST_DIE_AT_START_INDEX"))) {
            System.err.println("m0serve worker " + spec.index() + ": M0_TEST_DIE_AT_START_INDEX: exit 1");
            return 1;
        }
        long passEnd = System.nanoTime();
        nextSample = passEnd; // the first pass end gives the estimator its baseline
        for (;;) { // one pass per wake-up; ends only through the graceful stop below
            int n = epoll.awaitNanos(timeoutNanos(passEnd));
            // Busy means busy (docs/adr/0015): no stamp here. The pass is stamped by work(), at
            // its first real work; a wake-up that lost the accept race to a sibling stays PARKED.
            worked = false;
            long now = System.nanoTime();
            counters.count(WorkerCounters.WAKEUPS);
            for (int i = 0; i < n; i++) {
                dispatch(epoll.data(i), epoll.events(i), now);
            }
            if (stopRequested && !stopping) {
                beginStop(now);
            }
            if (now - nextSweep >= 0) {
                sweep(now);
            }
            if (stopping) {
                stepStop(now);
            }
            if (!listener.in() && !stopping) {
                listenerDue(now);
            }
            if (rebalancing && !stopping && (worked || now - nextRebalance >= 0)) {
                rebalance(now);
            }
            if (!stopping && share.healDue()) {
                // A reap asked every index to heal its counts (ADR 0024): the core does it at the
                // EAGAIN of a receive, so receive even though the channel did not wake us.
                drainChannel();
            }
            share.passEnd(open);
            publishStats();
            if (recorder != null) {
                recorder.endOfPass();
            }
            if (stopping && !draining && open == 0) {
                break;
            }
            // Busy time: this pass, from the wake-up's timestamp to this one, which the wait's
            // timeout uses (it read the clock itself before): nothing new on the request path.
            passEnd = System.nanoTime();
            busyNanos += passEnd - now;
            counters.set(WorkerCounters.BUSY_NANOS, busyNanos);
            long poolBusy = pool == null ? 0 : pool.busyNanos(passEnd); // a few loads: no lock
            counters.set(WorkerCounters.POOL_BUSY_NANOS, poolBusy);
            counters.publish();
            if (fountain) {
                // Full is the larger of the loop's share and the pool's (docs/adr/0029): /sleep
                // saturates the pool while the loop idles.
                share.sample(busyNanos, poolBusy, pool == null ? 0 : pool.size());
                if (passEnd - nextSample >= 0) {
                    // The core sampled (its clock read came after passEnd): the next one is due 20
                    // ms after a reading taken now, never before the core's own (ADR 0019).
                    nextSample = System.nanoTime() + BusyEstimator.SAMPLE_NANOS;
                }
            }
        }
        if (pool != null) {
            pool.shutdownNow();
        }
        if (recorder != null) {
            recorder.close();
        }
        return 0;
    }

    /**
     * The pass has real work: stamp its start on the page (once per pass; see
     * {@link AcceptShare#work()}), and look at rebalance at its end.
     */
    private void work() {
        worked = true;
        if (started) { // the warm-up's passes are no pass of the protocol: the index is NOT_STARTED
            share.work();
        }
    }

    /**
     * Warm before ready (docs/adr/0016): before {@code start()} writes PARKED, the paths a
     * first burst takes run once, so that no sibling's pick reads our first pass, run cold, as
     * "inside one pass for over 2 ms". A loopback connection of our own is accepted, admitted
     * and asked {@link #WARM_REQUESTS} requests through the session and the app; then it is
     * handed to ourselves over a datagram pair through the same channel code and hand-off as
     * rebalance (sendmsg and recvmsg with SCM_RIGHTS), admitted as a received hand-off and asked
     * again. Every libc function of the loop is bound on the way. Nothing here touches the page
     * or its counters (the index stays NOT_STARTED, {@link #work()} stamps nothing yet).
     * Best effort and bounded: a failure is one line and the worker starts as it would have.
     * {@code M0_WARM_UP=0} skips it (the A/B knob for the measurement).
     */
    private void warmUp() {
        if ("0".equals(System.getenv("M0_WARM_UP"))) {
            return;
        }
        int listener = -1;
        int[] pair = null;
        Connection c = null;
        // The warm-up's requests are no client's: out of the access log and the metrics.
        RequestRecorder recording = recorder;
        recorder = null;
        long begin = System.nanoTime();
        long deadline = begin + WARM_UP_NANOS;
        try (Socket client = new Socket()) {
            InetAddress loopback = InetAddress.getLoopbackAddress();
            listener = Sockets.listenTcp(loopback, 0, 1);
            client.setTcpNoDelay(true);
            client.connect(new InetSocketAddress(loopback, Sockets.localPort(listener)), WARM_IO_MILLIS);
            Acceptor warmAcceptor = new Acceptor(listener);
            int fd;
            while ((fd = warmAcceptor.accept()) < 0) {
                if (System.nanoTime() - deadline >= 0) {
                    throw new IllegalStateException("the warm-up connection was not accepted");
                }
                Thread.onSpinWait(); // the handshake completes in the kernel, microseconds away
            }
            warmAcceptor.pending(); // binds poll(2), fountain's look at a listener it left
            admit(fd, warmAcceptor.lastPeer(), false);
            c = byFd[fd];
            warmExchanges(c, client, deadline);
            pair = Sockets.datagramPair(SocketChannels.BUFFER_BYTES);
            SocketChannels toSelf = new SocketChannels(new int[] {pair[0]}, new int[] {pair[1]},
                    "m0serve worker " + spec.index() + " warm-up: ");
            if (!handOff(c, a -> toSelf.send(0, a))) {
                throw new IllegalStateException("the warm-up hand-off was refused");
            }
            Accepted back = toSelf.receive(0);
            if (back == null || back == Accepted.LOST) {
                throw new IllegalStateException("the warm-up hand-off did not arrive");
            }
            admit(back.fd(), back.peer(), true);
            c = byFd[back.fd()];
            warmExchanges(c, client, deadline);
            // One line per worker start, beside the supervisor's "started N ms after its spawn".
            System.err.printf("m0serve worker %d: warmed up in %.1f ms (%d requests, a hand-off to itself)%n",
                    spec.index(), (System.nanoTime() - begin) / 1e6, 2 * WARM_REQUESTS);
        } catch (IOException | RuntimeException e) {
            failures.log("warm-up skipped: " + e);
        } finally {
            if (c != null) {
                close(c);
            }
            recorder = recording;
            if (listener >= 0) {
                Fds.close(listener);
            }
            if (pair != null) {
                Fds.close(pair[0]);
                Fds.close(pair[1]);
            }
        }
    }

    /** {@link #WARM_REQUESTS} keep-alive requests on the warm-up connection, each answered in full. */
    private void warmExchanges(Connection c, Socket client, long deadline) throws IOException {
        byte[] buf = new byte[IO_BYTES];
        for (int k = 0; k < WARM_REQUESTS; k++) {
            client.getOutputStream().write(WARM_REQUEST);
            boolean answered = false;
            while (!answered) {
                if (c == null || c.closed || System.nanoTime() - deadline >= 0) {
                    throw new IllegalStateException("the warm-up request was not answered");
                }
                int n = epoll.awaitNanos(TimeUnit.MILLISECONDS.toNanos(WARM_IO_MILLIS));
                for (int i = 0; i < n; i++) {
                    dispatch(epoll.data(i), epoll.events(i), System.nanoTime());
                }
                // Idle with bytes at the client: the whole answer was written (loopback writes
                // land in the peer's buffer before write returns).
                answered = c.session.idle() && client.getInputStream().available() > 0;
            }
            while (client.getInputStream().available() > 0) {
                client.getInputStream().read(buf);
            }
        }
    }

    private void requestStop() {
        stopRequested = true;
        wake.signal();
    }

    /**
     * M0_TEST_ARM_GAP_MS: stay NOT_STARTED for that long, as a worker whose app is slow to
     * import would (the NS case: nothing may be handed to us meanwhile). Bounded; a SIGTERM
     * ends the hold early.
     */
    private void holdBeforeStart() {
        String gap = System.getenv("M0_TEST_ARM_GAP_MS");
        String only = System.getenv("M0_TEST_ARM_GAP_INDEX");
        if (gap == null || (only != null && !only.equals(Integer.toString(spec.index())))) {
            return;
        }
        long ms = Long.parseLong(gap.trim());
        System.err.println("m0serve worker " + spec.index() + ": M0_TEST_ARM_GAP_MS: holding " + ms + " ms before start");
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        while (!stopRequested && System.nanoTime() - until < 0) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * The stats words of this index (sent, received, forwarded): the predecessors' totals plus
     * ours, written only when one changed, so a pass without hand-offs costs three compares.
     */
    private void publishStats() {
        if (!share.sharing()) {
            return; // one worker, or the bare race: nothing to count
        }
        counters.set(WorkerCounters.REBALANCED, share.rebalancedCount());
        long sent = share.sentCount();
        long received = share.receivedCount();
        long forwarded = share.forwardedCount();
        long lost = share.lostCount();
        if (lost != shownLost) {
            page.getAndAdd(PageLayout.LOST_WORD, lost - shownLost); // one header word for every index
            shownLost = lost;
        }
        if (sent != shownSent) {
            shownSent = sent;
            page.setVolatile(PageLayout.sentWord(spec.index()), sentBase + sent);
        }
        if (received != shownReceived) {
            shownReceived = received;
            page.setVolatile(PageLayout.receivedWord(spec.index()), receivedBase + received);
        }
        if (forwarded != shownForwarded) {
            shownForwarded = forwarded;
            page.setVolatile(PageLayout.forwardedWord(spec.index()), forwardedBase + forwarded);
        }
    }

    /** How long the next wait may block, from {@code now}: until the loop's first timer; -1: none. */
    private long timeoutNanos(long now) {
        if (stopping) {
            return STOP_POLL_NANOS; // the leave drain and the grace deadline are polled
        }
        long next = Math.min(nextSweep, listener.wakeAt()); // a back-off's end, fountain's look
        if (rebalancing) {
            next = Math.min(next, nextRebalance);
        }
        if (fountain) {
            next = Math.min(next, nextSample); // a sample at least every 20 ms (ADR 0019)
        }
        if (next == Long.MAX_VALUE) {
            // Sharing: wake at least once a second, so that an idle worker heals its counts
            // within a second of a reap (what a death cut short makes pick read it busier).
            return share.sharing() ? HEAL_LOOK_NANOS : -1;
        }
        long wait = Math.max(0, next - now);
        return share.sharing() ? Math.min(wait, HEAL_LOOK_NANOS) : wait;
    }

    private void dispatch(long data, int events, long now) {
        if (data < TAG) {
            Connection c = (int) data <= maxFd ? byFd[(int) data] : null;
            if (c == null || c.closed) {
                return;
            }
            work(); // bytes to parse, output to write, an EOF: the app's code may run inline
            try {
                if ((events & (Epoll.IN | Epoll.HUP | Epoll.ERR)) != 0) {
                    onReadable(c, now, events);
                } else if ((events & Epoll.OUT) != 0) {
                    flush(c, now);
                }
            } catch (RuntimeException e) {
                fail(c, e); // one connection's failure is that connection's, never the worker's
            }
            return;
        }
        if (data == LISTENER) {
            long before = accepted;
            listen(true);
            if (accepted == before) {
                counters.count(WorkerCounters.EMPTY_WAKEUPS); // woken for nothing: the herd's cost
            }
        } else if (data == CHANNEL) {
            drainChannel();
        } else if (data == WAKE) {
            onWake(now);
        } else if (data == PARENT) {
            stopRequested = true; // the supervisor is gone: leave as on SIGTERM
            epoll.delete(parentFd);
        }
    }

    /**
     * The loop looked at the listener: epoll found it {@code readable}, or fountain's look
     * polled it. The core's takeListener decides (always yes under share and race: one check);
     * no: leave it to the earlier worker until the core's deadline; yes: listen, and accept a
     * batch when there is something to accept.
     */
    private void listen(boolean readable) {
        if (!share.takeListener(readable)) {
            listener.leaveToHead(share.listenDeadline() + lookLateNanos);
            return;
        }
        listener.take();
        if (readable) {
            acceptBatch();
        }
    }

    /**
     * Once per pass while the listener is out of the epoll set: back in when below the cap and
     * the back-off is over; fountain's look when its deadline has come (a zero-timeout poll: a
     * connection the head leaves waiting is taken at the second look, docs/adr/0019).
     */
    private void listenerDue(long now) {
        listener.resume(now, open, maxConnections);
        if (listener.lookDue(now)) {
            counters.count(WorkerCounters.LOOKS);
            listen(acceptor.pending());
        }
    }

    private void acceptBatch() {
        for (int k = 0; k < ACCEPT_BATCH && !stopping; k++) {
            if (open >= maxConnections) {
                // At the cap: stop accepting before the descriptors run out (nginx's "worker
                // connections are not enough", said once a second at most).
                if (!listener.outFor(ListenerInterest.CAP)) {
                    acceptFailures.log("at --max-connections " + maxConnections
                            + ": not accepting until a connection closes");
                }
                listener.atCap();
                return;
            }
            int fd;
            try {
                fd = acceptor.accept();
            } catch (NativeException e) {
                if (e.errno() == Native.EMFILE || e.errno() == Native.ENFILE) {
                    // Out of descriptors is a state, not a loop: the listener stays readable, so
                    // a level-triggered epoll would wake us for it at once, forever. Take it out
                    // for a back-off and serve what we hold meanwhile.
                    listener.backOff(System.nanoTime() + ACCEPT_BACKOFF_NANOS);
                    acceptFailures.log(e.getMessage() + "; not accepting for "
                            + ACCEPT_BACKOFF_NANOS / 1_000_000 + " ms (" + open + " open)");
                } else {
                    acceptFailures.log(e.getMessage()); // ECONNABORTED and the like: per connection
                }
                return;
            }
            if (fd < 0) {
                return; // EAGAIN: a sibling won the race; an empty wake-up is not work
            }
            accepted++;
            counters.count(WorkerCounters.ACCEPTED);
            work();
            // One worker, or the bare race: no allocation, no page access (sharing() is false).
            if (!share.sharing()) {
                admit(fd, recorder == null ? null : acceptor.lastPeer(), false); // the peer: for the access log
                continue;
            }
            Accepted a = new Accepted(fd, acceptor.lastPeer());
            boolean passed;
            try {
                passed = share.passOn(a, open);
            } catch (RuntimeException e) {
                // The core took its raise back before this left sendWith: the connection is ours.
                acceptFailures.log("passing a connection on: " + e + "; serving it here");
                passed = false;
            }
            if (passed) {
                continue; // a sibling's channel holds it now; our copy is closed
            }
            admit(fd, a.peer(), false);
            int next = share.endBatch();
            if (next != AcceptPolicy.GO_ON) {
                if (next >= 0) {
                    channels.nudge(next); // fountain: we are full; it left the listener to us
                }
                return;
            }
        }
    }

    private void drainChannel() {
        Accepted c;
        try {
            while ((c = share.receive()) != null) {
                work();
                admit(c.fd(), c.peer(), true);
            }
            if (channels.takeNudge()) {
                listener.lookNow(System.nanoTime()); // fountain: an earlier worker turned full
            }
        } catch (RuntimeException e) {
            // recvmsg failed (ENOMEM...) before anything was taken: the counts are as they were,
            // the channel stays readable and the next pass tries again.
            acceptFailures.log("receiving a hand-off: " + e + "; retrying");
        }
    }

    /**
     * The accept path's tail, shared by fresh accepts and hand-offs: non-blocking and
     * registered; epoll reports its request (no eager read, see EAGER_READ). Nagle goes
     * off before a fresh connection's second write ({@link Connection#writes}); a received one
     * may have been written to by its sender, so it goes off now.
     */
    private void admit(int fd, byte[] peer, boolean received) {
        long now = System.nanoTime();
        try {
            if (received) {
                Fds.setNonBlocking(fd); // the sender's accept4 made it so; cheap to be sure
                Sockets.setNoDelay(fd);
            }
            epoll.add(fd, Epoll.IN, fd);
        } catch (NativeException e) {
            Fds.close(fd); // reset before we could serve it
            return;
        }
        Connection c = new Connection(fd, peer);
        if (received) {
            c.writes = Connection.NO_DELAY;
            c.received = true;
        }
        c.session = new HttpSession(http, app, pool, () -> completed(c), now,
                recorder == null ? null : recorder.observer(peer), inScratch, outScratch);
        if (fd >= byFd.length) {
            byFd = java.util.Arrays.copyOf(byFd, Math.max(fd + 1, byFd.length * 2));
        }
        byFd[fd] = c;
        maxFd = Math.max(maxFd, fd);
        c.interest = Epoll.IN;
        open++;
        if (EAGER_READ) {
            onReadable(c, now, Epoll.IN);
        }
    }

    /** From a pool thread: a response is ready. One eventfd write per batch of completions. */
    private void completed(Connection c) {
        completions.add(c);
        if (wakePending.compareAndSet(false, true)) {
            wake.signal();
        }
    }

    private void onWake(long now) {
        wake.drain();
        wakePending.set(false);
        Connection c;
        while ((c = completions.poll()) != null) {
            if (!c.closed) {
                work();
                try {
                    c.session.pollCompletions(now);
                    flush(c, now);
                } catch (RuntimeException e) {
                    fail(c, e);
                }
            }
        }
    }

    private void onReadable(Connection c, long now, int events) {
        if (c.lingering || !c.session.wantsInput()) {
            notReading(c, now, events); // kept out of line: this method is the hot path
            return;
        }
        try {
            for (int k = 0; k < READS_PER_EVENT && c.session.wantsInput(); k++) {
                int n = Fds.read(c.fd, in.address(), IO_BYTES);
                if (n < 0) {
                    break;
                }
                if (n == 0) {
                    try {
                        c.session.onEof(now);
                    } catch (RuntimeException e) {
                        fail(c, e);
                        return;
                    }
                    break;
                }
                if (recorder != null) {
                    recorder.bytesIn(n);
                }
                inView.limit(n).position(0);
                try {
                    c.session.onBytes(inView, now);
                } catch (RuntimeException e) {
                    fail(c, e); // one broken session (a full pool, an app bug) must not stop the worker
                    return;
                }
                if (n < IO_BYTES) {
                    break;
                }
            }
        } catch (NativeException e) {
            close(c); // reset by the peer
            return;
        }
        flush(c, now);
    }

    /** Readiness on a connection we are not reading: lingering, or EPOLLIN off a moment ago. */
    private void notReading(Connection c, long now, int events) {
        if (c.lingering) {
            discard(c, now);
        } else if ((events & (Epoll.ERR | Epoll.HUP)) != 0) {
            close(c); // only an error or hang-up is reported with EPOLLIN off
        } else {
            flush(c, now);
        }
    }

    /**
     * Writes what the session has, in order. EPOLLOUT stays registered while output is left:
     * after a short write (the socket is full) and after this pass's share of writes (the
     * socket is still writable, so the next pass comes back at once, after the other ready
     * connections had their turn).
     */
    private void flush(Connection c, long now) {
        try {
            for (int k = 0; k < WRITES_PER_FLUSH; k++) {
                ByteBuffer o = c.session.output();
                if (o == null || !o.hasRemaining()) {
                    break;
                }
                int len = Math.min(o.remaining(), IO_BYTES);
                out.buffer().put(0, o, o.position(), len);
                if (c.writes < Connection.NO_DELAY && ++c.writes == Connection.NO_DELAY) {
                    Sockets.setNoDelay(c.fd); // the second write: the first may still be unacknowledged
                }
                int n = Fds.write(c.fd, out.address(), len);
                if (n < 0) {
                    watch(c);
                    return;
                }
                if (recorder != null) {
                    recorder.bytesOut(n);
                }
                c.session.written(n, now);
                if (n < len) {
                    watch(c);
                    return;
                }
            }
        } catch (NativeException e) {
            close(c);
            return;
        }
        if (c.session.output() != null) {
            watch(c); // this pass's share is spent; more next pass
            return;
        }
        if (c.session.closeAfterFlush()) {
            if (c.session.lingerOnClose()) {
                linger(c, now);
            } else {
                close(c);
            }
            return;
        }
        watch(c);
        if (stopping && c.session.idle()) {
            handOverOrClose(c);
            return;
        }
        long d = c.session.deadline();
        if (d - nextSweep < 0) {
            nextSweep = d;
        }
    }

    /**
     * EPOLLOUT while output waits; EPOLLIN only while the session will take input: a client that
     * sends without reading is not read either, so it fills its own buffers, not our heap.
     */
    private void watch(Connection c) {
        int want = (c.session.wantsInput() ? Epoll.IN : 0) | (c.session.output() != null ? Epoll.OUT : 0);
        if (c.interest != want) {
            c.interest = want;
            epoll.modify(c.fd, want, c.fd);
        }
    }

    /**
     * After an error answer is flushed: FIN, then read and drop what the client still sends, so
     * its unread request bytes do not turn our close into a reset that destroys the answer.
     */
    private void linger(Connection c, long now) {
        try {
            Sockets.shutdownWrite(c.fd);
        } catch (NativeException e) {
            close(c); // already reset
            return;
        }
        c.lingering = true;
        c.lingerEnd = now + LINGER_NANOS;
        c.lingerIdleEnd = now + LINGER_IDLE_NANOS;
        if (c.interest != Epoll.IN) {
            c.interest = Epoll.IN;
            epoll.modify(c.fd, Epoll.IN, c.fd);
        }
        if (c.lingerIdleEnd - nextSweep < 0) {
            nextSweep = c.lingerIdleEnd;
        }
        discard(c, now);
    }

    private void discard(Connection c, long now) {
        try {
            for (int k = 0; k < READS_PER_EVENT; k++) {
                int n = Fds.read(c.fd, in.address(), IO_BYTES);
                if (n < 0) {
                    return;
                }
                c.lingerBytes += n;
                if (n == 0 || c.lingerBytes > LINGER_MAX_BYTES) {
                    close(c);
                    return;
                }
                c.lingerIdleEnd = now + LINGER_IDLE_NANOS;
            }
        } catch (NativeException e) {
            close(c);
        }
    }

    private void close(Connection c) {
        if (c.closed) {
            return;
        }
        c.closed = true;
        byFd[c.fd] = null;
        open--;
        c.session.closed();
        if (c.received && !KEEP_RECEIVED_REGISTERED) {
            // Its sender closes its copy just after the sendmsg, and may be preempted between
            // the two: while it holds that copy the socket outlives our close, and so does our
            // registration, which then reports the client's FIN under a number we no longer
            // know, level-triggered, at every wait, and can no longer be deleted (docs/adr/0034).
            epoll.deleteQuietly(c.fd);
        }
        Fds.close(c.fd); // a fresh accept: no other process holds it, the close unregisters it
    }

    private void fail(Connection c, RuntimeException e) {
        StackTraceElement[] at = e.getStackTrace();
        failures.log("closing a connection: " + e + (at.length > 0 ? " at " + at[0] : ""));
        close(c);
    }

    /** Timeouts: idle keep-alive connections closed, slow heads answered 408. */
    private void sweep(long now) {
        long next = Long.MAX_VALUE;
        for (int fd = 0; fd <= maxFd; fd++) {
            Connection c = byFd[fd];
            if (c == null) {
                continue;
            }
            if (c.lingering && now - lingerDeadline(c) >= 0) {
                close(c);
                continue;
            }
            if (!c.lingering && now - c.session.deadline() >= 0) {
                try {
                    c.session.onTimeout(now);
                } catch (RuntimeException e) {
                    fail(c, e);
                    continue;
                }
                flush(c, now);
                if (c.closed) {
                    continue;
                }
            }
            long d = c.lingering ? lingerDeadline(c) : c.session.deadline();
            if (d - now <= 0) {
                d = now + MIN_SWEEP_NANOS; // a deadline that did not move must not spin the loop
            }
            if (d - next < 0) {
                next = d;
            }
        }
        nextSweep = next;
    }

    private static long lingerDeadline(Connection c) {
        return c.lingerEnd - c.lingerIdleEnd < 0 ? c.lingerEnd : c.lingerIdleEnd;
    }

    private void beginStop(long now) {
        stopping = true;
        stopDeadline = now + TimeUnit.MILLISECONDS.toNanos(spec.graceMillis());
        share.leave(); // LEFT first: no sibling hands us anything from here on
        listener.close(); // out of the epoll set for good, before the descriptor goes
        Fds.close(spec.listenFd()); // the supervisor and the siblings keep the listener open
        draining = true;
        for (int fd = 0; fd <= maxFd; fd++) {
            Connection c = byFd[fd];
            if (c != null && c.session.idle()) {
                handOverOrClose(c);
            }
        }
    }

    /**
     * An idle connection of a leaver goes to a live sibling through the core's handOver (see
     * there why); closed when no sibling is live or starting (the whole server is stopping).
     */
    private void handOverOrClose(Connection c) {
        if (share.sharing() && !c.session.closeAfterFlush() && c.peer != null) {
            if (handOff(c, share::handOver)) {
                return;
            }
            if (share.awaitingStart()) {
                // No sibling live, one starting (a respawn): keep serving it (handOff put it
                // back in our epoll set) and try again at the next step, rather than close it
                // under a client about to reuse it.
                return;
            }
        }
        close(c);
    }

    /**
     * The hand-off of one of our idle connections, shared by a leaver's hand-over, rebalance
     * and the warm-up: out of our epoll set, then {@code send}; on true the channel holds it
     * and closed our copy, and we forget it. On false it is still ours and registered again
     * (a leaver closes it then).
     */
    private boolean handOff(Connection c, Predicate<Accepted> send) {
        // The queued message keeps the socket open after our close, and with it our epoll
        // registration: remove it first, or a reused descriptor number could inherit it.
        epoll.delete(c.fd);
        if (send.test(new Accepted(c.fd, c.peer))) {
            c.closed = true; // the channel closed our copy
            byFd[c.fd] = null;
            open--;
            return true;
        }
        epoll.add(c.fd, c.interest, c.fd);
        return false;
    }

    /**
     * Rebalance (core's {@link m0.core.Rebalance}): while the core's look names a lighter
     * sibling, hand it one idle connection. The core's rate allows one move per interval, so
     * this moves at most one now and schedules the next look; with nothing to move, the next
     * look is a tick away while we hold enough connections that one could ever move.
     */
    private void rebalance(long now) {
        boolean moved = false;
        for (;;) {
            int target = share.rebalancePick(open);
            if (target == share.self()) {
                break;
            }
            Connection c = idleConnection();
            if (c == null) {
                break; // nothing idle now: the next look retries
            }
            work(); // a move is work, stamped before it like any
            if (!handOff(c, a -> share.rebalance(target, a))) {
                break; // a full channel: we keep serving it, and the next look retries
            }
            moved = true;
        }
        if (moved) {
            nextRebalance = now + AcceptShare.REBALANCE_INTERVAL_NANOS;
        } else if (open > AcceptShare.REBALANCE_DEAD_BAND) {
            nextRebalance = now + REBALANCE_TICK_NANOS;
        } else {
            nextRebalance = Long.MAX_VALUE; // one connection never moves: no tick
        }
    }

    /**
     * A connection that can move now: between requests, nothing buffered in userspace, no
     * response owed or being written, not mid-body, no app call on the pool, not closing. All
     * its state is in the kernel then; a request the client sends meanwhile waits in the
     * socket for the target. Scanned from a cursor, so moves take connections in turn.
     */
    private Connection idleConnection() {
        for (int k = 0; k <= maxFd; k++) {
            int fd = rebalanceCursor = rebalanceCursor >= maxFd ? 0 : rebalanceCursor + 1;
            Connection c = byFd[fd];
            if (c != null && movable(c)) {
                return c;
            }
        }
        return null;
    }

    private static boolean movable(Connection c) {
        return !c.closed && !c.lingering && c.peer != null && c.session.idle()
                && !c.session.closeAfterFlush() && c.session.wantsInput();
    }

    private void stepStop(long now) {
        if (draining) {
            // Whatever a leaver receives goes to a live sibling; only what none takes is ours.
            draining = share.leaveStep(c -> admit(c.fd(), c.peer(), true));
            if (!draining) {
                epoll.delete(spec.receiveFd());
            }
        }
        for (int fd = 0; fd <= maxFd; fd++) {
            Connection c = byFd[fd];
            if (c != null && c.session.idle() && c.session.output() == null) {
                handOverOrClose(c);
            }
        }
        if (now - stopDeadline >= 0) {
            for (int fd = 0; fd <= maxFd; fd++) {
                Connection c = byFd[fd];
                if (c != null) {
                    close(c); // the grace period is over
                }
            }
            draining = false;
        }
    }
}
