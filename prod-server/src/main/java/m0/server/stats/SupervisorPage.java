package m0.server.stats;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import m0.core.ByteBufferPage;
import m0.core.Counts;
import m0.core.Page;
import m0.core.PageLayout;
import m0.server.settings.ServerSettings;

/**
 * A running server's shared page, mapped READ-ONLY by another process: the memfd is found
 * among {@code /proc/<pid>/fd} by the name the supervisor gave it ({@code memfd:m0-page}) and
 * opened afresh through that link. Works with a supervisor's pid or a worker's (both hold it).
 * Needs the right to read the process's descriptors (same user, or root).
 *
 * <p>Reads are volatile loads through the core's {@link ByteBufferPage}; a read-only buffer
 * refuses every write, so an observer can never disturb the protocol.
 */
public final class SupervisorPage {

    /** The link name of the memfd SharedPage creates ({@code memfd_create("m0-page")}). */
    static final String MEMFD_LINK = "/memfd:" + m0.server.share.SharedPage.NAME;

    private final long pid;
    /** Lines the page has (its size says: the supervisor may keep spare lines for replacements). */
    private final int lines;
    /** Lines always shown: the supervisor's --workers, or what the caller asked for. */
    private final int declared;
    private final Page page;
    /** The workers' accept policy, as a worker's spec or the command line says; null when unknown. */
    private final String policy;

    private SupervisorPage(long pid, int lines, int declared, Page page, String policy) {
        this.pid = pid;
        this.lines = lines;
        this.declared = declared;
        this.page = page;
        this.policy = policy;
    }

    /**
     * Maps the page of process {@code pid}, all of it, read-only.
     *
     * @param workers lines to show at least, or 0 for the supervisor's {@code --workers}
     * @throws IOException when the process has no m0 page or it cannot be read
     */
    public static SupervisorPage open(long pid, int workers) throws IOException {
        Path fd = findPageFd(pid);
        try (FileChannel ch = FileChannel.open(fd, StandardOpenOption.READ)) {
            long bytes = ch.size();
            long words = bytes / 8;
            if (words < PageLayout.slots(1)) {
                throw new IOException("the page of pid " + pid + " holds only " + bytes + " bytes");
            }
            int lines = PageLayout.workersOf(words);
            if (lines < 1) {
                throw new IOException("the page of pid " + pid + " is no m0 page: " + bytes + " bytes");
            }
            int declared = Math.min(lines, workers > 0 ? workers : declaredWorkers(pid));
            MappedByteBuffer buffer = ch.map(FileChannel.MapMode.READ_ONLY, 0, 8L * PageLayout.slots(lines));
            return new SupervisorPage(pid, lines, declared, new ByteBufferPage(buffer, 0, PageLayout.slots(lines)),
                    policyOf(pid));
        }
    }

    /** {@code /proc/<pid>/fd/<n>} whose link names the m0 page's memfd. */
    public static Path findPageFd(long pid) throws IOException {
        Path dir = Path.of("/proc", Long.toString(pid), "fd");
        if (!Files.isDirectory(dir)) {
            throw new IOException("no process " + pid);
        }
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(dir)) {
            for (Path fd : fds) {
                String link;
                try {
                    link = Files.readSymbolicLink(fd).toString();
                } catch (IOException e) {
                    continue; // closed while we listed
                }
                // "/memfd:m0-page (deleted)": a memfd never has a path, so it always reads deleted.
                if (link.startsWith(MEMFD_LINK)) {
                    return fd;
                }
            }
        } catch (java.nio.file.AccessDeniedException e) {
            throw new IOException("not allowed to read the descriptors of pid " + pid + " (another user?)", e);
        }
        throw new IOException("pid " + pid + " holds no " + MEMFD_LINK + " (is it an m0serve supervisor or worker?)");
    }

    /**
     * The accept policy the workers of {@code pid} run: a live worker's spec ({@code
     * accept-policy=}, from whichever source set it), the pid's own spec when it
     * is a worker, else the supervisor's own setting (command line, environment, config file), else the default; null when the
     * process cannot be read.
     */
    static String policyOf(long pid) {
        String p = policyNamed(pid);
        return p != null && p.matches("[a-z]{1,32}") ? p : null; // a name, printed in JSON unescaped
    }

    private static String policyNamed(long pid) {
        for (ProcessHandle worker : WorkerProcesses.of(pid)) {
            java.util.Optional<String> p = WorkerProcesses.specValue(worker.pid(), "accept-policy");
            if (p.isPresent()) {
                return p.get();
            }
        }
        java.util.Optional<String> own = WorkerProcesses.specValue(pid, "accept-policy");
        if (own.isPresent()) {
            return own.get();
        }
        try {
            return RunningSettings.valueOf(pid, ServerSettings.ACCEPT_POLICY).orElse(m0.core.AcceptPolicy.defaultName());
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * The supervisor's worker count, from wherever it was set (command line, {@code
     * M0SERVE_WORKERS}, its config file); 1 without it, or for a worker's pid, whose lines in use
     * show up by themselves.
     */
    static int declaredWorkers(long pid) throws IOException {
        java.util.Optional<String> n = RunningSettings.valueOf(pid, ServerSettings.WORKERS);
        try {
            return n.isEmpty() ? 1 : Integer.parseInt(n.get().strip());
        } catch (NumberFormatException e) {
            throw new IOException("pid " + pid + ": unreadable workers setting '" + n.get() + "'", e);
        }
    }

    public long pid() {
        return pid;
    }

    /** Lines always shown: the supervisor's worker count (indices 0..workers-1). */
    public int workers() {
        return declared;
    }

    /** Lines the page has, in use or spare. */
    public int lines() {
        return lines;
    }

    /** Reads every line now (one volatile load per word). */
    public PageSnapshot read() {
        long now = System.nanoTime();
        // Spare lines (a reload's replacements, SIGTTIN) show once anything was written to them.
        int shown = declared;
        for (int i = lines - 1; i >= declared; i--) {
            if (page.getVolatile(PageLayout.stateWord(i)) != PageLayout.NOT_STARTED
                    || page.getVolatile(PageLayout.countsWord(i)) != 0
                    || page.getVolatile(PageLayout.sentWord(i)) != 0
                    || page.getVolatile(PageLayout.receivedWord(i)) != 0) {
                shown = i + 1;
                break;
            }
        }
        List<WorkerLine> out = new ArrayList<>(shown);
        for (int i = 0; i < shown; i++) {
            long counts = page.getVolatile(PageLayout.countsWord(i)); // active, pending and taken from one load
            out.add(new WorkerLine(i,
                    page.getVolatile(PageLayout.stateWord(i)),
                    Counts.active(counts),
                    Counts.pending(counts),
                    Counts.taken(counts),
                    page.getVolatile(PageLayout.sentWord(i)),
                    page.getVolatile(PageLayout.receivedWord(i)),
                    page.getVolatile(PageLayout.forwardedWord(i)),
                    page.getVolatile(PageLayout.busyWord(i))));
        }
        return new PageSnapshot(pid, now, page.getVolatile(PageLayout.REHOMED_WORD),
                page.getVolatile(PageLayout.LOST_WORD), out, policy);
    }
}
