package m0.bench;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.LastError;
import com.kenai.jffi.Library;
import com.kenai.jffi.MemoryIO;
import com.kenai.jffi.Type;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * ADR 0048's question, asked of a JVM: what does a keep-alive hello cost per request when a
 * Java loop drives io_uring the way {@code prod-server/bench/floor/hello.c} does, through jffi
 * as m0serve binds libc (docs/adr/0028)? One ring per loop thread, set up
 * SINGLE_ISSUER | DEFER_TASKRUN (completions are posted only inside this thread's
 * {@code io_uring_enter}, so the kernel never writes the rings while Java reads them); a
 * multishot accept on the shared listener; per connection one recv in flight, and for each
 * request head it completes a send of the answer submitted with the next recv, one
 * {@code io_uring_enter} a batch. No parser beyond counting ends of heads: the floor, not a server.
 *
 * <pre>java -cp bench/target/benchmarks.jar m0.bench.UringHello HOST:PORT [THREADS=1]</pre>
 *
 * Prints {@code listening on HOST:PORT} once bound. x86_64 Linux 6.1 or later.
 */
public final class UringHello {

    private static final Invoker INVOKE = Invoker.getInstance();
    private static final MemoryIO IO = MemoryIO.getInstance();
    private static final Library C = Library.getCachedInstance("libc.so.6", Library.LAZY | Library.LOCAL);
    /** {@code long syscall(long nr, ...)} with five arguments; io_uring_enter's sixth (argsz) is read only with a sigmask. */
    private static final CallContext SYSCALL5 = CallContext.getCallContext(Type.SINT64,
            new Type[] {Type.SINT64, Type.SINT64, Type.SINT64, Type.SINT64, Type.SINT64, Type.SINT64},
            CallingConvention.DEFAULT, true);
    private static final long SYSCALL = C.getSymbolAddress("syscall");
    private static final CallContext MMAP_CTX = CallContext.getCallContext(Type.POINTER,
            new Type[] {Type.POINTER, Type.SINT64, Type.SINT32, Type.SINT32, Type.SINT32, Type.SINT64},
            CallingConvention.DEFAULT, true);
    private static final long MMAP = C.getSymbolAddress("mmap");
    private static final long NR_SOCKET = 41, NR_SETSOCKOPT = 54, NR_BIND = 49, NR_LISTEN = 50;
    private static final long NR_IO_URING_SETUP = 425, NR_IO_URING_ENTER = 426;

    /*
     * struct io_uring_params (120 bytes):
     *   0 sq_entries  4 cq_entries  8 flags  12 sq_thread_cpu  16 sq_thread_idle  20 features
     *  24 wq_fd  28 resv[3]  40 sq_off (io_sqring_offsets, 40 bytes)  80 cq_off (40 bytes)
     * io_sqring_offsets: 0 head 4 tail 8 ring_mask 12 ring_entries 16 flags 20 dropped 24 array
     * io_cqring_offsets: 0 head 4 tail 8 ring_mask 12 ring_entries 16 overflow 20 cqes 24 flags
     */
    private static final int PARAMS_BYTES = 120;
    private static final int P_SQ_ENTRIES = 0, P_CQ_ENTRIES = 4, P_FLAGS = 8, P_FEATURES = 20, P_SQ_OFF = 40, P_CQ_OFF = 80;
    private static final int OFF_HEAD = 0, OFF_TAIL = 4, OFF_RING_MASK = 8, SQ_OFF_ARRAY = 24, CQ_OFF_CQES = 20;
    private static final int SETUP_SINGLE_ISSUER = 1 << 12, SETUP_DEFER_TASKRUN = 1 << 13;
    private static final int FEAT_SINGLE_MMAP = 1;
    private static final long OFF_SQ_RING = 0L, OFF_CQ_RING = 0x8000000L, OFF_SQES = 0x10000000L;
    private static final int ENTER_GETEVENTS = 1;

    /* struct io_uring_sqe (64 bytes): 0 opcode 1 flags 2 ioprio 4 fd 8 off 16 addr 24 len 28 op_flags 32 user_data */
    private static final int SQE_BYTES = 64;
    private static final int SQE_OPCODE = 0, SQE_FLAGS = 1, SQE_IOPRIO = 2, SQE_FD = 4, SQE_ADDR = 16, SQE_LEN = 24,
            SQE_USER_DATA = 32;
    private static final byte OP_ACCEPT = 13, OP_SEND = 26, OP_RECV = 27;
    private static final byte SQE_CQE_SKIP_SUCCESS = 1 << 6;
    private static final short ACCEPT_MULTISHOT = 1;
    /* struct io_uring_cqe (16 bytes): 0 user_data 8 res 12 flags */
    private static final int CQE_BYTES = 16, CQE_RES = 8, CQE_FLAGS = 12;
    private static final int CQE_F_MORE = 1 << 1;

    private static final long TAG_ACCEPT = 1L << 32, TAG_RECV = 2L << 32, TAG_SEND = 3L << 32;
    private static final int ENTRIES = 1024;
    private static final int MAX_FD = 65536;
    private static final int BUF = 4096;
    private static final VarHandle INTS = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());

    private UringHello() {
    }

    private static long syscall(long nr, long a, long b, long c, long d, long e) {
        return INVOKE.invokeL6(SYSCALL5, SYSCALL, nr, a, b, c, d, e);
    }

    private static long sys(long nr, long a, long b, long c, long d, long e, String what) {
        return check(syscall(nr, a, b, c, d, e), what);
    }

    private static long check(long r, String what) {
        if (r == -1) {
            throw new IllegalStateException(what + ": errno " + LastError.getInstance().get());
        }
        return r;
    }

    private static long mmap(long bytes, int ring, long offset, String what) {
        return check(INVOKE.invokeL6(MMAP_CTX, MMAP, 0, bytes, 3 /* PROT_READ|WRITE */, 0x8001 /* MAP_SHARED|POPULATE */,
                ring, offset), what);
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length < 1 || !args[0].contains(":")) {
            System.err.println("usage: UringHello HOST:PORT [THREADS]");
            System.exit(2);
        }
        int colon = args[0].lastIndexOf(':');
        String host = args[0].substring(0, colon);
        int port = Integer.parseInt(args[0].substring(colon + 1));
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        int listener = listen(host, port);
        byte[] body = (ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII);
        byte[] answer = ("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " + body.length
                + "\r\nConnection: keep-alive\r\n\r\n" + new String(body, StandardCharsets.US_ASCII))
                .getBytes(StandardCharsets.US_ASCII);
        Thread[] loops = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            loops[i] = new Thread(() -> new Loop(listener, answer).run(), "uring-" + i);
            loops[i].start();
        }
        System.out.println("listening on " + args[0] + " (io_uring, " + threads + " threads)");
        for (Thread t : loops) {
            t.join();
        }
    }

    private static int listen(String host, int port) {
        int fd = (int) sys(NR_SOCKET, 2 /* AF_INET */, 1 /* SOCK_STREAM */, 0, 0, 0, "socket");
        long one = IO.allocateMemory(4, true);
        IO.putInt(one, 1);
        sys(NR_SETSOCKOPT, fd, 1 /* SOL_SOCKET */, 2 /* SO_REUSEADDR */, one, 4, "setsockopt");
        long sa = IO.allocateMemory(16, true);
        IO.putShort(sa, (short) 2);
        IO.putByte(sa + 2, (byte) (port >> 8));
        IO.putByte(sa + 3, (byte) port);
        String[] q = host.split("\\.");
        for (int i = 0; i < 4; i++) {
            IO.putByte(sa + 4 + i, (byte) Integer.parseInt(q[i]));
        }
        sys(NR_BIND, fd, sa, 16, 0, 0, "bind " + host + ":" + port);
        sys(NR_LISTEN, fd, 4096, 0, 0, 0, "listen");
        return fd;
    }

    /** One loop thread and its ring. */
    private static final class Loop {
        private final int listener;
        private final long answer;
        private final int answerBytes;
        private final int ring;
        private final long sqes;
        private final ByteBuffer sqRing;
        private final ByteBuffer cqRing;
        private final long cqRingAddress;
        private final int sqHeadAt, sqTailAt, sqMask, cqHeadAt, cqTailAt, cqMask, cqesAt;
        private int sqTail;
        private int submitted;
        private final long[] buffers = new long[MAX_FD];
        private final byte[] scan = new byte[BUF];

        Loop(int listener, byte[] answer) {
            this.listener = listener;
            this.answerBytes = answer.length;
            this.answer = IO.allocateMemory(answer.length, false);
            IO.putByteArray(this.answer, answer, 0, answer.length);
            long p = IO.allocateMemory(PARAMS_BYTES, true);
            IO.putInt(p + P_FLAGS, SETUP_SINGLE_ISSUER | SETUP_DEFER_TASKRUN);
            this.ring = (int) sys(NR_IO_URING_SETUP, ENTRIES, p, 0, 0, 0, "io_uring_setup");
            if ((IO.getInt(p + P_FEATURES) & FEAT_SINGLE_MMAP) == 0) {
                throw new IllegalStateException("io_uring without FEAT_SINGLE_MMAP (kernel before 5.4)");
            }
            int sqEntries = IO.getInt(p + P_SQ_ENTRIES);
            int cqEntries = IO.getInt(p + P_CQ_ENTRIES);
            int sqArray = IO.getInt(p + P_SQ_OFF + SQ_OFF_ARRAY);
            this.cqesAt = IO.getInt(p + P_CQ_OFF + CQ_OFF_CQES);
            int ringBytes = Math.max(sqArray + sqEntries * 4, cqesAt + cqEntries * CQE_BYTES);
            long rings = mmap(ringBytes, ring, OFF_SQ_RING, "mmap rings");
            this.sqes = mmap((long) sqEntries * SQE_BYTES, ring, OFF_SQES, "mmap sqes");
            this.sqRing = IO.newDirectByteBuffer(rings, ringBytes).order(ByteOrder.nativeOrder());
            this.cqRing = sqRing; // one mapping (FEAT_SINGLE_MMAP)
            this.cqRingAddress = rings;
            this.sqHeadAt = IO.getInt(p + P_SQ_OFF + OFF_HEAD);
            this.sqTailAt = IO.getInt(p + P_SQ_OFF + OFF_TAIL);
            this.sqMask = IO.getInt(rings + IO.getInt(p + P_SQ_OFF + OFF_RING_MASK));
            this.cqHeadAt = IO.getInt(p + P_CQ_OFF + OFF_HEAD);
            this.cqTailAt = IO.getInt(p + P_CQ_OFF + OFF_TAIL);
            this.cqMask = IO.getInt(rings + IO.getInt(p + P_CQ_OFF + OFF_RING_MASK));
            for (int i = 0; i < sqEntries; i++) { // the SQE at index i is always submitted from slot i
                IO.putInt(rings + sqArray + 4L * i, i);
            }
            this.sqTail = (int) INTS.getAcquire(sqRing, sqTailAt);
            this.submitted = sqTail;
        }

        /** The next free SQE, zeroed; submits what is queued first when the ring is full. */
        private long sqe() {
            if (sqTail - (int) INTS.getAcquire(sqRing, sqHeadAt) == sqMask + 1) {
                enter(0);
            }
            long s = sqes + (long) (sqTail & sqMask) * SQE_BYTES;
            IO.setMemory(s, SQE_BYTES, (byte) 0);
            sqTail++;
            return s;
        }

        private void prep(long s, byte op, int fd, long addr, int len, long userData) {
            IO.putByte(s + SQE_OPCODE, op);
            IO.putInt(s + SQE_FD, fd);
            IO.putLong(s + SQE_ADDR, addr);
            IO.putInt(s + SQE_LEN, len);
            IO.putLong(s + SQE_USER_DATA, userData);
        }

        private void acceptMany() {
            long s = sqe();
            prep(s, OP_ACCEPT, listener, 0, 0, TAG_ACCEPT);
            IO.putShort(s + SQE_IOPRIO, ACCEPT_MULTISHOT);
        }

        private void recv(int fd) {
            prep(sqe(), OP_RECV, fd, buffers[fd], BUF, TAG_RECV | fd);
        }

        /** Publishes the queued SQEs (release: the kernel reads them after the tail) and enters. */
        private void enter(int minComplete) {
            INTS.setRelease(sqRing, sqTailAt, sqTail);
            int toSubmit = sqTail - submitted;
            submitted = sqTail;
            syscall(NR_IO_URING_ENTER, ring, toSubmit, minComplete, minComplete > 0 ? ENTER_GETEVENTS : 0, 0);
        }

        void run() {
            acceptMany();
            for (;;) {
                enter(1);
                int head = (int) INTS.getAcquire(cqRing, cqHeadAt);
                int tail = (int) INTS.getAcquire(cqRing, cqTailAt);
                for (; head != tail; head++) {
                    long cqe = cqRingAddress + cqesAt + (long) (head & cqMask) * CQE_BYTES;
                    complete(IO.getLong(cqe), IO.getInt(cqe + CQE_RES), IO.getInt(cqe + CQE_FLAGS));
                }
                INTS.setRelease(cqRing, cqHeadAt, head);
            }
        }

        private void complete(long userData, int res, int flags) {
            long tag = userData & ~0xffffffffL;
            int fd = (int) userData;
            if (tag == TAG_ACCEPT) {
                if (res >= 0 && res < MAX_FD) {
                    long one = scratchOne();
                    syscall(NR_SETSOCKOPT, res, 6 /* IPPROTO_TCP */, 1 /* TCP_NODELAY */, one, 4);
                    if (buffers[res] == 0) {
                        buffers[res] = IO.allocateMemory(BUF, false);
                    }
                    recv(res);
                }
                if ((flags & CQE_F_MORE) == 0) {
                    acceptMany();
                }
            } else if (tag == TAG_RECV) {
                if (res <= 0) {
                    syscall(3 /* close */, fd, 0, 0, 0, 0);
                    return;
                }
                IO.getByteArray(buffers[fd], scan, 0, res);
                for (int k = heads(scan, res); k > 0; k--) {
                    long s = sqe();
                    prep(s, OP_SEND, fd, answer, answerBytes, TAG_SEND | fd);
                    IO.putByte(s + SQE_FLAGS, SQE_CQE_SKIP_SUCCESS);
                }
                recv(fd);
            }
            // TAG_SEND: only a failed send completes (CQE_SKIP_SUCCESS); its recv sees the close
        }

        private long one;

        private long scratchOne() {
            if (one == 0) {
                one = IO.allocateMemory(4, false);
                IO.putInt(one, 1);
            }
            return one;
        }

        private static int heads(byte[] b, int n) {
            int k = 0;
            for (int i = 3; i < n; i++) {
                if (b[i] == '\n' && b[i - 1] == '\r' && b[i - 2] == '\n' && b[i - 3] == '\r') {
                    k++;
                }
            }
            return k;
        }
    }
}
