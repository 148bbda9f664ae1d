package m0.server.jnr;

import java.nio.ByteBuffer;

/**
 * An epoll set. {@code struct epoll_event} is PACKED on x86_64: 12 bytes, {@code events}@0
 * (u32), {@code data}@4 (u64). jnr-ffi's Struct would lay it out as 16 bytes with data@8, so
 * this writes explicit offsets over preallocated memory. Not thread-safe: one loop owns it.
 */
public final class Epoll implements AutoCloseable {

    public static final int IN = 0x001;
    public static final int OUT = 0x004;
    public static final int ERR = 0x008;
    public static final int HUP = 0x010;
    public static final int RDHUP = 0x2000;
    /**
     * EPOLLEXCLUSIVE (Linux 4.5): one new readiness of the target wakes one epoll with a thread
     * blocked on it, not every epoll that holds the target. Only at EPOLL_CTL_ADD, only with
     * IN/OUT/ERR/HUP/ET/WAKEUP (RDHUP is refused), and EPOLL_CTL_MOD of such a registration
     * fails with EINVAL: take it out with DEL and put it back with ADD.
     */
    public static final int EXCLUSIVE = 1 << 28;

    private static final int EVENT_BYTES = 12;
    private static final int EVENTS_OFFSET = 0;
    private static final int DATA_OFFSET = 4;
    private static final int CTL_ADD = 1;
    private static final int CTL_DEL = 2;
    private static final int CTL_MOD = 3;

    private final int fd;
    private final Memory ctl = new Memory(16);
    /** A {@code struct timespec} for {@link #awaitNanos}: tv_sec@0, tv_nsec@8. */
    private final Memory timespec = new Memory(16);
    private final Memory ready;
    private final ByteBuffer readyBuffer;
    private final int maxEvents;
    /** {@link #awaitNanos} waits with epoll_pwait2; else with epoll_wait, whole milliseconds (docs/adr/0060). */
    private final boolean pwait2 = NativePaths.current().pwait2();

    public Epoll(int maxEvents) {
        this.fd = Native.check("epoll_create1(EPOLL_CLOEXEC)", Native.libc().epoll_create1(Native.EPOLL_CLOEXEC));
        this.maxEvents = maxEvents;
        this.ready = new Memory(EVENT_BYTES * maxEvents);
        this.readyBuffer = ready.buffer();
    }

    /** Watches {@code target} for {@code events}; {@code data} comes back with each readiness. */
    public void add(int target, int events, long data) {
        control(CTL_ADD, target, events, data, "EPOLL_CTL_ADD");
    }

    public void modify(int target, int events, long data) {
        control(CTL_MOD, target, events, data, "EPOLL_CTL_MOD");
    }

    /** Stops watching {@code target} (closing it also does, once every copy is closed). */
    public void delete(int target) {
        control(CTL_DEL, target, 0, 0, "EPOLL_CTL_DEL");
    }

    /** EPOLL_CTL_DEL, errors ignored: for a descriptor about to be closed anyway. */
    public void deleteQuietly(int target) {
        ctl(CTL_DEL, target, 0, 0);
    }

    private void control(int op, int target, int events, long data, String name) {
        Native.check("epoll_ctl(" + name + ", " + target + ")", ctl(op, target, events, data));
    }

    private int ctl(int op, int target, int events, long data) {
        ByteBuffer b = ctl.buffer();
        b.putInt(EVENTS_OFFSET, events);
        b.putLong(DATA_OFFSET, data);
        return Native.libc().epoll_ctl(fd, op, target, ctl.address());
    }

    /**
     * Waits up to {@code timeoutMillis} (-1: forever) for readiness.
     *
     * @return how many events are ready (0 on timeout or EINTR); read them with
     *         {@link #events(int)} and {@link #data(int)}
     */
    public int await(int timeoutMillis) {
        return ready(Native.libc().epoll_wait(fd, ready.address(), maxEvents, timeoutMillis), "epoll_wait");
    }

    /**
     * Waits up to {@code timeoutNanos} (negative: forever) for readiness, to the nanosecond
     * (epoll_pwait2; the kernel's timer slack, 50 µs by default, still applies): a deadline
     * 1 ms away is kept, where epoll_wait's milliseconds would round it to 1–2 ms. Where
     * epoll_pwait2 is missing ({@link NativePaths}), epoll_wait with the timeout rounded up to
     * the millisecond ({@link #millisFor}): a timer is seen late by under a millisecond, never early.
     *
     * @return as {@link #await(int)}
     */
    public int awaitNanos(long timeoutNanos) {
        if (!pwait2) {
            return ready(Native.libc().epoll_wait(fd, ready.address(), maxEvents, millisFor(timeoutNanos)), "epoll_wait");
        }
        long ts = 0; // NULL: no timeout
        if (timeoutNanos >= 0) {
            ByteBuffer b = timespec.buffer();
            b.putLong(0, timeoutNanos / 1_000_000_000L);
            b.putLong(8, timeoutNanos % 1_000_000_000L);
            ts = timespec.address();
        }
        return ready(Native.libc().epoll_pwait2(fd, ready.address(), maxEvents, ts, 0, 8), "epoll_pwait2");
    }

    /**
     * epoll_wait's timeout for a wait of {@code timeoutNanos}: -1 (forever) for a negative one, 0
     * for 0, else the milliseconds rounded up, so a positive wait never becomes a poll that
     * returns at once (the loop would spin until its timer's millisecond is over).
     */
    static int millisFor(long timeoutNanos) {
        if (timeoutNanos <= 0) {
            return timeoutNanos == 0 ? 0 : -1;
        }
        long ms = timeoutNanos / 1_000_000L + (timeoutNanos % 1_000_000L == 0 ? 0 : 1);
        return (int) Math.min(ms, Integer.MAX_VALUE);
    }

    /** A wait's result: the events ready, 0 on EINTR (a signal: the caller's next pass looks). */
    private int ready(int n, String call) {
        if (n < 0) {
            int errno = Native.errno();
            if (errno == Native.EINTR) {
                return 0;
            }
            throw new NativeException(call + "(" + fd + ")", errno);
        }
        return n;
    }

    public int events(int i) {
        return readyBuffer.getInt(i * EVENT_BYTES + EVENTS_OFFSET);
    }

    public long data(int i) {
        return readyBuffer.getLong(i * EVENT_BYTES + DATA_OFFSET);
    }

    public int fd() {
        return fd;
    }

    @Override
    public void close() {
        Fds.close(fd);
    }
}
