package m0.server.cds;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import m0.server.supervisor.JavaCommand;

/**
 * The build's class-data-sharing training run (docs/adr/0011, 0027): starts the launcher with
 * {@code M0_CDS_TRAIN=1} on 127.0.0.1, an ephemeral port and one worker, sends the requests
 * whose classes a worker loads (keep-alive, pipelining, the blocking pool, errors), then stops
 * it with SIGTERM. The supervisor and the worker each list the classes they loaded
 * ({@code -XX:DumpLoadedClassList}); the training merges the two lists and dumps one static
 * archive from them, beside the jar ({@value #ARCHIVE}), for the supervisor and all workers
 * alike. A static archive, unlike JDK 17's dynamic one, also holds classes of file version 49
 * (picocli's) and the JDK's own classes the roles use.
 *
 * <pre>java -cp m0serve.jar m0.server.cds.CdsTraining path/to/m0serve [timeout-seconds]</pre>
 *
 * <p>Never fails a build: whatever goes wrong is one line on stderr, the process tree is killed
 * by pid, and the archive is removed (the launcher then starts without it, saying so).
 * Exit 0 with the archive, 1 without.
 */
public final class CdsTraining {

    private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)/");
    static final String ARCHIVE = "m0serve.jsa";
    /** The class lists the launcher asks each role for under M0_CDS_TRAIN, and their union. */
    static final List<String> CLASS_LISTS = List.of("m0serve-supervisor.classlist", "m0serve-worker.classlist");
    static final String MERGED_LIST = "m0serve.classlist";
    /** The dump's own output (warnings for the dynamic proxies it cannot archive, ...). */
    static final String DUMP_LOG = "m0serve-cds-dump.log";

    /** Each batch on a connection of its own; the last request of each closes it. */
    private static final List<String> BATCHES = List.of(
            get("/", false) + get("/pid", false) + get("/", true),
            get("/sleep?ms=1", true),
            get("/work?us=10", true),
            get("/missing", true),
            "POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello",
            "GET / HTTP/1.0\r\n\r\n",
            "BROKEN\r\n\r\n");

    private CdsTraining() {
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length < 1) {
            System.err.println("usage: CdsTraining path/to/m0serve [timeout-seconds]");
            System.exit(2);
        }
        Path launcher = Path.of(args[0]).toAbsolutePath();
        long timeout = args.length > 1 ? Long.parseLong(args[1]) : 120;
        System.exit(train(launcher, timeout) ? 0 : 1);
    }

    /** Runs the training; true when the archive was written. */
    static boolean train(Path launcher, long timeoutSeconds) throws InterruptedException {
        Path dir = launcher.getParent();
        Path archive = dir.resolve(ARCHIVE);
        long start = System.nanoTime();
        long deadline = start + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        Process p;
        try {
            ProcessBuilder pb = new ProcessBuilder(launcher.toString(), "--bind", "127.0.0.1:0", "--workers", "1")
                    .redirectError(ProcessBuilder.Redirect.INHERIT);
            pb.environment().put("M0_CDS_TRAIN", "1");
            // The archives must hold what the default options load: no test or user overrides.
            pb.environment().remove("M0_JAVA_OPTS");
            pb.environment().keySet().removeIf(k -> k.startsWith("M0SERVE_")); // settings: the defaults
            p = pb.start();
        } catch (IOException e) {
            return failed("cannot start " + launcher + ": " + e.getMessage(), null, archive);
        }
        try {
            BlockingQueue<String> lines = new ArrayBlockingQueue<>(1024);
            Thread reader = new Thread(() -> readLines(p.getInputStream(), lines), "cds-training-stdout");
            reader.setDaemon(true);
            reader.start();
            int port = -1;
            boolean ready = false;
            while (!ready) {
                String line = lines.poll(remainingMillis(deadline), TimeUnit.MILLISECONDS);
                if (line == null) {
                    return failed("no 'ready' line from the server within " + timeoutSeconds + " s", p, archive);
                }
                Matcher m = LISTENING.matcher(line);
                if (m.find()) {
                    port = Integer.parseInt(m.group(1));
                }
                ready = line.contains("m0serve: ready:");
            }
            if (port < 0) {
                return failed("the server printed no port", p, archive);
            }
            // The dump must use the java the launcher runs (${JAVA:-java} in bin/m0serve): the one
            // the supervisor runs now, read from the process, as a worker's is (no environment read).
            String java = JavaCommand.javaOf(p.toHandle());
            for (String batch : BATCHES) {
                exchange(port, batch);
            }
            p.destroy(); // SIGTERM: the supervisor stops its worker, which dumps at its exit
            if (!p.waitFor(remainingMillis(deadline), TimeUnit.MILLISECONDS)) {
                return failed("the server did not exit within " + timeoutSeconds + " s of the start", p, archive);
            }
            if (p.exitValue() != 0) {
                return failed("the server exited " + p.exitValue(), p, archive);
            }
            String dumped = dump(java, dir, archive, deadline);
            if (dumped != null) {
                return failed(dumped, p, archive);
            }
            System.err.printf("m0serve: class-data archive written in %d ms: %s (%d KiB)%n",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), archive, Files.size(archive) / 1024);
            return true;
        } catch (IOException e) {
            return failed(e.toString(), p, archive);
        } finally {
            killTree(p); // nothing outlives the training, whatever happened
        }
    }

    /**
     * Merges the roles' class lists (first occurrence kept, the supervisor's first) and runs
     * {@code java -Xshare:dump} over them with the jar as class path: the launcher's own
     * {@code java} (the binary its supervisor ran) and jar path, which a run must match. Returns
     * null, or why it failed.
     */
    private static String dump(String java, Path dir, Path archive, long deadline)
            throws IOException, InterruptedException {
        java.util.LinkedHashSet<String> lines = new java.util.LinkedHashSet<>();
        for (String name : CLASS_LISTS) {
            Path list = dir.resolve(name);
            if (!Files.isRegularFile(list) || Files.size(list) == 0) {
                return "no class list " + list;
            }
            lines.addAll(Files.readAllLines(list, StandardCharsets.UTF_8));
        }
        Path merged = dir.resolve(MERGED_LIST);
        Files.write(merged, lines, StandardCharsets.UTF_8);
        Path log = dir.resolve(DUMP_LOG);
        Process d = new ProcessBuilder(java, "-Xshare:dump",
                "-XX:SharedClassListFile=" + merged, "-XX:SharedArchiveFile=" + archive,
                "-cp", dir.resolve("m0serve.jar").toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            if (!d.waitFor(remainingMillis(deadline), TimeUnit.MILLISECONDS)) {
                return "the archive dump did not end in time (" + log + ")";
            }
            if (d.exitValue() != 0 || !Files.isRegularFile(archive)) {
                return "the archive dump exited " + d.exitValue() + " (" + log + ")";
            }
            return null;
        } finally {
            d.destroyForcibly();
        }
    }

    private static String get(String path, boolean close) {
        return "GET " + path + " HTTP/1.1\r\nHost: t\r\n" + (close ? "Connection: close\r\n" : "") + "\r\n";
    }

    /** Sends a batch on a fresh connection and reads until the server closes it (bounded). */
    private static void exchange(int port, String batch) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(batch.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[4096];
            while (in.read(buf) >= 0) {
                // drain to EOF: every request of the batch answered
            }
        }
    }

    private static void readLines(InputStream in, BlockingQueue<String> lines) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                lines.offer(line);
            }
        } catch (IOException ignored) {
            // the server is gone
        }
    }

    private static long remainingMillis(long deadline) {
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
    }

    private static boolean failed(String why, Process p, Path archive) {
        killTree(p);
        try {
            Files.deleteIfExists(archive); // half-written or unmatched: the launcher must not use it
        } catch (IOException ignored) {
            // the launcher skips what is missing or stale
        }
        System.err.println("m0serve: class-data training failed, no archive (the server starts without): " + why);
        return false;
    }

    /** SIGKILL to the process and every descendant, by pid; waits (bounded) for each. */
    private static void killTree(Process p) {
        if (p == null) {
            return;
        }
        List<ProcessHandle> all = new ArrayList<>(p.descendants().toList());
        all.add(p.toHandle());
        for (ProcessHandle h : all) {
            h.destroyForcibly();
        }
        for (ProcessHandle h : all) {
            try {
                h.onExit().get(10, TimeUnit.SECONDS);
            } catch (Exception ignored) {
                // gone or not ours; nothing more to do
            }
        }
    }
}
