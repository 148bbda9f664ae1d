package m0.jcstress.page;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One mapped file per forked JVM, cut into page-sized slots that each jcstress {@code @State}
 * takes in turn.
 *
 * <p>jcstress makes a new state per sample, in batches of about 10 k; mapping a file per state
 * would measure mmap, not the page. So a fork maps one ring, and a slot is reused only after
 * {@link #SLOTS} states have been made: far more than one batch, and jcstress starts a batch's
 * actors only after the previous batch is done.
 *
 * <p>The file is unlinked as soon as it is mapped: the mapping stays valid, and nothing is left
 * behind however the fork ends. It lives in {@code /dev/shm} (tmpfs, what a memfd is) unless
 * {@code -Dm0.jcstress.ringDir=DIR} says otherwise.
 */
public final class MappedRing {

    /** Bytes per slot: a page for up to 3 workers, and a multiple of 64 so lines stay lines. */
    public static final int SLOT_BYTES = 256;
    /** Words per slot. */
    public static final int SLOT_WORDS = SLOT_BYTES / Long.BYTES;
    /** Slots in the ring: a power of two, several times jcstress's largest batch. */
    public static final int SLOTS = 1 << 16;

    private static final MappedByteBuffer RING = map();
    private static final AtomicInteger NEXT = new AtomicInteger();

    private MappedRing() {
    }

    /** The mapped ring (16 MiB), shared by every slot. */
    public static ByteBuffer buffer() {
        return RING;
    }

    /**
     * Takes the next slot and zeroes its words, so it reads like a fresh page.
     *
     * @return the slot's byte offset in {@link #buffer()}, 256-aligned
     */
    public static int nextSlot() {
        int offset = (NEXT.getAndIncrement() & (SLOTS - 1)) * SLOT_BYTES;
        // Plain stores are enough: jcstress publishes a state to its actors safely, and the
        // last actors to touch this slot finished a batch (and a barrier) ago.
        for (int i = 0; i < SLOT_BYTES; i += Long.BYTES) {
            RING.putLong(offset + i, 0L);
        }
        return offset;
    }

    private static MappedByteBuffer map() {
        Path dir = Path.of(System.getProperty("m0.jcstress.ringDir", "/dev/shm"));
        if (!Files.isDirectory(dir) || !Files.isWritable(dir)) {
            dir = Path.of(System.getProperty("java.io.tmpdir"));
        }
        try {
            Path file = Files.createTempFile(dir, "m0-jcstress-ring-", ".page");
            try (FileChannel channel = FileChannel.open(file,
                    StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                return channel.map(FileChannel.MapMode.READ_WRITE, 0, (long) SLOTS * SLOT_BYTES);
            } finally {
                Files.delete(file); // the mapping outlives the name
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot map the jcstress ring in " + dir, e);
        }
    }
}
