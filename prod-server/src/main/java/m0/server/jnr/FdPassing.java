package m0.server.jnr;

import java.nio.ByteBuffer;

/**
 * Passing a descriptor over an AF_UNIX datagram socket with SCM_RIGHTS, one descriptor and a
 * small payload (the connection's peer sockaddr) per datagram. Preallocated {@code msghdr},
 * {@code iovec} and control buffers, reused for every call: not thread-safe, one per loop.
 *
 * <pre>
 * msghdr (56 bytes): name@0 namelen@8(u32) iov@16 iovlen@24 control@32 controllen@40 flags@48(int)
 * iovec  (16 bytes): base@0 len@8
 * cmsghdr header (16 bytes): len@0(size_t) level@8 type@12, data@16; one fd: CMSG_LEN 20, CMSG_SPACE 24
 * </pre>
 */
public final class FdPassing {

    /** Largest payload a datagram carries: a sockaddr and a hand-off's trailer byte. */
    public static final int MAX_PAYLOAD = Sockets.SOCKADDR_MAX + 1;

    private static final int MSG_IOV = 16;
    private static final int MSG_IOVLEN = 24;
    private static final int MSG_CONTROL = 32;
    private static final int MSG_CONTROLLEN = 40;
    private static final int MSG_FLAGS = 48;
    private static final int MSGHDR_BYTES = 56;
    private static final int IOVEC_BYTES = 16;
    private static final int CMSG_HEADER = 16;
    private static final int CMSG_LEN_ONE_FD = CMSG_HEADER + 4;
    private static final int CMSG_SPACE_ONE_FD = CMSG_HEADER + 8;
    /** Room for a few descriptors: a misbehaving sender's extras are received and closed. */
    private static final int CONTROL_BYTES = CMSG_HEADER + 8 * 4;

    private static final int HDR = 0;
    private static final int IOV = MSGHDR_BYTES;
    private static final int CONTROL = IOV + IOVEC_BYTES;
    private static final int PAYLOAD = CONTROL + CONTROL_BYTES;

    /** A descriptor taken off a channel and the payload that came with it. */
    public record Received(int fd, byte[] payload) {
    }

    private final Memory send = new Memory(PAYLOAD + MAX_PAYLOAD);
    private final Memory receive = new Memory(PAYLOAD + MAX_PAYLOAD);
    private long truncated;
    private int lastErrno;

    public FdPassing() {
        link(send);
        link(receive);
    }

    /** Points each msghdr at its own iovec and control buffer, once. */
    private static void link(Memory m) {
        ByteBuffer b = m.buffer();
        b.putLong(HDR + MSG_IOV, m.address(IOV));
        b.putLong(HDR + MSG_IOVLEN, 1);
        b.putLong(HDR + MSG_CONTROL, m.address(CONTROL));
        b.putLong(IOV, m.address(PAYLOAD));
    }

    /**
     * Queues {@code fd} and {@code payload} on {@code socket} without blocking
     * (MSG_DONTWAIT | MSG_NOSIGNAL). The caller keeps its own copy of {@code fd} either way.
     *
     * @return true when queued; false when refused: the queue is full (EAGAIN, ENOBUFS), every
     *         receiving end is closed (ECONNREFUSED), or any other errno ({@link #lastErrno()}
     *         says which). Never throws for an errno: a failed send is a refused send, and the
     *         caller keeps the connection (issue 9: an escape here used to kill the process).
     */
    public boolean send(int socket, int fd, byte[] payload) {
        ByteBuffer b = send.buffer();
        int len = Math.min(payload.length, MAX_PAYLOAD);
        b.put(PAYLOAD, payload, 0, len);
        b.putLong(IOV + 8, len);
        // fd < 0: a datagram without a descriptor (a worker's nudge, SocketChannels#nudge)
        b.putLong(HDR + MSG_CONTROLLEN, fd < 0 ? 0 : CMSG_SPACE_ONE_FD);
        b.putInt(HDR + MSG_FLAGS, 0);
        b.putLong(CONTROL, CMSG_LEN_ONE_FD);
        b.putInt(CONTROL + 8, Native.SOL_SOCKET);
        b.putInt(CONTROL + 12, Native.SCM_RIGHTS);
        b.putInt(CONTROL + CMSG_HEADER, fd);
        for (;;) {
            long n = Native.libc().sendmsg(socket, send.address(), Native.MSG_DONTWAIT | Native.MSG_NOSIGNAL);
            if (n >= 0) {
                return true;
            }
            int errno = Native.errno();
            if (errno == Native.EINTR) {
                continue;
            }
            lastErrno = errno;
            return false;
        }
    }

    /**
     * Takes the next descriptor off {@code socket} without blocking (MSG_DONTWAIT |
     * MSG_CMSG_CLOEXEC). A datagram whose control data was truncated (MSG_CTRUNC: we were out of
     * descriptors, and the kernel closed what it could not install) or that carries no
     * descriptor is returned with fd -1, so the caller can report the receipt; extra
     * descriptors are closed.
     *
     * @return the descriptor (-1: none arrived) and payload, or null when nothing is queued (EAGAIN)
     */
    public Received receive(int socket) {
        ByteBuffer b = receive.buffer();
        for (;;) {
            b.putLong(IOV + 8, MAX_PAYLOAD);
            b.putLong(HDR + MSG_CONTROLLEN, CONTROL_BYTES);
            b.putInt(HDR + MSG_FLAGS, 0);
            long n = Native.libc().recvmsg(socket, receive.address(), Native.MSG_DONTWAIT | Native.MSG_CMSG_CLOEXEC);
            if (n < 0) {
                int errno = Native.errno();
                if (errno == Native.EINTR) {
                    continue;
                }
                if (errno == Native.EAGAIN) {
                    return null;
                }
                throw new NativeException("recvmsg(" + socket + ", SCM_RIGHTS)", errno);
            }
            int fd = takeDescriptors(b);
            if ((b.getInt(HDR + MSG_FLAGS) & Native.MSG_CTRUNC) != 0) {
                truncated++;
                Fds.close(fd);
                return new Received(-1, new byte[0]);
            }
            byte[] payload = new byte[(int) Math.min(n, MAX_PAYLOAD)];
            b.get(PAYLOAD, payload);
            return new Received(fd, payload); // fd -1: a datagram without a descriptor, nothing to serve
        }
    }

    /** The first SCM_RIGHTS descriptor received; every other one is closed. -1 when none. */
    private static int takeDescriptors(ByteBuffer b) {
        long controlLen = b.getLong(HDR + MSG_CONTROLLEN);
        int first = -1;
        int at = 0;
        while (at + CMSG_HEADER <= controlLen) {
            long cmsgLen = b.getLong(CONTROL + at);
            if (cmsgLen < CMSG_HEADER || at + cmsgLen > controlLen) {
                break;
            }
            if (b.getInt(CONTROL + at + 8) == Native.SOL_SOCKET && b.getInt(CONTROL + at + 12) == Native.SCM_RIGHTS) {
                int fds = (int) ((cmsgLen - CMSG_HEADER) / 4);
                for (int k = 0; k < fds; k++) {
                    int fd = b.getInt(CONTROL + at + CMSG_HEADER + 4 * k);
                    if (first < 0) {
                        first = fd;
                    } else {
                        Fds.close(fd);
                    }
                }
            }
            at += (int) ((cmsgLen + 7) & ~7L);
        }
        return first;
    }

    /** The errno of the last refused send (EAGAIN, ENOBUFS, ECONNREFUSED, or anything else). */
    public int lastErrno() {
        return lastErrno;
    }

    /** Datagrams received with their control data truncated (their descriptor lost). */
    public long truncated() {
        return truncated;
    }
}
