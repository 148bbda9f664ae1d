package m0.server.http;

import java.nio.ByteBuffer;

/**
 * One loop's byte array that its connections borrow while they hold bytes (docs/adr/0036). A
 * request that arrives whole is parsed where it landed and its response is written from where it
 * was encoded, so the common connection never allocates a buffer of its own, and an idle
 * keep-alive connection holds none (nginx frees its header buffer between requests likewise).
 *
 * <p>The borrowing, and the invariant that makes one array safe to share (one holder at a time,
 * and the one before copies out first), are {@link HeldBytes}'s.
 *
 * <p>The loop thread's only: a session is called from its loop alone (pool threads run the app,
 * never the parser or the output).
 */
public final class Scratch {
    final byte[] bytes;
    /** A view of {@link #bytes} for the holder's output(); its bounds are set at each use. */
    final ByteBuffer view;
    /** Whose bytes are in {@link #bytes} now, or null; only {@link HeldBytes} moves it. */
    HeldBytes holder;

    public Scratch(int size) {
        this.bytes = new byte[size];
        this.view = ByteBuffer.wrap(bytes);
    }

    /** Whether {@code h} holds the scratch (tests). */
    boolean lentTo(HeldBytes h) {
        return holder == h;
    }
}
