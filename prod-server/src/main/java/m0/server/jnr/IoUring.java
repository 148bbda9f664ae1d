package m0.server.jnr;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * An io_uring instance for a pass's sends (docs/adr/0049): a send, from a buffer the caller keeps
 * until its completion, and a call that submits what is queued and waits for a count of
 * completions. Set up {@code SINGLE_ISSUER | DEFER_TASKRUN} (Linux 6.1): the kernel posts
 * completions only inside this thread's {@link #complete}, which is also what ADR 0048 measured
 * to pay. A one-shot poll, a cancel and a timed wait (the wait in the ring) were built and left on
 * the branch {@code ring-wait} (docs/adr/0050). Not thread-safe: one loop owns it, and the thread
 * that opens it is the only one that may submit.
 *
 * <pre>
 * The rings, one mapping (FEAT_SINGLE_MMAP), offsets from io_uring_params:
 *   sq_off.head  sq_off.tail  sq_off.ring_mask  sq_off.array[entries] (u32: the SQE index)
 *   cq_off.head  cq_off.tail  cq_off.ring_mask  cq_off.cqes[cq_entries]
 * struct io_uring_sqe, 64 bytes, a second mapping at IORING_OFF_SQES:
 *    0 opcode u8 | 1 flags u8 | 2 ioprio u16 | 4 fd s32 | 8 off u64: zero here
 *   16 addr u64 (SEND: the bytes) | 24 len u32 | 28 op_flags u32 (SEND: msg_flags) | 32 user_data u64
 *   40..63 buf_index, personality, file_index, addr3: zero here
 * struct io_uring_cqe, 16 bytes: 0 user_data u64 | 8 res s32 | 12 flags u32
 * </pre>
 *
 * Ordering: the kernel reads the SQ tail and writes the CQ tail only inside {@code io_uring_enter}
 * on this thread (no SQPOLL, DEFER_TASKRUN), so the system call orders them; the release store of
 * the SQ tail and the acquire loads of the CQ tail say so where the reader looks, as liburing does.
 */
public final class IoUring implements AutoCloseable {

    /** A send with {@link #DONTWAIT} to a full socket (-EAGAIN). */
    public static final int EAGAIN = Native.EAGAIN;
    /** A send's flag: complete at once, with -EAGAIN where the socket is full, instead of waiting for room. */
    public static final int DONTWAIT = 0x40;

    private static final long NR_IO_URING_SETUP = 425;
    private static final long NR_IO_URING_ENTER = 426;

    private static final int PARAMS_BYTES = 120;
    private static final int P_SQ_ENTRIES = 0;
    private static final int P_CQ_ENTRIES = 4;
    private static final int P_FLAGS = 8;
    private static final int P_FEATURES = 20;
    private static final int P_SQ_OFF = 40;
    private static final int P_CQ_OFF = 80;
    private static final int RING_HEAD = 0;
    private static final int RING_TAIL = 4;
    private static final int RING_MASK = 8;
    private static final int SQ_ARRAY = 24;
    private static final int CQ_CQES = 20;

    private static final int SETUP_SINGLE_ISSUER = 1 << 12;
    private static final int SETUP_DEFER_TASKRUN = 1 << 13;
    private static final int FEAT_SINGLE_MMAP = 1;
    private static final long OFF_SQ_RING = 0L;
    private static final long OFF_SQES = 0x10000000L;
    private static final int ENTER_GETEVENTS = 1;

    private static final int SQE_BYTES = 64;
    private static final int SQE_OPCODE = 0;
    private static final int SQE_FD = 4;
    private static final int SQE_ADDR = 16;
    private static final int SQE_LEN = 24;
    private static final int SQE_OP_FLAGS = 28;
    private static final int SQE_USER_DATA = 32;
    private static final byte OP_SEND = 26;
    private static final int MSG_NOSIGNAL = 0x4000;

    private static final int CQE_BYTES = 16;
    private static final int CQE_RES = 8;
    private static final int CQE_FLAGS = 12;

    private static final int PROT_READ_WRITE = 3;
    private static final int MAP_SHARED_POPULATE = 0x8001;
    /** io_uring_enter's "completions are waiting to be reaped" (a full CQ on older kernels): reap and go on. */
    private static final int EBUSY = 16;
    /** Calls that may each take nothing from a full queue (EINTR, EAGAIN) before the ring is given up. */
    private static final int FULL_QUEUE_TRIES = 3;

    private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());

    private final int fd;
    private final long rings;
    private final int ringBytes;
    private final long sqes;
    private final int sqesBytes;
    private final ByteBuffer ring;
    private final ByteBuffer sqe;
    private final int sqHead;
    private final int sqTail;
    private final int sqMask;
    private final int cqHead;
    private final int cqTail;
    private final int cqMask;
    private final int cqes;
    /** The SQ tail: SQEs queued here; the kernel's head says how many it has taken. */
    private int tail;
    /** The last call's completions, copied out so the ring's slots free at once. */
    private long[] userData;
    private int[] results;
    private int[] flags;
    private int ready;

    private IoUring(int fd, Memory params) {
        this.fd = fd;
        ByteBuffer p = params.buffer();
        if ((p.getInt(P_FEATURES) & FEAT_SINGLE_MMAP) == 0) { // 5.4; DEFER_TASKRUN already asked 6.1
            Fds.close(fd);
            throw new IllegalStateException("io_uring without FEAT_SINGLE_MMAP");
        }
        int sqEntries = p.getInt(P_SQ_ENTRIES);
        int cqEntries = p.getInt(P_CQ_ENTRIES);
        int sqArray = p.getInt(P_SQ_OFF + SQ_ARRAY);
        this.cqes = p.getInt(P_CQ_OFF + CQ_CQES);
        this.ringBytes = Math.max(sqArray + sqEntries * 4, cqes + cqEntries * CQE_BYTES);
        this.sqesBytes = sqEntries * SQE_BYTES;
        this.rings = map(ringBytes, OFF_SQ_RING);
        this.sqes = map(sqesBytes, OFF_SQES);
        this.ring = LibC.view(rings, ringBytes).order(ByteOrder.nativeOrder());
        this.sqe = LibC.view(sqes, sqesBytes).order(ByteOrder.nativeOrder());
        this.sqHead = p.getInt(P_SQ_OFF + RING_HEAD);
        this.sqTail = p.getInt(P_SQ_OFF + RING_TAIL);
        this.sqMask = ring.getInt(p.getInt(P_SQ_OFF + RING_MASK));
        this.cqHead = p.getInt(P_CQ_OFF + RING_HEAD);
        this.cqTail = p.getInt(P_CQ_OFF + RING_TAIL);
        this.cqMask = ring.getInt(p.getInt(P_CQ_OFF + RING_MASK));
        for (int i = 0; i < sqEntries; i++) {
            ring.putInt(sqArray + 4 * i, i); // slot i always names SQE i: SQEs are used in ring order
        }
        this.tail = (int) INT.getAcquire(ring, sqTail);
        this.userData = new long[cqEntries];
        this.results = new int[cqEntries];
        this.flags = new int[cqEntries];
    }

    /**
     * A ring of {@code entries} submissions (a power of two; completions twice as many).
     *
     * @throws NativeException where the kernel refuses it: ENOSYS (before 5.1, or a seccomp
     *         filter such as Docker's default), EPERM ({@code kernel.io_uring_disabled}), EINVAL
     *         (before 6.1: no DEFER_TASKRUN)
     */
    public static IoUring open(int entries) {
        Memory params = new Memory(PARAMS_BYTES);
        params.buffer().putInt(P_FLAGS, SETUP_SINGLE_ISSUER | SETUP_DEFER_TASKRUN);
        long fd = Native.libc().syscall(NR_IO_URING_SETUP, entries, params.address(), 0, 0, 0);
        if (fd < 0) {
            throw Native.fail("io_uring_setup(" + entries + ", SINGLE_ISSUER|DEFER_TASKRUN)");
        }
        return new IoUring((int) fd, params);
    }

    /**
     * Null where this kernel gives a ring, else its refusal (before 6.1, a seccomp filter,
     * {@code kernel.io_uring_disabled}): a worker then writes with write(2) (docs/adr/0049).
     */
    public static String refusal() {
        try {
            open(2).close();
            return null;
        } catch (NativeException | IllegalStateException e) {
            return e.getMessage();
        }
    }

    private long map(int bytes, long offset) {
        long at = Native.libc().mmap(0, bytes, PROT_READ_WRITE, MAP_SHARED_POPULATE, fd, offset);
        if (at == -1) {
            NativeException e = Native.fail("mmap(io_uring " + fd + ", " + Long.toHexString(offset) + ")");
            Fds.close(fd);
            throw e;
        }
        return at;
    }

    /**
     * Sends {@code length} bytes at {@code address}, which stay the caller's to keep until this
     * completes (res: bytes sent). {@code flags}: 0 or {@link #DONTWAIT}, with MSG_MORE for a head a file follows; MSG_NOSIGNAL is always on.
     */
    public void send(int target, long address, int length, int flags, long tag) {
        int at = next(OP_SEND, target, tag);
        sqe.putLong(at + SQE_ADDR, address);
        sqe.putInt(at + SQE_LEN, length);
        sqe.putInt(at + SQE_OP_FLAGS, flags | MSG_NOSIGNAL);
    }

    /** A zeroed SQE at the local tail, its common fields set; submits the queue first if it is full. */
    private int next(byte opcode, int target, long tag) {
        for (int tries = 0; tail - (int) INT.getAcquire(ring, sqHead) > sqMask; tries++) {
            if (tries == FULL_QUEUE_TRIES) { // the kernel took none of a full queue, again and again
                throw new NativeException("io_uring_enter(" + fd + "): the submission queue stays full", Native.EAGAIN);
            }
            enter(0, 0);
        }
        int at = (tail & sqMask) * SQE_BYTES;
        tail++;
        for (int i = 0; i < SQE_BYTES; i += 8) {
            sqe.putLong(at + i, 0L);
        }
        sqe.put(at + SQE_OPCODE, opcode);
        sqe.putInt(at + SQE_FD, target);
        sqe.putLong(at + SQE_USER_DATA, tag);
        return at;
    }

    /**
     * Submits what is queued and waits for {@code count} completions: for operations that
     * complete at once ({@link #DONTWAIT} sends), so the caller has their results within its pass.
     *
     * @return how many completions there are; read them with {@link #tag}, {@link #result} and
     *         {@link #flags} until the next call
     */
    public int complete(int count) {
        enter(count, ENTER_GETEVENTS);
        return reap();
    }

    private void enter(int minComplete, int enterFlags) {
        INT.setRelease(ring, sqTail, tail);
        // Everything published the kernel has not taken: a call that EINTR or EAGAIN cut short
        // leaves some in the queue, and the next call submits them.
        int toSubmit = tail - (int) INT.getAcquire(ring, sqHead);
        long r = Native.libc().syscall(NR_IO_URING_ENTER, fd, toSubmit, minComplete, enterFlags, 0);
        if (r < 0) {
            int errno = Native.errno();
            if (errno != Native.EINTR && errno != Native.EAGAIN && errno != EBUSY) {
                throw new NativeException("io_uring_enter(" + fd + ")", errno);
            }
        }
    }

    /** Copies the completions out and frees their slots. */
    private int reap() {
        int head = (int) INT.getAcquire(ring, cqHead);
        int end = (int) INT.getAcquire(ring, cqTail);
        int n = 0;
        for (; head != end; head++) {
            int at = cqes + (head & cqMask) * CQE_BYTES;
            userData[n] = ring.getLong(at);
            results[n] = ring.getInt(at + CQE_RES);
            flags[n] = ring.getInt(at + CQE_FLAGS);
            n++;
        }
        INT.setRelease(ring, cqHead, head);
        ready = n;
        return n;
    }

    public long tag(int i) {
        check(i);
        return userData[i];
    }

    /** The operation's result: what its system call would return, or minus its errno. */
    public int result(int i) {
        check(i);
        return results[i];
    }

    public int flags(int i) {
        check(i);
        return flags[i];
    }

    private void check(int i) {
        if (i < 0 || i >= ready) {
            throw new IndexOutOfBoundsException(i + " of " + ready + " completions");
        }
    }

    public int fd() {
        return fd;
    }

    /** Unmaps the rings and closes the instance; what was in flight is cancelled by the kernel. */
    @Override
    public void close() {
        Native.libc().munmap(sqes, sqesBytes);
        Native.libc().munmap(rings, ringBytes);
        Fds.close(fd);
    }
}
