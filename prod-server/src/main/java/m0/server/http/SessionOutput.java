package m0.server.http;

import java.nio.ByteBuffer;
import java.util.function.LongConsumer;

/**
 * A session's output side: the bytes queued to write ({@link HeldBytes}, in the loop's scratch
 * while it can, docs/adr/0036), the body that follows them from where it lies ({@link BodyTail}:
 * an app's large array, or a file's slice sent with sendfile(2) or read in, docs/adr/0071), and
 * whether a write made progress since the last timeout check. {@link HttpSession} decides what
 * is answered when; this keeps the account of what has left. The loop thread's only.
 */
final class SessionOutput {

    /** Bytes to write: in the loop's scratch while it can (docs/adr/0036). */
    private final HeldBytes out;
    /** A large body sent from where it lies once {@link #out} is written (docs/adr/0071); null when none. */
    private BodyTail tail;
    /** Writes each answer's bytes into {@link #out}, and makes its {@link #tail}. */
    private final ResponseEncoder encoder;
    /** Null: nobody is told of what is answered. */
    private final ResponseObserver observer;
    /** The output (and any tail) is all written: the session's afterFlush. */
    private final LongConsumer flushed;
    /** A tail was cut short: the session's closeNow. */
    private final Runnable cut;
    /** A partial write happened since the last timeout check: the peer is reading, slowly. */
    private boolean writeProgress;

    SessionOutput(Scratch scratch, ResponseObserver observer, HandlerFailures failures, LongConsumer flushed,
                  Runnable cut) {
        this.out = new HeldBytes(scratch);
        this.encoder = new ResponseEncoder(out, observer, failures);
        this.observer = observer;
        this.flushed = flushed;
        this.cut = cut;
    }

    /** Files are opened by {@code files} from now on. */
    void files(BodyFiles files) {
        encoder.files(files);
    }

    /** {@code r} into the output: its head, a small body, and a large one or a file as the tail. */
    void encode(Response r, byte[] conn, boolean head, Request request, long start) {
        tail = encoder.encode(r, conn, head, request, start);
    }

    /** A streamed answer's head, as its exchange made it, with Date and Connection. */
    void streamedHead(byte[] statusAndFields, byte[] conn) {
        encoder.streamedHead(statusAndFields, conn);
    }

    /** Bytes of ours (an interim response) into the output. */
    void put(byte[] bytes) {
        out.put(bytes);
    }

    /** The output's bytes: a streamed body moves into them; tests look at them. */
    HeldBytes held() {
        return out;
    }

    /** Unwritten bytes in the output (a tail's not counted). */
    int size() {
        return out.size();
    }

    /** A tail waits behind the output: a later answer waits behind it. */
    boolean hasTail() {
        return tail != null;
    }

    /** Nothing to write, no tail. */
    boolean empty() {
        return tail == null && out.size() == 0;
    }

    /** A tail's unsent bytes count as output: a client that does not read cannot make us answer more. */
    long tailLeft() {
        return tail == null ? 0 : tail.length - tail.sent;
    }

    /** Whether a write made progress since the last call: then the peer is slow, not gone. */
    boolean takeProgress() {
        if (!writeProgress) {
            return false;
        }
        writeProgress = false;
        return true;
    }

    /**
     * Bytes left without the loop's write (a writer lent the socket wrote them, ADR 0071's last
     * addendum): the peer is reading, as a partial write of ours would say.
     */
    void progressed() {
        writeProgress = true;
    }

    /** What is unwritten is dropped and its scratch let go, without copying. */
    void drop() {
        out.holdNothing();
    }

    /** {@link HttpSession#output()}. */
    ByteBuffer next() {
        ByteBuffer b = out.buffer();
        if (b != null || tail == null) {
            return b;
        }
        ByteBuffer a = tail.inPlace();
        if (a != null) {
            return a.hasRemaining() ? a : null;
        }
        if (tail.complete()) {
            return null;
        }
        if (!tail.readInto(out)) {
            out.holdNothing();
            endTail(true); // the file ended short of its length, or failed: a cut
            return null;
        }
        return out.buffer();
    }

    /** Whether output waits, without making any ({@link #next()} reads a file answer's next chunk). */
    boolean waiting() {
        return out.size() > 0 || (tail != null && !tail.complete());
    }

    /** {@link HttpSession#fileToSend()}. */
    int fileToSend() {
        return out.size() == 0 && tail != null ? tail.sendableFd() : -1;
    }

    /** The output is the head of a file answer that sendfile will send next: the head may be corked. */
    boolean fileFollows() {
        return out.size() > 0 && tail != null && tail.sendableFd() >= 0;
    }

    /** Where the file's next byte is, and how many are left ({@link #fileToSend}). */
    long fileSent() {
        return tail.position();
    }

    long fileLeft() {
        return tail.length - tail.sent;
    }

    /** sendfile(2) sent n bytes of the file; 0: the file ended short of its promised length (a cut). */
    void sentFromFile(long n, long nowNanos) {
        if (n <= 0) {
            endTail(true);
            return;
        }
        tail.sent += n;
        if (!tail.complete()) {
            writeProgress = true;
            return;
        }
        endTail(false);
        flushed.accept(nowNanos);
    }

    /** {@link HttpSession#written(int, long)}: n bytes of {@link #next()} were written. */
    void written(int n, long nowNanos) {
        int pending = out.size();
        if (pending == 0 && tail != null && tail.inPlace() != null) {
            long left = tail.length - tail.sent;
            if (n < 0 || n > left) throw new IllegalArgumentException("written " + n + " of " + left);
            tail.sent += n;
            if (!tail.complete()) {
                if (n > 0) writeProgress = true;
                return;
            }
            endTail(false);
            flushed.accept(nowNanos);
            return;
        }
        if (n < 0 || n > pending) throw new IllegalArgumentException("written " + n + " of " + pending);
        if (n == 0) return;
        out.rd += n;
        if (n < pending) {
            writeProgress = true;
            return;
        }
        out.holdNothing();
        if (tail != null) {
            if (!tail.complete() || tail.file == null) {
                writeProgress = true; // the head, or a file's chunk, left: the tail is next
                return;
            }
            endTail(false); // a file read into the output: its last chunk left
        }
        flushed.accept(nowNanos);
    }

    /** A tail is cut short, if there is one: true when there was (a tail is the oldest answer owed). */
    boolean cutTail() {
        if (tail == null) {
            return false;
        }
        endTail(true);
        return true;
    }

    /** The tail is sent, or cut: logged with the bytes that left, its file closed. */
    private void endTail(boolean cut) {
        BodyTail t = tail;
        tail = null;
        t.close();
        if (observer != null) {
            // What left: a cut may leave the head, or a chunk read from the file, unwritten.
            observer.responded(t.request, t.status, Math.max(0, t.sent - out.size()), t.start, cut);
        }
        if (cut) {
            this.cut.run();
        }
    }
}
