package m0.server.control;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import m0.server.stats.SupervisorPage;

/**
 * Finds a running server's supervisor from what an operator knows of it (docs/adr/0067): the
 * address it listens on, or the pid file it wrote.
 *
 * <p>By address: the kernel's table of listening sockets gives the socket's inode, and the
 * processes holding that inode are the supervisor and its workers (they inherit the listener),
 * and under socket activation systemd too. Of those, the m0serve ones hold the shared page's
 * memfd; the supervisor is the one whose parent does not. Nothing is written for this, so it
 * works for a server started without a pid file, and after one that was SIGKILLed. It needs
 * the right to read the processes' descriptors (the same user, or root), as stats always has.
 */
public final class ServerFinder {

    private ServerFinder() {
    }

    /** The supervisor listening where {@code host:port} reaches. */
    public static long byAddress(InetAddress host, int port) throws IOException {
        String where = hostPort(host, port);
        Set<Long> inodes = ListeningSockets.matching(host, port);
        if (inodes.isEmpty()) {
            throw new IOException("nothing listens on " + where);
        }
        Set<String> links = new LinkedHashSet<>();
        for (long inode : inodes) {
            links.add("socket:[" + inode + "]");
        }
        Set<Long> m0 = new LinkedHashSet<>();
        boolean anyHolder = false;
        int unreadable = 0;
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path proc : procs) {
                long pid = Long.parseLong(proc.getFileName().toString());
                int held = holds(proc.resolve("fd"), links);
                if (held < 0) {
                    unreadable++;
                } else if (held > 0) {
                    anyHolder = true;
                    if (holdsPage(pid)) {
                        m0.add(pid);
                    }
                }
            }
        }
        List<Long> supervisors = new ArrayList<>();
        for (long pid : m0) {
            long parent = ProcessHandle.of(pid).flatMap(ProcessHandle::parent).map(ProcessHandle::pid).orElse(-1L);
            if (!m0.contains(parent)) {
                supervisors.add(pid);
            }
        }
        if (supervisors.size() == 1) {
            return supervisors.get(0);
        }
        if (supervisors.size() > 1) {
            throw new IOException("more than one m0serve listens on " + where + ": pids " + supervisors
                    + "; name one with --pid");
        }
        if (anyHolder) {
            throw new IOException("what listens on " + where + " is no m0serve (it holds no shared page)");
        }
        throw new IOException("something listens on " + where + ", but its process is not readable here"
                + (unreadable > 0 ? " (another user's? run as that user or root)" : ""));
    }

    /** The pid a server's {@code --pid-file} names, checked to be a running m0serve supervisor. */
    public static long byPidFile(Path file) throws IOException {
        long pid = PidFile.read(file);
        String problem = notSupervisor(pid);
        if (problem != null) {
            throw new IOException(file + " names pid " + pid + ", but " + problem + " (a stale pid file?)");
        }
        return pid;
    }

    /** Why {@code pid} is not a running m0serve supervisor, or null when it is one. */
    public static String notSupervisor(long pid) {
        if (ProcessHandle.of(pid).isEmpty()) {
            return "no process " + pid + " runs";
        }
        if (!holdsPage(pid)) {
            return "pid " + pid + " is no m0serve (it holds no shared page, or is not readable here)";
        }
        long parent = ProcessHandle.of(pid).flatMap(ProcessHandle::parent).map(ProcessHandle::pid).orElse(-1L);
        if (parent > 0 && holdsPage(parent)) {
            return "pid " + pid + " is a worker of the supervisor " + parent;
        }
        return null;
    }

    /** As the server prints it ({@code [v6]:port}); not the jnr helper: this path loads no native code. */
    static String hostPort(InetAddress host, int port) {
        String h = host.getHostAddress();
        return (host instanceof java.net.Inet6Address ? "[" + h + "]" : h) + ":" + port;
    }

    private static boolean holdsPage(long pid) {
        try {
            SupervisorPage.findPageFd(pid);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** 1 when a descriptor in {@code fds} links to one of {@code links}, 0 when none does, -1 when unreadable. */
    private static int holds(Path fds, Set<String> links) {
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(fds)) {
            for (Path fd : dir) {
                try {
                    if (links.contains(Files.readSymbolicLink(fd).toString())) {
                        return 1;
                    }
                } catch (IOException e) {
                    // closed while we listed
                }
            }
            return 0;
        } catch (java.nio.file.AccessDeniedException e) {
            return -1;
        } catch (IOException e) {
            return 0; // the process ended while we listed
        }
    }
}
