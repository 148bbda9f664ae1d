package m0.server.jnr;

/** clock_gettime(2); {@code timespec} is 16 bytes: seconds@0, nanoseconds@8. */
public final class Clocks {

    private static final ThreadLocal<Memory> TIMESPEC = ThreadLocal.withInitial(() -> new Memory(16));

    private Clocks() {
    }

    /** CLOCK_MONOTONIC in microseconds: systemd's {@code MONOTONIC_USEC=} is on this clock. */
    public static long monotonicMicros() {
        Memory m = TIMESPEC.get();
        Native.check("clock_gettime(CLOCK_MONOTONIC)", Native.libc().clock_gettime(Native.CLOCK_MONOTONIC, m.address()));
        return m.buffer().getLong(0) * 1_000_000L + m.buffer().getLong(8) / 1_000L;
    }
}
