package m0.server.jnr;

import java.nio.charset.StandardCharsets;

/**
 * An unconnected AF_UNIX datagram socket that sends to a named address: what sd_notify(3) does
 * with {@code $NOTIFY_SOCKET}. A leading {@code @} names an abstract socket (its sockaddr path
 * starts with a NUL byte and its length counts no terminator); anything else is a path.
 * {@code sockaddr_un} is 110 bytes: family@0 (u16), path@2 (108 bytes). Java 17's
 * {@code UnixDomainSocketAddress} does streams only, so this goes through the libc binding:
 * sendmsg with msg_name set (jnr-ffi 2.2 passed garbage as sendto's sixth argument, the
 * address length: EINVAL), over the msghdr and iovec offsets of PLATFORM.md.
 */
public final class UnixDatagram implements AutoCloseable {

    private static final int SUN_PATH = 108;
    private static final int SOCKADDR_UN = 2 + SUN_PATH;

    private final int fd;
    private final Memory addr = new Memory(SOCKADDR_UN);
    private final int addrLen;
    private final Memory message = new Memory(4096);
    /** msghdr (56 bytes) then one iovec (16) pointing at {@code message}. */
    private final Memory header = new Memory(56 + 16);

    private UnixDatagram(int fd, int addrLen) {
        this.fd = fd;
        this.addrLen = addrLen;
    }

    /** A close-on-exec, non-blocking socket that sends to {@code address}. */
    public static UnixDatagram to(String address) {
        int len = sockaddrLength(address);
        int fd = Native.check("socket(AF_UNIX, SOCK_DGRAM)", Native.libc().socket(Native.AF_UNIX,
                Native.SOCK_DGRAM | Native.SOCK_NONBLOCK | Native.SOCK_CLOEXEC, 0));
        UnixDatagram d = new UnixDatagram(fd, len);
        writeSockaddr(d.addr, address);
        return d;
    }

    /**
     * A close-on-exec, non-blocking socket bound to {@code address} that receives with
     * {@link #receive()} (tests: a stand-in for systemd's notify socket).
     */
    public static UnixDatagram bound(String address) {
        UnixDatagram d = to(address);
        try {
            Native.check("bind(" + address + ")", Native.libc().bind(d.fd, d.addr.address(), d.addrLen));
        } catch (RuntimeException e) {
            d.close();
            throw e;
        }
        return d;
    }

    /** sockaddr_un's length for {@code address}: family, then the path without its NUL. */
    static int sockaddrLength(String address) {
        int bytes = address.getBytes(StandardCharsets.UTF_8).length;
        if (address.isEmpty() || bytes > SUN_PATH - 1) {
            throw new IllegalArgumentException("not an AF_UNIX address (1.." + (SUN_PATH - 1) + " bytes): '" + address + "'");
        }
        return 2 + bytes; // '@' becomes the abstract name's leading NUL: same length
    }

    private static void writeSockaddr(Memory m, String address) {
        byte[] raw = address.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < SOCKADDR_UN; i++) {
            m.buffer().put(i, (byte) 0);
        }
        m.buffer().putShort(0, (short) Native.AF_UNIX);
        m.buffer().put(2, raw);
        if (raw[0] == '@') {
            m.buffer().put(2, (byte) 0);
        }
    }

    /**
     * Sends {@code text} as one datagram.
     *
     * @throws NativeException when the kernel refuses it (no listener: ECONNREFUSED; full: EAGAIN)
     */
    public void send(String text) {
        byte[] raw = text.getBytes(StandardCharsets.UTF_8);
        if (raw.length > message.size()) {
            throw new IllegalArgumentException("datagram too long: " + raw.length + " bytes");
        }
        message.buffer().put(0, raw);
        java.nio.ByteBuffer h = header.buffer();
        h.putLong(0, addr.address()); // msg_name
        h.putInt(8, addrLen);          // msg_namelen
        h.putLong(16, header.address(56)); // msg_iov
        h.putLong(24, 1);              // msg_iovlen
        h.putLong(32, 0);              // msg_control
        h.putLong(40, 0);              // msg_controllen
        h.putInt(48, 0);               // msg_flags
        h.putLong(56, message.address()); // iov_base
        h.putLong(64, raw.length);        // iov_len
        long n = Native.libc().sendmsg(fd, header.address(), Native.MSG_NOSIGNAL);
        if (n < 0) {
            throw Native.fail("sendmsg(" + fd + ", to " + (addrLen - 2) + "-byte AF_UNIX address)");
        }
    }

    /** One datagram received, or null when none is queued. */
    public String receive() {
        int n = Fds.read(fd, message.address(), message.size());
        if (n < 0) {
            return null;
        }
        byte[] raw = new byte[n];
        message.buffer().get(0, raw);
        return new String(raw, StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        Fds.close(fd);
    }
}
