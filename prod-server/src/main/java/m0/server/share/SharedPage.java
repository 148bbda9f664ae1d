package m0.server.share;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
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
 *
 * <p>The page has one line per worker <em>index</em>, not per running worker: the supervisor
 * makes spare lines for a reload's replacements and for SIGTTIN (docs/adr/0006). The file is
 * exactly {@code 8 * PageLayout.slots(lines)} bytes long, so an observer ({@code m0serve stats},
 * a test) learns the line count from its size: {@link #attach(long)}.
 */
public final class SharedPage {

    /** The memfd's name; {@code /proc/<pid>/fd/N} links read {@code /memfd:m0-page (deleted)}. */
    public static final String NAME = "m0-page";

    private final int fd;
    private final int lines;
    private final Page page;

    private SharedPage(int fd, int lines, Page page) {
        this.fd = fd;
        this.lines = lines;
        this.page = page;
    }

    /** The supervisor's: a fresh, zeroed memfd (every state NOT_STARTED) with {@code lines} lines. */
    public static SharedPage create(int lines) {
        int fd = Fds.memfd(NAME);
        return new SharedPage(fd, lines, map(Path.of("/proc/self/fd/" + fd), lines));
    }

    /** A worker's: the page the supervisor passed as descriptor {@code fd}. */
    public static SharedPage adopt(int fd, int lines) {
        return new SharedPage(fd, lines, map(Path.of("/proc/self/fd/" + fd), lines));
    }

    /**
     * An observer's view of a running server's page, found among the supervisor's descriptors
     * ({@code /proc/<pid>/fd/*} linking to the memfd). Reads are all an observer should do.
     *
     * @throws IllegalStateException when the process holds no m0 page
     */
    public static SharedPage attach(long supervisorPid) {
        try {
            Path p = Memfds.find(supervisorPid, NAME).orElse(null);
            if (p != null) {
                int lines = linesOf(Files.size(p));
                return new SharedPage(-1, lines, map(p, lines));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading /proc/" + supervisorPid + "/fd", e);
        }
        throw new IllegalStateException("process " + supervisorPid + " holds no m0 page");
    }

    /** The line count of a page file of {@code bytes} bytes. */
    public static int linesOf(long bytes) {
        int lines = bytes % 8 != 0 ? -1 : PageLayout.workersOf(bytes / 8);
        if (lines < 1) {
            throw new IllegalArgumentException("not an m0 page: " + bytes + " bytes");
        }
        return lines;
    }

    private static Page map(Path file, int lines) {
        int words = PageLayout.slots(lines);
        long bytes = 8L * words;
        // The path opens the memfd afresh; the mapping outlives the FileChannel. Mapping past
        // the end grows the file (zero-filled) to exactly the page: its size names the lines.
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MappedByteBuffer buffer = ch.map(FileChannel.MapMode.READ_WRITE, 0, bytes);
            return new ByteBufferPage(buffer, 0, words);
        } catch (IOException e) {
            throw new UncheckedIOException("mapping the shared page (" + file + ")", e);
        }
    }

    /** The descriptor (the creator's or an inheritor's); -1 for an observer's view. */
    public int fd() {
        return fd;
    }

    /** Worker indices the page has a line for (running or not). */
    public int lines() {
        return lines;
    }

    public Page page() {
        return page;
    }
}
