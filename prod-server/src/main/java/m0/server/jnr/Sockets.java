package m0.server.jnr;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;

/**
 * TCP listeners, accepted connections and AF_UNIX datagram socketpairs. Every socket is
 * created non-blocking and close-on-exec. {@code sockaddr_in} is 16 bytes (family@0,
 * port@2 big-endian, addr@4); {@code sockaddr_in6} 28 (family@0, port@2, flowinfo@4, addr@8,
 * scope@24).
 */
public final class Sockets {

    /** Room for any sockaddr the server meets (sockaddr_storage is 128). */
    public static final int SOCKADDR_MAX = 128;

    /** Holds the constant 1 for boolean socket options; never written again, so shared by all threads. */
    private static final Memory ONE = new Memory(8);

    static {
        ONE.buffer().putInt(0, 1);
    }

    /** Scratch for the rarer calls (bind, getsockname, socketpair, getsockopt). */
    private static final ThreadLocal<Memory> SCRATCH = ThreadLocal.withInitial(() -> new Memory(256));

    private Sockets() {
    }

    /**
     * A listening TCP socket on {@code address:port} with SO_REUSEADDR (never SO_REUSEPORT: a
     * second server on the port must fail to bind).
     *
     * @throws NativeException naming "bind(host:port)" when the port is taken
     */
    public static int listenTcp(InetAddress address, int port, int backlog) {
        LibC c = Native.libc();
        boolean v6 = address instanceof Inet6Address;
        int fd = Native.check("socket", c.socket(v6 ? Native.AF_INET6 : Native.AF_INET,
                Native.SOCK_STREAM | Native.SOCK_NONBLOCK | Native.SOCK_CLOEXEC, 0));
        try {
            Native.check("setsockopt(SO_REUSEADDR)",
                    c.setsockopt(fd, Native.SOL_SOCKET, Native.SO_REUSEADDR, ONE.address(), 4));
            Memory m = SCRATCH.get();
            int len = writeSockaddr(m.buffer(), address, port);
            String where = hostPort(address, port);
            Native.check("bind(" + where + ")", c.bind(fd, m.address(), len));
            Native.check("listen(" + where + ")", c.listen(fd, backlog));
            return fd;
        } catch (RuntimeException e) {
            Fds.close(fd);
            throw e;
        }
    }

    /** The port a bound socket has (the kernel's choice after binding port 0). */
    public static int localPort(int fd) {
        Memory m = SCRATCH.get();
        ByteBuffer b = m.buffer();
        b.putInt(SOCKADDR_MAX, SOCKADDR_MAX);
        Native.check("getsockname(" + fd + ")", Native.libc().getsockname(fd, m.address(), m.address(SOCKADDR_MAX)));
        return (Byte.toUnsignedInt(b.get(2)) << 8) | Byte.toUnsignedInt(b.get(3)); // network order
    }

    /**
     * What an inherited descriptor is, for socket activation's check: getsockopt SO_DOMAIN,
     * SO_TYPE and SO_ACCEPTCONN.
     *
     * @throws NativeException ENOTSOCK for a descriptor that is not a socket, EBADF for none
     */
    public static SocketKind kind(int fd) {
        return new SocketKind(intOption(fd, Native.SO_DOMAIN, "SO_DOMAIN"), intOption(fd, Native.SO_TYPE, "SO_TYPE"),
                intOption(fd, Native.SO_ACCEPTCONN, "SO_ACCEPTCONN") != 0);
    }

    /** A socket's domain, type and whether it listens; {@link #isTcpListener} is what a listener must be. */
    public record SocketKind(int domain, int type, boolean accepting) {
        public boolean isTcpListener() {
            return (domain == Native.AF_INET || domain == Native.AF_INET6) && type == Native.SOCK_STREAM && accepting;
        }

        @Override
        public String toString() {
            String d = domain == Native.AF_INET ? "AF_INET" : domain == Native.AF_INET6 ? "AF_INET6"
                    : domain == Native.AF_UNIX ? "AF_UNIX" : "domain " + domain;
            String t = type == Native.SOCK_STREAM ? "SOCK_STREAM" : type == Native.SOCK_DGRAM ? "SOCK_DGRAM" : "type " + type;
            return d + " " + t + (accepting ? " listening" : " not listening");
        }
    }

    private static int intOption(int fd, int name, String label) {
        return intOption(fd, Native.SOL_SOCKET, name, label);
    }

    private static int intOption(int fd, int level, int name, String label) {
        Memory m = SCRATCH.get();
        m.buffer().putInt(0, 0);
        m.buffer().putInt(8, 4);
        Native.check("getsockopt(" + fd + ", " + label + ")",
                Native.libc().getsockopt(fd, level, name, m.address(), m.address(8)));
        return m.buffer().getInt(0);
    }

    /** "host:port" of a bound TCP socket (IPv4 or IPv6). */
    public static String localHostPort(int fd) {
        Memory m = SCRATCH.get();
        ByteBuffer b = m.buffer();
        b.putInt(SOCKADDR_MAX, SOCKADDR_MAX);
        Native.check("getsockname(" + fd + ")", Native.libc().getsockname(fd, m.address(), m.address(SOCKADDR_MAX)));
        int port = (Byte.toUnsignedInt(b.get(2)) << 8) | Byte.toUnsignedInt(b.get(3));
        byte[] raw = new byte[b.getShort(0) == Native.AF_INET6 ? 16 : 4];
        b.get(raw.length == 16 ? 8 : 4, raw);
        try {
            return hostPort(InetAddress.getByAddress(raw), port);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e); // only thrown for a wrong length
        }
    }

    /**
     * SO_INCOMING_CPU: the CPU that processed the socket's latest incoming packet (ADR 0057), or
     * -1 where the kernel cannot say (none arrived yet, or an error: the caller has no use for
     * its reason, a connection without an affinity is simply never swapped).
     */
    public static int incomingCpu(int fd) {
        Memory m = SCRATCH.get();
        m.buffer().putInt(0, -1);
        m.buffer().putInt(8, 4);
        if (Native.libc().getsockopt(fd, Native.SOL_SOCKET, Native.SO_INCOMING_CPU, m.address(), m.address(8)) != 0) {
            return -1;
        }
        return m.buffer().getInt(0);
    }

    /** Turns Nagle off: responses go out as soon as they are written. */
    public static void setNoDelay(int fd) {
        Native.check("setsockopt(" + fd + ", TCP_NODELAY)",
                Native.libc().setsockopt(fd, Native.IPPROTO_TCP, Native.TCP_NODELAY, ONE.address(), 4));
    }

    /**
     * TCP_DEFER_ACCEPT on a listener: the kernel queues a connection for accept only once its
     * first bytes arrive, or about {@code seconds} after the handshake when none do (ADR 0054).
     * Zero turns it off.
     */
    public static void deferAccept(int listener, int seconds) {
        setIntOption(listener, Native.IPPROTO_TCP, Native.TCP_DEFER_ACCEPT, seconds, "TCP_DEFER_ACCEPT");
    }

    /** The listener's TCP_DEFER_ACCEPT as the kernel keeps it (rounded to its retransmits); 0: off. */
    public static int deferAcceptSeconds(int listener) {
        return intOption(listener, Native.IPPROTO_TCP, Native.TCP_DEFER_ACCEPT, "TCP_DEFER_ACCEPT");
    }

    /** Whether Nagle is off on {@code fd} (TCP_NODELAY set). */
    public static boolean noDelay(int fd) {
        return intOption(fd, Native.IPPROTO_TCP, Native.TCP_NODELAY, "TCP_NODELAY") != 0;
    }

    /** shutdown(2)'s SHUT_WR: a FIN after what is queued; reading goes on (a lingering close). */
    public static void shutdownWrite(int fd) {
        Native.check("shutdown(" + fd + ", SHUT_WR)", Native.libc().shutdown(fd, 1));
    }

    /**
     * A non-blocking, close-on-exec AF_UNIX SOCK_DGRAM socketpair whose ends have
     * {@code bufferBytes} send and receive buffers (the kernel doubles what it is asked).
     *
     * @return {@code [a, b]}: what is sent on one is received on the other
     */
    public static int[] datagramPair(int bufferBytes) {
        Memory m = SCRATCH.get();
        Native.check("socketpair(AF_UNIX, SOCK_DGRAM)", Native.libc().socketpair(Native.AF_UNIX,
                Native.SOCK_DGRAM | Native.SOCK_NONBLOCK | Native.SOCK_CLOEXEC, 0, m.address()));
        int[] pair = {m.buffer().getInt(0), m.buffer().getInt(4)};
        for (int fd : pair) {
            setIntOption(fd, Native.SOL_SOCKET, Native.SO_SNDBUF, bufferBytes, "SO_SNDBUF");
            setIntOption(fd, Native.SOL_SOCKET, Native.SO_RCVBUF, bufferBytes, "SO_RCVBUF");
        }
        return pair;
    }

    /** SO_SNDBUF as the kernel reports it (twice what was set). */
    public static int sendBufferSize(int fd) {
        Memory m = SCRATCH.get();
        m.buffer().putInt(8, 4);
        Native.check("getsockopt(SO_SNDBUF)", Native.libc().getsockopt(fd, Native.SOL_SOCKET, Native.SO_SNDBUF,
                m.address(), m.address(8)));
        return m.buffer().getInt(0);
    }

    private static void setIntOption(int fd, int level, int name, int value, String label) {
        Memory m = SCRATCH.get();
        m.buffer().putInt(0, value);
        Native.check("setsockopt(" + fd + ", " + label + ")", Native.libc().setsockopt(fd, level, name, m.address(), 4));
    }

    /** Writes {@code address:port} as a sockaddr at 0 of {@code b}; returns its length. */
    static int writeSockaddr(ByteBuffer b, InetAddress address, int port) {
        for (int i = 0; i < 28; i++) {
            b.put(i, (byte) 0);
        }
        byte[] raw = address.getAddress();
        b.putShort(0, (short) (address instanceof Inet4Address ? Native.AF_INET : Native.AF_INET6));
        b.put(2, (byte) (port >>> 8));
        b.put(3, (byte) port);
        if (address instanceof Inet4Address) {
            b.put(4, raw);
            return 16;
        }
        b.put(8, raw);
        b.putInt(24, ((Inet6Address) address).getScopeId());
        return 28;
    }

    /** "host:port", with brackets around an IPv6 host. */
    public static String hostPort(InetAddress address, int port) {
        String host = address.getHostAddress();
        return (address instanceof Inet6Address ? "[" + host + "]" : host) + ":" + port;
    }
}
