import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Iterator;

/**
 * An open-loop load of new connections: connection k is opened at {@code t0 + k / RATE}
 * whatever the server does and asks one GET with {@code Connection: close}, so the server closes
 * first and keeps the TIME_WAIT: had the client closed, each connect() would search its ephemeral
 * ports past tens of thousands of its own TIME_WAIT sockets, and on a 2-core machine that kernel
 * time, not the server, capped the rate near 14 000/s (h2load showed the same). The latency of each is
 * measured from the time it was due, not from when it was opened: a client that fell behind
 * does not hide the wait (no coordinated omission) -- but on a starved machine its own lag then
 * reads as latency, so it is printed too ({@code late}: the p99 of how long after its due time
 * a connection was opened; more than a fraction of a millisecond and the client, not the
 * server, set the pace). Prints one line:
 *
 * <pre>
 *   due N done M errors E achieved R/s p50 P ms p99 Q ms max X ms ticks T late L ms
 *   java prod-server/bench/OpenLoop.java HOST:PORT RATE SECONDS [WARMUP_SECONDS=1] [PATH=/] [SERVER_PID] [BODY_FILE]
 * </pre>
 *
 * {@code achieved} is the rate offered. With SERVER_PID, {@code ticks} is the utime+stime (clock
 * ticks, /proc) of the server's process and its children over the measured window alone (the
 * warm-up excluded); else 0. With {@code OPENLOOP_LOG=FILE} in the environment every latency is
 * written there too, one line each in h2load's {@code --log-file} columns (start, status,
 * microseconds), for pooled percentiles. With BODY_FILE each request is a POST of that file's bytes
 * ({@code Content-Type: application/json}: embed.sh's open loop, issue 48) instead of a GET.
 *
 * <p>One thread and one selector: connections are opened within 1 ms of their time (the
 * selector's timeout granularity). Single-file and JDK-only so the bench needs no build; every
 * sample is kept and the percentiles are read from the sorted whole. A connection that has no
 * response after 10 s is an error.
 */
public final class OpenLoop {

    private static final long GIVE_UP_NANOS = 10_000_000_000L;

    /** One connection in flight: when it was due, and what it has read. */
    private static final class Conn {
        final long due;
        ByteBuffer in = ByteBuffer.allocate(4096);
        int bodyStart = -1;
        int length = -1;

        Conn(long due) {
            this.due = due;
        }

        /** True once the head and Content-Length bytes of body are in. */
        boolean complete() {
            if (bodyStart < 0) {
                byte[] a = in.array();
                for (int i = 3; i < in.position(); i++) {
                    if (a[i - 3] == '\r' && a[i - 2] == '\n' && a[i - 1] == '\r' && a[i] == '\n') {
                        bodyStart = i + 1;
                        String head = new String(a, 0, bodyStart, StandardCharsets.ISO_8859_1).toLowerCase();
                        int c = head.indexOf("content-length:");
                        length = c < 0 ? 0 : Integer.parseInt(head.substring(c + 15, head.indexOf('\r', c)).trim());
                        break;
                    }
                }
            }
            return bodyStart >= 0 && in.position() - bodyStart >= length;
        }
    }

    private long[] samples = new long[1 << 16];
    private int count;
    private long[] lateness = new long[1 << 16];
    private int opened;
    private long errors;
    private long due;
    /** From the first connection opened to the last: the rate actually offered. */
    private double issueSeconds;

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: java OpenLoop.java HOST:PORT RATE SECONDS [WARMUP_SECONDS=1] [PATH=/] [SERVER_PID] [BODY_FILE]");
            System.exit(2);
        }
        String[] hp = args[0].split(":");
        InetSocketAddress target = new InetSocketAddress(hp[0], Integer.parseInt(hp[1]));
        double rate = Double.parseDouble(args[1]);
        double seconds = Double.parseDouble(args[2]);
        double warmup = args.length > 3 ? Double.parseDouble(args[3]) : 1;
        String path = args.length > 4 ? args[4] : "/";
        long serverPid = args.length > 5 ? Long.parseLong(args[5]) : -1;
        byte[] body = args.length > 6 ? java.nio.file.Files.readAllBytes(java.nio.file.Path.of(args[6])) : null;
        byte[] request = body == null
                ? ("GET " + path + " HTTP/1.1\r\nHost: " + args[0] + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1)
                : post(args[0], path, body);
        if (warmup > 0) {
            new OpenLoop().run(target, request, rate, warmup); // the JIT and class loading, not counted
        }
        OpenLoop run = new OpenLoop();
        long ticks = ticks(serverPid);
        run.run(target, request, rate, seconds);
        ticks = ticks(serverPid) - ticks;
        long[] s = Arrays.copyOf(run.samples, run.count);
        String log = System.getenv("OPENLOOP_LOG");
        if (log != null) {
            StringBuilder b = new StringBuilder(s.length * 16);
            for (long v : s) {
                b.append("0\t200\t").append(v / 1000).append('\n');
            }
            java.nio.file.Files.writeString(java.nio.file.Path.of(log), b);
        }
        Arrays.sort(s);
        System.out.printf(java.util.Locale.ROOT, "due %d done %d errors %d achieved %.0f/s p50 %.3f ms p99 %.3f ms max %.3f ms ticks %d late %.3f ms%n",
                run.due, run.count, run.errors, run.due / Math.max(run.issueSeconds, 1e-9), at(s, 0.50), at(s, 0.99),
                s.length == 0 ? 0 : s[s.length - 1] / 1e6, ticks, run.lateP99());
    }

    /** A POST of {@code body} as JSON, head and body in one array: one write each connection. */
    private static byte[] post(String host, String path, byte[] body) {
        byte[] head = ("POST " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n"
                + "Content-Type: application/json\r\nContent-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
        byte[] all = Arrays.copyOf(head, head.length + body.length);
        System.arraycopy(body, 0, all, head.length, body.length);
        return all;
    }

    /** utime + stime of {@code pid} and its descendants, in clock ticks; 0 without a pid. */
    private static long ticks(long pid) throws IOException {
        if (pid < 0) {
            return 0;
        }
        java.util.List<Long> all = new java.util.ArrayList<>();
        all.add(pid);
        ProcessHandle.of(pid).ifPresent(p -> p.descendants().forEach(d -> all.add(d.pid())));
        long total = 0;
        for (long p : all) {
            try {
                String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/" + p + "/stat"));
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                total += Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime: fields 14 and 15
            } catch (IOException | RuntimeException e) {
                // exited meanwhile
            }
        }
        return total;
    }

    private double lateP99() {
        long[] l = Arrays.copyOf(lateness, opened);
        Arrays.sort(l);
        return at(l, 0.99);
    }

    private static double at(long[] sorted, double q) {
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)] / 1e6;
    }

    private void run(InetSocketAddress target, byte[] request, double rate, double seconds) throws IOException {
        long interval = (long) (1e9 / rate);
        long n = (long) (rate * seconds);
        try (Selector selector = Selector.open()) {
            long start = System.nanoTime();
            long next = start;
            long issued = 0;
            while (issued < n || !selector.keys().isEmpty()) {
                long now = System.nanoTime();
                while (issued < n && next - now <= 0) {
                    if (opened == lateness.length) {
                        lateness = Arrays.copyOf(lateness, opened * 2);
                    }
                    lateness[opened++] = System.nanoTime() - next;
                    open(selector, target, next);
                    issued++;
                    next = start + issued * interval;
                    if (issued == n) {
                        issueSeconds = (System.nanoTime() - start) / 1e9;
                    }
                }
                long waitNanos = issued < n ? Math.max(0, next - System.nanoTime()) : 1_000_000;
                if (waitNanos >= 1_000_000) {
                    selector.select(waitNanos / 1_000_000);
                } else {
                    selector.selectNow();
                }
                now = System.nanoTime();
                Iterator<SelectionKey> it = selector.selectedKeys().iterator();
                while (it.hasNext()) {
                    SelectionKey k = it.next();
                    it.remove();
                    step(k, request, now);
                }
                if (issued >= n) {
                    for (SelectionKey k : selector.keys()) {
                        if (now - ((Conn) k.attachment()).due > GIVE_UP_NANOS) {
                            fail(k);
                        }
                    }
                }
            }
        }
        due = n;
    }

    private void open(Selector selector, InetSocketAddress target, long dueAt) {
        try {
            SocketChannel ch = SocketChannel.open();
            ch.configureBlocking(false);
            ch.socket().setTcpNoDelay(true);
            if (ch.connect(target)) {
                ch.register(selector, SelectionKey.OP_WRITE, new Conn(dueAt));
            } else {
                ch.register(selector, SelectionKey.OP_CONNECT, new Conn(dueAt));
            }
        } catch (IOException e) {
            errors++;
        }
    }

    private void step(SelectionKey k, byte[] request, long now) {
        SocketChannel ch = (SocketChannel) k.channel();
        Conn c = (Conn) k.attachment();
        try {
            if (k.isConnectable()) {
                ch.finishConnect();
                k.interestOps(SelectionKey.OP_WRITE);
                return;
            }
            if (k.isWritable()) {
                ch.write(ByteBuffer.wrap(request)); // at most a few hundred bytes into an empty socket: all of it
                k.interestOps(SelectionKey.OP_READ);
                return;
            }
            if (k.isReadable()) {
                if (ch.read(c.in) < 0) {
                    fail(k);
                    return;
                }
                if (!c.in.hasRemaining()) { // an answer past 4 KiB (384 floats as JSON): room for more, up to 1 MiB
                    if (c.in.capacity() >= 1 << 20) {
                        fail(k);
                        return;
                    }
                    c.in = ByteBuffer.allocate(c.in.capacity() * 2).put(c.in.flip());
                }
                if (c.complete()) {
                    record(now - c.due);
                    k.cancel();
                    ch.close();
                }
            }
        } catch (IOException | RuntimeException e) {
            fail(k);
        }
    }

    private void fail(SelectionKey k) {
        errors++;
        k.cancel();
        try {
            k.channel().close();
        } catch (IOException ignored) {
            // counted already
        }
    }

    private void record(long nanos) {
        if (count == samples.length) {
            samples = Arrays.copyOf(samples, count * 2);
        }
        samples[count++] = nanos;
    }
}
