package m0.server.http;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The bytes a connection holds between reads (its parser's input) or between writes (its
 * output): {@code bytes[rd, wr)}. While it holds bytes it borrows its loop's {@link Scratch}, and
 * it owns an array only when it must: when the bytes outgrow the scratch, or when another
 * connection takes the scratch from under them (docs/adr/0036). Holding nothing, it holds no
 * array. Without a scratch it is a plain growable array of its own.
 *
 * <p>The fields are the parser's and the encoder's to read and move in place, as if they were
 * their own; this class only decides which array the bytes live in. The loop thread's only.
 */
final class HeldBytes {
    /** The size of an array of one's own, and what one that grew past SHRINK_ABOVE goes back to. */
    static final int INITIAL = 1024;
    static final int SHRINK_ABOVE = 64 * 1024;
    private static final byte[] EMPTY = new byte[0];

    /** The loop's scratch; null: always an array of one's own. */
    private final Scratch scratch;
    /** Holds [rd, wr). With a scratch: EMPTY while that is empty, and the scratch's bytes exactly while borrowed. */
    byte[] bytes;
    int rd;
    int wr;
    /** {@link #bytes} for {@link #buffer()}: the scratch's own view, or made when first asked for. */
    private ByteBuffer view;

    /**
     * While a streamed body flows: an array of one's own, the scratch's size, that the output
     * empties into from write to write instead of borrowing the scratch. A streaming connection's
     * write often stops short, and bytes left in the scratch are copied into a fresh array when
     * the next connection borrows it: 73 % of a streamed MiB's garbage (ADR 0071's addendum).
     */
    private byte[] kept;
    private ByteBuffer keptView;

    HeldBytes(Scratch scratch) {
        this.scratch = scratch;
        this.bytes = scratch == null ? new byte[INITIAL] : EMPTY;
    }

    /** Bytes held. */
    int size() {
        return wr - rd;
    }

    /**
     * How many more bytes fit without an array of one's own: the scratch's size less what is
     * held; without a scratch, no bound.
     */
    int roomInScratch() {
        return scratch == null ? Integer.MAX_VALUE : Math.max(0, scratch.bytes.length - size());
    }

    /**
     * A streamed body starts ({@code true}: keep an array of one's own for it, with a scratch) or
     * ends (the array is dropped once nothing is held in it, so an idle connection holds none).
     */
    void streaming(boolean on) {
        if (on && kept == null && scratch != null) {
            kept = new byte[scratch.bytes.length];
            keptView = ByteBuffer.wrap(kept);
        } else if (!on && kept != null) {
            kept = null;
            keptView = null;
            if (rd == wr && bytes != EMPTY && !borrowsScratch()) {
                bytes = EMPTY;
                view = null;
            }
        }
    }

    /** Whether the bytes are in the loop's scratch. */
    boolean borrowsScratch() {
        return scratch != null && bytes == scratch.bytes;
    }

    /** Room for {@code n} more bytes at {@link #wr}; {@link #bytes} may be another array after it. */
    void reserve(int n) {
        if (wr + n <= bytes.length) {
            return;
        }
        if (rd == wr) {
            rd = wr = 0;
            if (kept != null && n <= kept.length) {
                if (scratch.holder == this) scratch.holder = null;
                bytes = kept;
                view = keptView;
                return;
            }
            if (scratch != null && n <= scratch.bytes.length) {
                borrow(); // nothing held: the bytes go where they will be used from
                return;
            }
        }
        if (borrowsScratch()) {
            own(Math.max(INITIAL, wr - rd + n)); // more than the scratch holds
            return;
        }
        if (rd > 0) {
            System.arraycopy(bytes, rd, bytes, 0, wr - rd);
            wr -= rd;
            rd = 0;
        }
        if (wr + n > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, wr + n));
            view = null;
        }
    }

    /** Appends all of src's remaining bytes. */
    void put(ByteBuffer src) {
        int n = src.remaining();
        reserve(n);
        src.get(bytes, wr, n);
        wr += n;
    }

    /** Appends all of b. */
    void put(byte[] b) {
        reserve(b.length);
        System.arraycopy(b, 0, bytes, wr, b.length);
        wr += b.length;
    }

    /** The bytes held as a heap buffer's position..limit, valid until the next change; null if none. */
    ByteBuffer buffer() {
        if (rd == wr) {
            return null;
        }
        ByteBuffer v = view;
        if (v == null) {
            view = v = ByteBuffer.wrap(bytes);
        }
        v.clear();
        v.position(rd);
        v.limit(wr);
        return v;
    }

    /**
     * Holds nothing now (all was used, or is dropped unread): give the scratch back without
     * copying, and hold no array at all; without a scratch, shrink an array that grew big.
     */
    void holdNothing() {
        rd = wr = 0;
        if (scratch != null) {
            if (scratch.holder == this) scratch.holder = null;
            bytes = EMPTY;
            view = null;
        } else if (bytes.length > SHRINK_ABOVE) {
            bytes = new byte[INITIAL];
            view = null;
        }
    }

    /**
     * Takes the scratch, holding nothing. Invariant: a scratch has one holder at most, the one
     * whose {@link #bytes} it is. The holder before us may still hold bytes there (a partial head,
     * a half-written response), so it copies them into an array of its own first; then no holder
     * sees another's bytes, whatever order the loop calls its connections in.
     */
    private void borrow() {
        HeldBytes before = scratch.holder;
        if (before != null && before != this) {
            before.own(Math.max(INITIAL, before.size()));
        }
        scratch.holder = this;
        bytes = scratch.bytes;
        view = scratch.view;
    }

    /** [rd, wr) out of the scratch, which we hold, into a new array of ours; the scratch is free. */
    private void own(int capacity) {
        byte[] b = new byte[capacity];
        System.arraycopy(bytes, rd, b, 0, wr - rd);
        wr -= rd;
        rd = 0;
        bytes = b;
        view = null;
        scratch.holder = null;
    }
}
