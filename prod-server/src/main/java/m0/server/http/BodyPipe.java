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
        /** The writer's own array: its write waits until the loop has taken all of it. */
        private final boolean writers;
        /** Taken out of the pipe untaken, with the socket: its writer writes the rest itself. */
        private boolean returned;

        private Piece(byte[] bytes, int at, int end, boolean writers) {
            this.bytes = bytes;
            this.at = at;
            this.end = end;
            this.writers = writers;
        }

        /** Whether the loop has yet to take some of it: a lent array is not the writer's yet. */
        boolean waiting() {
            return at < end;
        }

        /** Whether the loop gave it back to its writer with the socket ({@link #returnWritersArray}). */
        boolean returned() {
            return returned;
        }

        /** Where its untaken bytes start in its array. */
        int at() {
            return at;
        }

        /** Where its bytes end in its array. */
        int end() {
            return end;
        }

        /** Whether its bytes are {@code b} itself, not a copy. */
        boolean borrows(byte[] b) {
            return bytes == b;
        }
    }

    private final ArrayDeque<Piece> pieces = new ArrayDeque<>();
    /** The bytes of {@link #pieces} not yet taken. */
    private int queued;
    /** Since the last {@link #gaveBack}: a writer's own array was taken whole, so its write may return. */
    private boolean arrayTaken;

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
        add(new Piece(Arrays.copyOfRange(b, off, off + len), 0, len, false));
        return wasEmpty;
    }

    /** Queues the writer's own bytes, uncopied: its write waits until the piece is not {@link Piece#waiting}. */
    Piece lend(byte[] b, int off, int len) {
        return add(new Piece(b, off, off + len, true));
    }

    /** Queues {@code [off, end)}, what a socket lent the writer did not take: lent as a large write is, or copied. */
    Piece rest(byte[] b, int off, int end) {
        int rest = end - off;
        return add(rest >= PipedExchange.LEND ? new Piece(b, off, end, true)
                : new Piece(Arrays.copyOfRange(b, off, end), 0, rest, false));
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
                arrayTaken |= p.writers;
            }
        }
        queued -= moved;
        return moved;
    }

    /** Whether a writer's own array was taken whole since the last call. */
    boolean gaveBack() {
        boolean taken = arrayTaken;
        arrayTaken = false;
        return taken;
    }

    /**
     * When the only piece waiting is a writer's own array: takes it out untaken and marks it
     * returned, for its waiting writer to write the rest itself. False, and nothing changes,
     * otherwise.
     */
    boolean returnWritersArray() {
        Piece p = pieces.peekFirst();
        if (pieces.size() != 1 || !p.writers) {
            return false;
        }
        pieces.pollFirst();
        queued -= p.end - p.at;
        p.returned = true;
        return true;
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
        arrayTaken = false;
    }
}
