package m0.server.http;

import java.nio.ByteBuffer;

/**
 * One loop's byte array that its connections borrow while they hold bytes (docs/adr/0036). A
 * request that arrives whole is parsed where it landed and its response is written from where it
 * was encoded, so the common connection never allocates a buffer of its own, and an idle
 * keep-alive connection holds none (nginx frees its header buffer between requests likewise).
 *
 * <p>Invariant: at most one borrower uses {@link #bytes} at a time. Lending it to another makes
 * the current one first copy what it still holds into an array of its own ({@link
 * Borrower#keepOwn}), so no borrower ever sees another's bytes, whatever order the loop calls
 * them in. A borrower gives it back as soon as it holds nothing.
 *
 * <p>The loop thread's only: a session is called from its loop alone (pool threads run the app,
 * never the parser or the output).
 */
public final class Scratch {

    /** A user of the scratch: a parser (bytes read) or a session's output (bytes to write). */
    interface Borrower {
        /** Another borrower takes the scratch: copy what is held into an array of one's own. */
        void keepOwn();
    }

    final byte[] bytes;
    /** A view of {@link #bytes} for the borrower's output(); its bounds are set at each use. */
    final ByteBuffer view;
    private Borrower owner;

    public Scratch(int size) {
        this.bytes = new byte[size];
        this.view = ByteBuffer.wrap(bytes);
    }

    /** The bytes, now {@code b}'s; the borrower before it keeps what it held in its own array. */
    byte[] lend(Borrower b) {
        Borrower before = owner;
        if (before != null && before != b) {
            before.keepOwn();
        }
        owner = b;
        return bytes;
    }

    /** {@code b} holds nothing of the scratch any more (nothing happens if it did not hold it). */
    void giveBack(Borrower b) {
        if (owner == b) {
            owner = null;
        }
    }

    /** Whether {@code b} holds the scratch (tests). */
    boolean lentTo(Borrower b) {
        return owner == b;
    }
}
