package m0.server.tls;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import m0.core.Page;
import m0.server.jnr.Fds;
import m0.server.share.Memfds;

/**
 * How the ticket keys travel from the supervisor to its workers (ADR 0073): a memfd of the
 * supervisor's own ({@value #NAME}, close-on-exec), which each worker maps read-only through
 * {@code /proc/<supervisor>/fd} at its start, as observers map the start-up record. No key is on
 * a command line or in the environment (both readable in /proc by anyone), and none crosses a
 * pipe; {@code /proc/<pid>/fd} opens only for the same user (or root), who can read the
 * processes' memory anyway.
 *
 * <p>A rotation reaches running workers without a restart: the supervisor writes a new set under
 * a generation number (a seqlock: odd while it writes), and a worker compares the generation with
 * the one it applied whenever it admits a TLS connection. Words:
 *
 * <pre>
 *   0             generation: even when the set is whole, odd while the supervisor writes it
 *   1             keys in the set (1..{@link TicketKeys#MAX}), current first
 *   2 + 6k .. +5  key k's 48 bytes
 * </pre>
 */
public final class TicketKeyPage {

    /** {@code /proc/<pid>/fd/N} links read {@code /memfd:m0-tls-tickets (deleted)}. */
    public static final String NAME = "m0-tls-tickets";

    private static final int GENERATION = 0;
    private static final int COUNT = 1;
    private static final int FIRST_KEY = 2;
    private static final int KEY_WORDS = TicketKeys.KEY_BYTES / 8;
    static final int WORDS = FIRST_KEY + KEY_WORDS * TicketKeys.MAX;
    /** A reader that keeps meeting a write gives up for now and tries again at the next look. */
    private static final int READ_TRIES = 64;

    private final Page words;

    TicketKeyPage(Page words) {
        this.words = words;
    }

    /** The supervisor's, empty (generation 0, no keys) until the first {@link #publish}. */
    public static TicketKeyPage create() {
        int fd = Fds.memfd(NAME);
        return new TicketKeyPage(Memfds.map(Path.of("/proc/self/fd/" + fd), WORDS, true));
    }

    /**
     * A worker's read-only view of its supervisor's; empty when the supervisor holds none.
     *
     * @throws IOException the page is there but could not be found or mapped: the cause, for the worker's line
     */
    public static Optional<TicketKeyPage> attach(long supervisorPid) throws IOException {
        try {
            Optional<Path> p = Memfds.find(supervisorPid, NAME);
            return p.map(path -> new TicketKeyPage(Memfds.map(path, WORDS, false)));
        } catch (RuntimeException e) {
            throw new IOException(e.toString(), e);
        }
    }

    /** The supervisor writes {@code keys} as the new set (one writer: the supervisor's loop thread). */
    public void publish(TicketKeys keys) {
        long g = words.getVolatile(GENERATION);
        words.setVolatile(GENERATION, g + 1); // odd: a reader that sees it, or sees it change, reads again
        words.setVolatile(COUNT, keys.size());
        for (int k = 0; k < keys.size(); k++) {
            byte[] key = keys.key(k);
            try {
                ByteBuffer b = ByteBuffer.wrap(key).order(ByteOrder.nativeOrder());
                for (int w = 0; w < KEY_WORDS; w++) {
                    words.setVolatile(FIRST_KEY + KEY_WORDS * k + w, b.getLong());
                }
            } finally {
                Arrays.fill(key, (byte) 0); // the copy is on the page now
            }
        }
        // A retired key leaves the page too: no slot past the count keeps its bytes for a reader of /proc.
        for (int w = FIRST_KEY + KEY_WORDS * keys.size(); w < WORDS; w++) {
            words.setVolatile(w, 0);
        }
        words.setVolatile(GENERATION, g + 2);
    }

    /** The generation now: a worker reads the keys again when it differs from the one it applied. */
    public long generation() {
        return words.getVolatile(GENERATION);
    }

    /** The set as of one generation, with that generation; empty when none was published or a write kept crossing. */
    public Optional<Read> read() {
        for (int t = 0; t < READ_TRIES; t++) {
            long g = words.getVolatile(GENERATION);
            if (g == 0 || (g & 1) != 0) {
                if (g == 0) {
                    return Optional.empty();
                }
                Thread.onSpinWait();
                continue;
            }
            int n = (int) words.getVolatile(COUNT);
            if (n < 1 || n > TicketKeys.MAX) {
                continue;
            }
            List<byte[]> keys = new ArrayList<>(n);
            for (int k = 0; k < n; k++) {
                ByteBuffer b = ByteBuffer.allocate(TicketKeys.KEY_BYTES).order(ByteOrder.nativeOrder());
                for (int w = 0; w < KEY_WORDS; w++) {
                    b.putLong(words.getVolatile(FIRST_KEY + KEY_WORDS * k + w));
                }
                keys.add(b.array());
            }
            if (words.getVolatile(GENERATION) == g) {
                return Optional.of(new Read(g, TicketKeys.taking(keys))); // zeroes the arrays read into
            }
            keys.forEach(k -> Arrays.fill(k, (byte) 0)); // torn by a write: read again
        }
        return Optional.empty();
    }

    /** A set and the generation it was read at. */
    public record Read(long generation, TicketKeys keys) {
    }
}
