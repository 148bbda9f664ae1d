package m0.server.http;

import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A request body read as it arrives: the loop puts what the parser decodes (fixed-length or
 * chunked), the handler's thread reads. At most {@link #CAPACITY} bytes wait here; while they do
 * the session reads no more from the socket (its {@code wantsInput} is false), so a handler that
 * reads slowly leaves the rest in the client's socket buffers, not in our heap. A read that frees
 * room the loop was waiting for wakes the loop.
 */
final class RequestBody extends InputStream {

    /** What may wait between the loop and the reader. */
    static final int CAPACITY = 64 * 1024;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition data = lock.newCondition();
    private final byte[] ring = new byte[CAPACITY];
    private final Runnable wake;
    /** Under lock. */
    private int rd;
    private int size;
    private boolean ended;
    private String failure;
    /** Under lock: the loop stopped putting for want of room and waits to be woken. */
    private boolean loopWaits;
    /** Under lock: the reader closed the stream: the rest of the body is read and dropped. */
    private boolean discard;

    /** The head asked Expect: 100-continue: the first read asks the loop to send it (volatile: read by the loop). */
    private volatile boolean continueOwed;
    private volatile boolean continueAsked;

    RequestBody(Runnable wake) {
        this.wake = wake;
    }

    /** Set on the loop before the reader gets the body: its first read is what sends the 100. */
    void owesContinue() {
        continueOwed = true;
    }

    /** The reader wants the body and a 100 Continue is owed: the loop sends it. */
    boolean continueAsked() {
        return continueAsked;
    }

    // ---- the loop's side ----

    /** Room for more: the parser puts at most this. Zero: the loop stops reading until woken. */
    int room() {
        lock.lock();
        try {
            if (discard) {
                return Integer.MAX_VALUE;
            }
            int r = CAPACITY - size;
            if (r == 0) {
                loopWaits = true;
            }
            return r;
        } finally {
            lock.unlock();
        }
    }

    void put(byte[] b, int off, int len) {
        lock.lock();
        try {
            if (discard) {
                return;
            }
            if (len > CAPACITY - size) {
                throw new IllegalStateException("put " + len + " with room " + (CAPACITY - size));
            }
            int wr = (rd + size) % CAPACITY;
            int first = Math.min(len, CAPACITY - wr);
            System.arraycopy(b, off, ring, wr, first);
            System.arraycopy(b, off + first, ring, 0, len - first);
            size += len;
            if (size == CAPACITY) {
                loopWaits = true; // the parser stops here with bytes left: the reader's next read must wake us
            }
            data.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** No room: the loop reads no more until the reader takes some, and wakes it then. */
    boolean full() {
        lock.lock();
        try {
            boolean full = !discard && size == CAPACITY;
            if (full) {
                loopWaits = true;
            }
            return full;
        } finally {
            lock.unlock();
        }
    }

    /** The body is complete. */
    void end() {
        lock.lock();
        try {
            ended = true;
            data.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** The body will not complete (the connection closed, timed out, or sent a bad chunk). */
    void abort(String why) {
        lock.lock();
        try {
            if (!ended) {
                failure = why;
            }
            data.signalAll();
        } finally {
            lock.unlock();
        }
    }

    // ---- the reader's side ----

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return 0;
        }
        if (continueOwed && !continueAsked) {
            continueAsked = true; // the client waits for our 100 before it sends the body
            wake.run();
        }
        boolean wakeLoop;
        int n;
        lock.lock();
        try {
            while (size == 0 && !ended && failure == null && !discard) {
                try {
                    data.await(100, TimeUnit.MILLISECONDS); // the loop's put signals; this only re-checks
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException("interrupted reading a request body");
                }
            }
            if (size == 0) {
                if (failure != null) {
                    throw new IOException(failure);
                }
                return -1;
            }
            n = Math.min(len, size);
            int first = Math.min(n, CAPACITY - rd);
            System.arraycopy(ring, rd, b, off, first);
            System.arraycopy(ring, 0, b, off + first, n - first);
            rd = (rd + n) % CAPACITY;
            size -= n;
            wakeLoop = loopWaits;
            loopWaits = false;
        } finally {
            lock.unlock();
        }
        if (wakeLoop) {
            wake.run(); // room again: the loop reads the socket again
        }
        return n;
    }

    @Override
    public int available() {
        lock.lock();
        try {
            return size;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Closing lets go of the rest: the loop reads it and drops it, so the next request on the
     * connection is found after it (the JDK's server drains it too) and no thread waits on it.
     */
    @Override
    public void close() {
        boolean wakeLoop;
        lock.lock();
        try {
            discard = true;
            size = 0;
            wakeLoop = loopWaits;
            loopWaits = false;
            data.signalAll();
        } finally {
            lock.unlock();
        }
        if (wakeLoop) {
            wake.run();
        }
    }
}
