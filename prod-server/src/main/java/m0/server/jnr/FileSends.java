package m0.server.jnr;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Files a worker answers with: opened read-only and close-on-exec, measured with fstat, sent to a
 * socket with sendfile(2) (file to socket inside the kernel, no copy through this process), or
 * read with pread where they must pass through it (TLS). Docs/adr/0071. One per loop: its
 * buffers are reused, so it is not thread-safe.
 */
public final class FileSends {

    private static final int O_RDONLY = 0;
    private static final int O_CLOEXEC = 0x80000;
    private static final long SYS_FSTAT = 5;
    /** struct stat on x86_64: 144 bytes, st_mode (u32) at 24, st_size at 48. */
    private static final int STAT_BYTES = 144;
    private static final int ST_MODE = 24;
    private static final int ST_SIZE = 48;
    private static final int S_IFMT = 0170000;
    private static final int S_IFREG = 0100000;
    public static final int ENOENT = 2;
    public static final int EACCES = 13;
    public static final int ENOTDIR = 20;
    public static final int ELOOP = 40;
    public static final int ENAMETOOLONG = 36;
    /** The longest path opened (PATH_MAX with its NUL). */
    private static final int PATH_BYTES = 4096;

    private final Memory path = new Memory(PATH_BYTES);
    private final Memory stat = new Memory(STAT_BYTES);
    private final Memory offset = new Memory(8);
    private final Memory chunk;

    /** {@code readBytes}: the most one {@link #read} copies (TLS's chunk). */
    public FileSends(int readBytes) {
        this.chunk = new Memory(readBytes);
    }

    /**
     * Opens {@code file} for reading: its descriptor, or minus the errno (ENOENT, EACCES, ...);
     * -ENOENT too for anything but a regular file, which is closed again.
     */
    public int open(String file) {
        byte[] b = file.getBytes(StandardCharsets.UTF_8);
        if (b.length >= PATH_BYTES) {
            return -ENAMETOOLONG;
        }
        ByteBuffer p = path.buffer();
        p.put(0, b);
        p.put(b.length, (byte) 0);
        LibC c = Native.libc();
        int fd;
        do {
            fd = c.open(path.address(), O_RDONLY | O_CLOEXEC, 0);
        } while (fd < 0 && Native.errno() == Native.EINTR);
        if (fd < 0) {
            return -Native.errno();
        }
        if (c.syscall(SYS_FSTAT, fd, stat.address(), 0, 0, 0) < 0) {
            int errno = Native.errno();
            c.close(fd);
            return -errno;
        }
        if ((stat.buffer().getInt(ST_MODE) & S_IFMT) != S_IFREG) {
            c.close(fd);
            return -ENOENT;
        }
        return fd;
    }

    /** The size {@link #open} read: call right after it. */
    public long openedSize() {
        return stat.buffer().getLong(ST_SIZE);
    }

    /**
     * One sendfile(2) of up to {@code count} bytes of {@code fileFd} at {@code position} to the
     * non-blocking socket {@code socketFd}.
     *
     * @return bytes sent, 0 when the file has no byte at {@code position} (it shrank), -1 when the
     *         socket is full (EAGAIN)
     * @throws NativeException on any other error (EPIPE, ECONNRESET, EIO, ...)
     */
    public long send(int socketFd, int fileFd, long position, long count) {
        LibC c = Native.libc();
        for (;;) {
            offset.buffer().putLong(0, position);
            long n = c.sendfile(socketFd, fileFd, offset.address(), count);
            if (n >= 0) {
                return n;
            }
            int errno = Native.errno();
            if (errno == Native.EAGAIN) {
                return -1;
            }
            if (errno != Native.EINTR) {
                throw new NativeException("sendfile(" + socketFd + ", " + fileFd + ")", errno);
            }
        }
    }

    /** send(2)'s MSG_MORE: a file follows these bytes, so the kernel holds them for its first segment. */
    public static final int MSG_MORE = 0x8000;
    private static final int MSG_NOSIGNAL = 0x4000;

    /**
     * One send of a file answer's head with MSG_MORE: the head and the file's first bytes leave in
     * one segment, as nginx's tcp_nopush corks them.
     *
     * @return bytes sent, or -1 when the socket is full (EAGAIN)
     * @throws NativeException on any other error
     */
    public static int sendMore(int fd, long address, int length) {
        LibC c = Native.libc();
        for (;;) {
            long n = c.send(fd, address, length, MSG_MORE | MSG_NOSIGNAL);
            if (n >= 0) {
                return (int) n;
            }
            int errno = Native.errno();
            if (errno == Native.EAGAIN) {
                return -1;
            }
            if (errno != Native.EINTR) {
                throw new NativeException("send(" + fd + ")", errno);
            }
        }
    }

    /** Up to {@code dst.remaining()} bytes at {@code position} into dst (through this loop's chunk): the count, 0 at the end. */
    public int read(int fd, ByteBuffer dst, long position) {
        int want = Math.min(dst.remaining(), chunk.buffer().capacity());
        LibC c = Native.libc();
        for (;;) {
            long n = c.pread(fd, chunk.address(), want, position);
            if (n >= 0) {
                dst.put(chunk.buffer().slice(0, (int) n));
                return (int) n;
            }
            int errno = Native.errno();
            if (errno != Native.EINTR) {
                throw new NativeException("pread(" + fd + ")", errno);
            }
        }
    }
}
