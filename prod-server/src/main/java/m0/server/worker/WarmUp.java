package m0.server.worker;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import m0.server.jnr.Acceptor;
import m0.server.jnr.Epoll;
import m0.server.jnr.Fds;
import m0.server.jnr.NativePaths;
import m0.server.jnr.Sockets;
import m0.server.log.RateLimitedLog;
import m0.server.share.Accepted;
import m0.server.share.SocketChannels;

/**
 * Warm before ready (docs/adr/0016, 0045): before the worker's start writes PARKED, the paths a
 * first burst takes run until the JIT has compiled them, so that no sibling's pick reads our
 * first passes, run interpreted, as "inside one pass for over 2 ms". A loopback connection of
 * our own is accepted, admitted and asked {@link #REQUESTS} requests through the session and
 * the app; then it is handed to ourselves over a datagram pair through the same channel code
 * and hand-off as rebalance (sendmsg and recvmsg with SCM_RIGHTS), admitted as a received
 * hand-off and asked as many again. Every libc function of the loop is bound on the way. Last,
 * it waits (bounded) for the compiler to go quiet, so the compiles the requests queued run now
 * and not on the same two cores as the first burst. Nothing here touches the page: the index
 * stays NOT_STARTED. Best effort and bounded: a failure is one line and the worker starts as it
 * would have.
 */
final class WarmUp {

    /**
     * Requests asked before and after the hand-off to itself: enough that the request path's
     * methods pass C1's invocation threshold (Tier3InvocationThreshold, 200) before ready. Three,
     * as ADR 0016 had it, left every first-burst pass interpreted (ADR 0045).
     */
    private static final int REQUESTS = 200;
    private static final byte[] REQUEST =
            "GET / HTTP/1.1\r\nHost: m0serve-warm-up\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    /** The warm-up's bound, whatever the app does: past it the worker starts as it is. */
    private static final long BOUND_NANOS = 5_000_000_000L;
    private static final int IO_MILLIS = 100;
    /** The bound on the wait for the compiler to go quiet. */
    private static final long QUIET_BOUND_NANOS = 500_000_000L;

    private final Epoll epoll;
    private final ConnectionIo io;
    private final RateLimitedLog failures;
    private final String name;

    WarmUp(Epoll epoll, ConnectionIo io, RateLimitedLog failures, String name) {
        this.epoll = epoll;
        this.io = io;
        this.failures = failures;
        this.name = name;
    }

    void run() {
        int listener = -1;
        int[] pair = null;
        Connection c = null;
        long begin = System.nanoTime();
        long deadline = begin + BOUND_NANOS;
        try (Socket client = new Socket()) {
            InetAddress loopback = InetAddress.getLoopbackAddress();
            listener = Sockets.listenTcp(loopback, 0, 1);
            client.setTcpNoDelay(true);
            client.connect(new InetSocketAddress(loopback, Sockets.localPort(listener)), IO_MILLIS);
            Acceptor acceptor = new Acceptor(listener);
            int fd;
            while ((fd = acceptor.accept()) < 0) {
                if (System.nanoTime() - deadline >= 0) {
                    throw new IllegalStateException("the warm-up connection was not accepted");
                }
                Thread.onSpinWait(); // the handshake completes in the kernel, microseconds away
            }
            acceptor.pending(); // binds poll(2), fountain's look at a listener it left
            c = io.admit(fd, acceptor.lastPeer(), false, System.nanoTime());
            exchanges(c, client, deadline);
            pair = Sockets.datagramPair(SocketChannels.BUFFER_BYTES);
            SocketChannels toSelf = new SocketChannels(new int[] {pair[0]}, new int[] {pair[1]}, name + " warm-up: ");
            if (!io.handOff(c, a -> toSelf.send(0, a))) {
                throw new IllegalStateException("the warm-up hand-off was refused");
            }
            Accepted back = toSelf.receive(0);
            if (back == null || back == Accepted.LOST) {
                throw new IllegalStateException("the warm-up hand-off did not arrive");
            }
            c = io.admit(back.fd(), back.peer(), true, System.nanoTime());
            exchanges(c, client, deadline);
            long quietAfter = CompilerQuiet.await(QUIET_BOUND_NANOS);
            // One line per worker start, beside the supervisor's "started N ms after its spawn".
            // The native paths too (docs/adr/0060): where a machine lacks a call, the line says so.
            System.err.printf("%s: warmed up in %.1f ms (%d requests, a hand-off to itself, compiler quiet after %.1f ms; %s; %s)%n",
                    name, (System.nanoTime() - begin) / 1e6, 2 * REQUESTS, quietAfter / 1e6, io.writes(),
                    NativePaths.current().describeWorker());
        } catch (IOException | RuntimeException e) {
            failures.log("warm-up skipped: " + e);
        } finally {
            if (c != null) {
                io.close(c);
            }
            if (listener >= 0) {
                Fds.close(listener);
            }
            if (pair != null) {
                Fds.close(pair[0]);
                Fds.close(pair[1]);
            }
        }
    }

    /** {@link #REQUESTS} keep-alive requests on the warm-up connection, each answered in full. */
    private void exchanges(Connection c, Socket client, long deadline) throws IOException {
        byte[] buf = new byte[ConnectionIo.IO_BYTES];
        for (int k = 0; k < REQUESTS; k++) {
            client.getOutputStream().write(REQUEST);
            boolean answered = false;
            while (!answered) {
                if (c == null || c.closed || System.nanoTime() - deadline >= 0) {
                    throw new IllegalStateException("the warm-up request was not answered");
                }
                int n = epoll.awaitNanos(TimeUnit.MILLISECONDS.toNanos(IO_MILLIS));
                long now = System.nanoTime();
                io.batchSends(); // as the loop's pass does
                for (int i = 0; i < n; i++) {
                    long data = epoll.data(i);
                    if (EventTags.connection(data)) {
                        io.onEvent((int) data, epoll.events(i), now);
                    } else if (data == EventTags.WAKE) {
                        io.onWake(now); // a pool app's answer
                    }
                }
                io.sendDue(now);
                // Idle with bytes at the client: the whole answer was written (loopback writes
                // land in the peer's buffer before write returns).
                answered = c.session.idle() && client.getInputStream().available() > 0;
            }
            while (client.getInputStream().available() > 0) {
                client.getInputStream().read(buf);
            }
        }
    }
}
