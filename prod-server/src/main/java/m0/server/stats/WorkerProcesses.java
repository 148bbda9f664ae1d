package m0.server.stats;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import m0.core.AcceptPolicy;
import m0.server.launch.WorkerSpec;

/**
 * The worker processes of a running supervisor as the kernel shows them, for readiness checks
 * that do not depend on the accept policy: under {@code race} nothing is written to the page,
 * so "started" is read from the worker's epoll set instead — a worker whose epoll instance
 * watches the listener (descriptor {@link WorkerSpec#LISTEN_FD}) is in its loop, or a few
 * microseconds from it.
 */
public final class WorkerProcesses {

    private static final Pattern LISTENER_WATCHED =
            Pattern.compile("(?m)^tfd:\\s+" + WorkerSpec.LISTEN_FD + "\\s");

    private WorkerProcesses() {
    }

    /** The supervisor's live children: its workers. */
    public static List<ProcessHandle> of(long supervisorPid) {
        return ProcessHandle.of(supervisorPid).map(p -> p.children().filter(ProcessHandle::isAlive).toList())
                .orElse(List.of());
    }

    /** How many of the supervisor's workers have the listener in their epoll set. */
    public static int polling(long supervisorPid) {
        int n = 0;
        for (ProcessHandle worker : of(supervisorPid)) {
            if (watchesListener(worker.pid())) {
                n++;
            }
        }
        return n;
    }

    /** True when one of the process's epoll instances ({@code anon_inode:[eventpoll]}) watches fd 3. */
    public static boolean watchesListener(long pid) {
        Path fds = Path.of("/proc", Long.toString(pid), "fd");
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(fds)) {
            for (Path fd : dir) {
                String link;
                try {
                    link = Files.readSymbolicLink(fd).toString();
                } catch (IOException e) {
                    continue;
                }
                if (!link.equals("anon_inode:[eventpoll]")) {
                    continue;
                }
                Path info = Path.of("/proc", Long.toString(pid), "fdinfo", fd.getFileName().toString());
                String text;
                try {
                    text = Files.readString(info, StandardCharsets.US_ASCII);
                } catch (IOException e) {
                    continue;
                }
                if (LISTENER_WATCHED.matcher(text).find()) {
                    return true;
                }
            }
        } catch (IOException e) {
            return false; // gone, or not ours to read
        }
        return false;
    }

    /** A worker's {@code key=} argument (its WorkerSpec), if the process is still there. */
    static Optional<String> specValue(long workerPid, String key) {
        try {
            byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(workerPid), "cmdline"));
            for (String a : new String(raw, StandardCharsets.UTF_8).split("\0")) {
                if (a.startsWith(key + "=")) {
                    return Optional.of(a.substring(key.length() + 1));
                }
            }
        } catch (IOException e) {
            // it exited while we looked
        }
        return Optional.empty();
    }

    /**
     * Every worker is serving: at least as many workers as the supervisor's {@code --workers}
     * watch the listener (fountain: may have left it to an earlier worker) and, when the policy
     * shares, each of those workers' lines has left NOT_STARTED (its start() has run: its
     * channel is read).
     */
    public static boolean allReady(SupervisorPage page) {
        PageSnapshot snapshot = null;
        int serving = 0;
        for (ProcessHandle worker : of(page.pid())) {
            String policy = specValue(worker.pid(), "accept-policy").orElse("");
            // Fountain's later workers take the listener out of their epoll set while an earlier
            // worker takes connections (docs/adr/0022): their start on the page is the signal.
            if (!"fountain".equals(policy) && !watchesListener(worker.pid())) {
                continue;
            }
            boolean shares = !policy.isEmpty() && AcceptPolicy.named(policy).shares();
            if (shares) {
                int index = specValue(worker.pid(), "index").map(Integer::parseInt).orElse(-1);
                if (snapshot == null) {
                    snapshot = page.read();
                }
                if (index < 0 || index >= snapshot.workers().size() || !snapshot.worker(index).started()) {
                    continue;
                }
            }
            serving++;
        }
        return serving >= page.workers();
    }
}
