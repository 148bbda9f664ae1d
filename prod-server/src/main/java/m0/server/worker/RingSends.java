package m0.server.worker;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.Consumer;
import m0.server.jnr.IoUring;
import m0.server.jnr.Memory;
import m0.server.jnr.Native;
import m0.server.jnr.NativeException;

/**
 * A pass's answers, sent through io_uring in one system call at the pass's end instead of a
 * write(2) each as they are made (docs/adr/0049). Each send is {@link IoUring#DONTWAIT}: it
 * completes within that call, with its count or EAGAIN, so the connection's state is settled
 * within the pass as after a write(2), and no bytes stay in flight past it.
 *
 * <p>The bytes are copied into {@link #arena} for the call; nothing else writes there until every
 * send has completed. Not thread-safe: the loop's.
 */
final class RingSends {

    /** Sends in one call at most; the ring's submission queue, and half its completions. */
    static final int BATCH = 256;
    /** The bytes of one call's sends at most: four full chunks, or some thousands of small answers. */
    static final int ARENA_BYTES = 4 * ConnectionIo.IO_BYTES;

    private final IoUring ring;
    private final Consumer<String> log;
    /** The ring failed once: the worker writes with write(2) from then on. */
    private boolean broken;
    private final Memory arena = new Memory(ARENA_BYTES);
    private final ByteBuffer arenaBuffer = arena.buffer();
    /** The connections whose answers wait for the next round of sends, in no particular order. */
    private Connection[] due = new Connection[64];
    private int dueCount;
    /** The round being sent: what was due when it began (a connection due again waits for the next). */
    private Connection[] round = new Connection[64];
    private int roundCount;
    /** The call being built: its connections and their bytes in the arena; its length is the call's most sends. */
    private final Connection[] batch;
    private final int[] lengths;
    private int batchCount;
    private int arenaUsed;
    /** Sends made (a chunk of an answer each) and the calls that submitted them, for the worker's counters. */
    private long sendCount;
    private long callCount;

    /** Over {@code ring}, which it owns from now on; {@link #open} in production. */
    RingSends(IoUring ring, Consumer<String> log) {
        this(ring, BATCH, log);
    }

    /**
     * At most {@code sendsPerCall} sends a call, 1 to {@link #BATCH} (production's, its ring's
     * queue; a smaller ring submits when its queue is full): a test's small call is full after a
     * connection or two, where production's needs 256 of them.
     */
    RingSends(IoUring ring, int sendsPerCall, Consumer<String> log) {
        if (sendsPerCall < 1 || sendsPerCall > BATCH) {
            throw new IllegalArgumentException("sends per call: " + sendsPerCall);
        }
        this.ring = ring;
        this.log = log;
        this.batch = new Connection[sendsPerCall];
        this.lengths = new int[sendsPerCall];
    }

    /**
     * A ring for this worker's sends, or null where the kernel refuses one (before 6.1, a seccomp
     * filter, {@code kernel.io_uring_disabled}): the worker then writes with write(2), said once.
     */
    static RingSends open(Consumer<String> log) {
        try {
            return new RingSends(IoUring.open(BATCH), log);
        } catch (NativeException | IllegalStateException e) {
            log.accept("answers are written with write(2), one a system call: no io_uring (" + e.getMessage() + ")");
            return null;
        }
    }

    void resetCounts() {
        sendCount = 0;
        callCount = 0;
    }

    long sendCount() {
        return sendCount;
    }

    long callCount() {
        return callCount;
    }

    /** False once the ring has failed: answers go with write(2). */
    boolean usable() {
        return !broken;
    }

    /** {@code c} has output for the pass's end; once, however often it asks. */
    void due(Connection c) {
        if (c.sendDue) {
            return;
        }
        c.sendDue = true;
        if (dueCount == due.length) {
            due = Arrays.copyOf(due, dueCount * 2);
        }
        due[dueCount++] = c;
    }

    boolean hasDue() {
        return dueCount > 0;
    }

    /** Begins a round with every connection due now; they are no longer due. */
    void beginRound() {
        Connection[] r = round;
        round = due;
        roundCount = dueCount;
        due = r;
        dueCount = 0;
        for (int i = 0; i < roundCount; i++) {
            round[i].sendDue = false;
        }
    }

    /** The round's next connection; null when the round has none left. */
    Connection nextInRound() {
        if (roundCount == 0) {
            return null;
        }
        Connection c = round[--roundCount];
        round[roundCount] = null;
        return c;
    }

    /** Whether the call being built can take {@code length} more bytes and one more send. */
    boolean fits(int length) {
        return batchCount < batch.length && arenaUsed + length <= ARENA_BYTES;
    }

    /** Copies {@code length} bytes of {@code output} from its position and queues their send to {@code c}. */
    void add(Connection c, ByteBuffer output, int length) {
        add(c, output, length, 0);
    }

    /** The same with more send flags ({@code MSG_MORE} for a file answer's head, ADR 0071). */
    void add(Connection c, ByteBuffer output, int length, int flags) {
        arenaBuffer.put(arenaUsed, output, output.position(), length);
        ring.send(c.fd, arena.address(arenaUsed), length, IoUring.DONTWAIT | flags, batchCount);
        arenaUsed += length;
        sendCount++;
        batch[batchCount] = c;
        lengths[batchCount] = length;
        batchCount++;
    }

    /**
     * Sends the call built, and hands each send's result to {@code result}: the bytes sent, -1
     * where the socket was full, or minus the errno that failed it.
     */
    void send(Result result) {
        if (batchCount > 0) {
            callCount++; // one call submits them (a wait a signal cut short goes on without submitting)
        }
        for (int left = batchCount; left > 0; ) { // a signal can end the wait before every result
            int n;
            try {
                n = ring.complete(left);
            } catch (NativeException e) {
                breakDown(e, result);
                return;
            }
            for (int i = 0; i < n; i++, left--) {
                int k = (int) ring.tag(i);
                int r = ring.result(i);
                Connection c = batch[k];
                batch[k] = null;
                result.sent(c, r == -IoUring.EAGAIN ? -1 : r, lengths[k]);
            }
        }
        batchCount = 0;
        arenaUsed = 0;
    }

    /**
     * The ring failed: whether this call's unreaped sends went out is unknown, and a second copy
     * of an answer would corrupt its stream, so their connections close; the worker goes on with
     * write(2). Closing the ring drops what it had not taken.
     */
    private void breakDown(NativeException e, Result result) {
        broken = true;
        ring.close();
        log.accept("io_uring failed, answers are written with write(2) from now on: " + e.getMessage());
        for (int k = 0; k < batchCount; k++) {
            Connection c = batch[k];
            if (c != null) {
                batch[k] = null;
                result.sent(c, -Native.EIO, lengths[k]);
            }
        }
        batchCount = 0;
        arenaUsed = 0;
    }

    /** What the loop does with one send's result; it must not throw. */
    interface Result {
        void sent(Connection c, int result, int length);
    }
}
