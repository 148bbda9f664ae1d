package m0.server.worker;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.util.ReferenceCounted;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import m0.server.jnr.Acceptor;
import m0.server.jnr.Epoll;
import m0.server.jnr.Fds;
import m0.server.jnr.Sockets;
import m0.server.log.RateLimitedLog;
import m0.server.tls.BoringTls;

/**
 * The TLS path warmed before ready (ADR 0073's addendum), after {@link WarmUp}'s plain one: a
 * worker that serves TLS on BoringSSL does {@link #HANDSHAKES} loopback handshakes with itself,
 * each one request with {@code Connection: close}, as a reconnect storm's clients do, half of
 * them resuming the session before. Measured: without it, a fresh worker's first ~2,500
 * handshakes paid about 1.3 s of JIT compiles on the cores the storm needed, which doubled its
 * CPU per handshake against nginx's. The client is an engine of the same library (its CPU is
 * native, a fraction of the server's Java), driven here on the loop thread between the server's
 * passes. Its handshakes are counted in a {@link TlsReads} of their own, which the worker's
 * replaces at ready, so the handshake counters start at 0. Best effort and bounded: a failure
 * is one line and the worker starts as it would have.
 */
final class TlsWarmUp {

    /**
     * Handshakes before ready: enough that the handshake path's methods reach C2 (each is called
     * a few times a handshake; Tier4InvocationThreshold is 5,000) before the first client.
     */
    static final int HANDSHAKES = 200;
    /**
     * Then requests on one kept-alive connection: each runs the record path (the loop's event,
     * unwrap, parse, wrap) that every handshake runs too, for a fraction of a handshake's CPU, so
     * those methods pass C2's thresholds here and not in the first storm.
     */
    static final int KEEP_ALIVE_REQUESTS = 1000;
    private static final byte[] REQUEST = "GET / HTTP/1.1\r\nHost: m0serve-warm-up\r\n\r\n"
            .getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CLOSE_REQUEST = "GET / HTTP/1.1\r\nHost: m0serve-warm-up\r\nConnection: close\r\n\r\n"
            .getBytes(StandardCharsets.US_ASCII);
    private static final long BOUND_NANOS = 5_000_000_000L;
    private static final long PASS_NANOS = 1_000_000L;
    private static final long QUIET_BOUND_NANOS = 500_000_000L;

    private final Epoll epoll;
    private final ConnectionIo io;
    private final BoringTls tls;
    private final RateLimitedLog failures;
    private final String name;
    private final ByteBuffer toServer = ByteBuffer.allocateDirect(32 * 1024);
    private final ByteBuffer fromServer = ByteBuffer.allocateDirect(64 * 1024);
    private final ByteBuffer plain = ByteBuffer.allocateDirect(64 * 1024);

    TlsWarmUp(Epoll epoll, ConnectionIo io, BoringTls tls, RateLimitedLog failures, String name) {
        this.epoll = epoll;
        this.io = io;
        this.tls = tls;
        this.failures = failures;
        this.name = name;
    }

    void run() {
        int listener = -1;
        long begin = System.nanoTime();
        long deadline = begin + BOUND_NANOS;
        int done = 0;
        SslContext client = null;
        try {
            client = BoringTls.loopbackClient();
            io.secure(tls, name + " warm-up");
            InetAddress loopback = InetAddress.getLoopbackAddress();
            listener = Sockets.listenTcp(loopback, 0, 4);
            int port = Sockets.localPort(listener);
            Acceptor acceptor = new Acceptor(listener);
            for (; done < HANDSHAKES && System.nanoTime() - deadline < 0; done++) {
                // a new host name every other one: a full handshake, then one resuming its session
                SSLEngine engine = client.newEngine(ByteBufAllocator.DEFAULT, "warm-up-" + done / 2, port);
                try {
                    exchange(engine, acceptor, new InetSocketAddress(loopback, port), 1, true, deadline);
                } finally {
                    ((ReferenceCounted) engine).release();
                }
            }
            SSLEngine engine = client.newEngine(ByteBufAllocator.DEFAULT);
            try {
                exchange(engine, acceptor, new InetSocketAddress(loopback, port), KEEP_ALIVE_REQUESTS, false, deadline);
            } finally {
                ((ReferenceCounted) engine).release();
            }
            long quietAfter = CompilerQuiet.await(QUIET_BOUND_NANOS);
            System.err.printf("%s: TLS warmed up in %.1f ms (%d handshakes, %d resumed, then %d keep-alive requests; compiler quiet after %.1f ms)%n",
                    name, (System.nanoTime() - begin) / 1e6, done, io.tlsResumedHandshakes(), KEEP_ALIVE_REQUESTS,
                    quietAfter / 1e6);
        } catch (IOException | RuntimeException e) {
            failures.log("TLS warm-up skipped after " + done + " handshakes: " + e);
        } finally {
            if (listener >= 0) {
                Fds.close(listener);
            }
            if (client != null) {
                ReferenceCounted rc = (ReferenceCounted) client;
                rc.release();
            }
        }
    }

    /**
     * One connection: accepted and admitted here, handshaken, asked {@code requests} requests,
     * each answered in full; with {@code Connection: close} on the last when {@code close}, and
     * then read to the server's close, else closed by the server here.
     */
    private void exchange(SSLEngine engine, Acceptor acceptor, InetSocketAddress at, int requests, boolean close,
                          long deadline) throws IOException {
        Connection c = null;
        try (SocketChannel ch = SocketChannel.open(at)) {
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true); // its Finished and request back to back
            ch.configureBlocking(false);
            int fd;
            while ((fd = acceptor.accept()) < 0) {
                if (System.nanoTime() - deadline >= 0) {
                    throw new IllegalStateException("a warm-up connection was not accepted");
                }
                Thread.onSpinWait(); // the TCP handshake completes in the kernel
            }
            c = io.admit(fd, acceptor.lastPeer(), false, System.nanoTime());
            engine.beginHandshake();
            fromServer.clear();
            for (int k = 0; k < requests; k++) {
                boolean last = close && k == requests - 1;
                ByteBuffer request = ByteBuffer.wrap(last ? CLOSE_REQUEST : REQUEST);
                long answer = 0;
                for (;;) {
                    if (System.nanoTime() - deadline >= 0) {
                        throw new IllegalStateException("a warm-up exchange did not finish in time");
                    }
                    send(engine, ch, request);
                    serverPass();
                    boolean eof = ch.read(fromServer) < 0;
                    answer += receive(engine);
                    if (eof) {
                        if (!last) {
                            throw new IllegalStateException("the server closed a warm-up connection");
                        }
                        break;
                    }
                    // not at the last: the whole answer is in (loopback writes land before they return)
                    if (!last && !request.hasRemaining() && answer > 0 && c.session.idle()) {
                        break;
                    }
                }
            }
        } finally {
            if (c != null && !c.closed) {
                io.close(c);
            }
        }
    }

    /** The client's handshake messages, then its request once the handshake is done. */
    private void send(SSLEngine engine, SocketChannel ch, ByteBuffer request) throws IOException {
        for (;;) {
            HandshakeStatus hs = engine.getHandshakeStatus();
            if (hs == HandshakeStatus.NEED_TASK) {
                Runnable task;
                while ((task = engine.getDelegatedTask()) != null) {
                    task.run();
                }
                continue;
            }
            boolean handshaking = hs != HandshakeStatus.NOT_HANDSHAKING && hs != HandshakeStatus.FINISHED;
            if (hs != HandshakeStatus.NEED_WRAP && (handshaking || !request.hasRemaining())) {
                return;
            }
            toServer.clear();
            SSLEngineResult r = engine.wrap(handshaking ? ByteBuffer.allocate(0) : request, toServer);
            toServer.flip();
            while (toServer.hasRemaining()) {
                ch.write(toServer); // a few hundred bytes into an empty loopback socket
            }
            if (r.getStatus() != SSLEngineResult.Status.OK) {
                return;
            }
        }
    }

    /** What the server sent, unwrapped (the answer's bytes are dropped): how many plain bytes. */
    private long receive(SSLEngine engine) throws IOException {
        long got = 0;
        fromServer.flip();
        while (fromServer.hasRemaining()) {
            plain.clear();
            SSLEngineResult r = engine.unwrap(fromServer, plain);
            got += r.bytesProduced();
            if (r.getStatus() != SSLEngineResult.Status.OK || r.bytesConsumed() == 0
                    || engine.getHandshakeStatus() == HandshakeStatus.NEED_WRAP
                    || engine.getHandshakeStatus() == HandshakeStatus.NEED_TASK) {
                break;
            }
        }
        fromServer.compact();
        return got;
    }

    /** One pass of the server's loop over what is ready, as {@link WarmUp}'s exchanges do. */
    private void serverPass() {
        int n = epoll.awaitNanos(PASS_NANOS);
        long now = System.nanoTime();
        io.batchSends();
        for (int i = 0; i < n; i++) {
            long data = epoll.data(i);
            if (EventTags.connection(data)) {
                io.onEvent((int) data, epoll.events(i), now);
            } else if (data == EventTags.WAKE) {
                io.onWake(now);
            }
        }
        io.sendDue(now);
    }
}
