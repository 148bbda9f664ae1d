package m0.server.share;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import m0.core.ByteBufferPage;
import m0.core.Page;
import m0.core.PageLayout;
import m0.server.jnr.Fds;

/**
 * The shared page: a memfd the supervisor creates and every worker inherits, mapped
 * READ_WRITE into the core's {@link ByteBufferPage}. A memfd leaves nothing behind when the
 * last holder dies (a /dev/shm file would have to be deleted by hand).
 */
public final class SharedPage {

    private static final int PAGE_BYTES = 4096;

    private final int fd;
    private final Page page;

    private SharedPage(int fd, Page page) {
        this.fd = fd;
        this.page = page;
    }

    /** The supervisor's: a fresh, zeroed memfd (every state NOT_STARTED) sized for {@code workers}. */
    public static SharedPage create(int workers) {
        int fd = Fds.memfd("m0-page");
        return new SharedPage(fd, map(fd, workers));
    }

    /** A worker's: the page the supervisor passed as descriptor {@code fd}. */
    public static SharedPage adopt(int fd, int workers) {
        return new SharedPage(fd, map(fd, workers));
    }

    private static Page map(int fd, int workers) {
        int words = PageLayout.slots(workers);
        long bytes = ((8L * words + PAGE_BYTES - 1) / PAGE_BYTES) * PAGE_BYTES;
        // /proc/self/fd/N opens the memfd afresh; the mapping outlives the FileChannel. Mapping
        // past the end grows the file (zero-filled) on the creator's side.
        try (FileChannel ch = FileChannel.open(Path.of("/proc/self/fd/" + fd),
                StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MappedByteBuffer buffer = ch.map(FileChannel.MapMode.READ_WRITE, 0, bytes);
            return new ByteBufferPage(buffer, 0, words);
        } catch (IOException e) {
            throw new UncheckedIOException("mapping the shared page (fd " + fd + ")", e);
        }
    }

    public int fd() {
        return fd;
    }

    public Page page() {
        return page;
    }
}
