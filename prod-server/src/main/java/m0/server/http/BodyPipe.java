package m0.server.http;

import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * The pipe between a streamed body's writer and the loop: the pieces the loop has not yet taken,
 * in order, and the bytes they hold, which {@link #full()} bounds at {@link Exchange#PIPE_BYTES}.
 * A piece is a copy of the writer's bytes or, from {@link PipedExchange#LEND} up, the writer's
 * own array, lent while its write waits for the loop to take it (ADR 0071). Not thread-safe:
 * every call is made under its {@link PipedExchange}'s lock, whose class comment says who queues,
 * who takes, and when the writer writes the socket instead.
 */
final class BodyPipe {

    /** Bytes {@code [at, end)} of {@code bytes}: a copy of the pipe's own, or a waiting writer's array. */
    static final class Piece {
        private final byte[] bytes;
        private int at;
        private final int end;

        private Piece(byte[] bytes, int at, int end) {
            this.bytes = bytes;
            this.at = at;
            this.end = end;
        }

        /** Whether the loop has yet to take some of it: a lent array is not the writer's yet. */
        boolean waiting() {
            return at < end;
        }

        /** Whether its bytes are {@code b} itself, not a copy. */
        boolean borrows(byte[] b) {
            return bytes == b;
        }
    }

    private final ArrayDeque<Piece> pieces = new ArrayDeque<>();
    /** The bytes of {@link #pieces} not yet taken. */
    private int queued;

    boolean isEmpty() {
        return pieces.isEmpty();
    }

    /** Whether a writer must wait for the loop to take some. */
    boolean full() {
        return queued >= Exchange.PIPE_BYTES;
    }

    /** Queues a copy of the bytes; true when the pipe was empty (the loop is to be woken). */
    boolean copy(byte[] b, int off, int len) {
        boolean wasEmpty = pieces.isEmpty();
        add(new Piece(Arrays.copyOfRange(b, off, off + len), 0, len));
        return wasEmpty;
    }

    /** Queues the writer's own bytes, uncopied: its write waits until the piece is not {@link Piece#waiting}. */
    Piece lend(byte[] b, int off, int len) {
        return add(new Piece(b, off, off + len));
    }

    /** Queues {@code [off, end)}, what a socket lent the writer did not take: lent as a large write is, or copied. */
    Piece rest(byte[] b, int off, int end) {
        int rest = end - off;
        return add(rest >= PipedExchange.LEND ? new Piece(b, off, end)
                : new Piece(Arrays.copyOfRange(b, off, end), 0, rest));
    }

    private Piece add(Piece p) {
        pieces.addLast(p);
        queued += p.end - p.at;
        return p;
    }

    /** Moves up to {@code room} waiting bytes into {@code out}, in order; how many moved. */
    int moveTo(HeldBytes out, int room) {
        int moved = 0;
        Piece p;
        while (moved < room && (p = pieces.peekFirst()) != null) {
            int n = Math.min(p.end - p.at, room - moved);
            out.reserve(n);
            System.arraycopy(p.bytes, p.at, out.bytes, out.wr, n);
            out.wr += n;
            moved += n;
            p.at += n;
            if (p.at == p.end) {
                pieces.pollFirst();
            }
        }
        queued -= moved;
        return moved;
    }

    /** Whether the first bytes waiting are {@code b} itself, lent by a waiting writer. */
    boolean startsWith(byte[] b) {
        Piece p = pieces.peekFirst();
        return p != null && p.borrows(b);
    }

    /** Drops every piece: the connection is gone. */
    void clear() {
        pieces.clear();
        queued = 0;
    }
}
