package m0.server.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The real m0serve binary as a child process: {@code java -cp <the test class path>
 * m0.server.cli.M0serve ...} on 127.0.0.1 port 0; the port is read from the supervisor's
 * "listening on" line. {@link #close()} kills the supervisor and every descendant by pid.
 */
final class ServerProcess implements AutoCloseable {

    private static final Pattern LISTENING = Pattern.compile("listening on https?://127\\.0\\.0\\.1:(\\d+)/");
    static final long START_SECONDS = 30;

    final Process process;
    final int port;
    /** The supervisor's "listening on" line. */
    final String banner;
    private final Path stderr;
    private CompletableFuture<String> ready;
    /** Every stdout line after the banner, as it comes (the drain thread adds, tests read). */
    private final List<String> lines = java.util.Collections.synchronizedList(new ArrayList<>());

    private ServerProcess(Process process, String banner, Path stderr) {
        this.process = process;
        this.banner = banner;
        Matcher m = LISTENING.matcher(banner);
        this.port = m.find() ? Integer.parseInt(m.group(1)) : -1;
        this.stderr = stderr;
    }

    static List<String> command(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(System.getProperty("m0.test.java", System.getProperty("java.home") + "/bin/java"));
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-Xmx64m");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("m0.server.cli.M0serve");
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** Starts the server with {@code args} (plus --bind 127.0.0.1:0 unless given) and waits for its port. */
    static ServerProcess start(String... args) throws IOException, InterruptedException {
        return start(Map.of(), args);
    }

    /** The same with {@code dev}, developer settings (faults, A/B arms: docs/settings.md), after {@code args}. */
    static ServerProcess startWith(List<String> dev, String... args) throws IOException, InterruptedException {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(dev);
        return start(all.toArray(String[]::new));
    }

    /** The same with extra environment variables for the supervisor (and so its workers). */
    static ServerProcess start(Map<String, String> env, String... args) throws IOException, InterruptedException {
        return start(List.of(), env, args);
    }

    /**
     * The same run through {@code wrapper} (e.g. {@code prlimit --nofile=256:256}), which must
     * exec the command so that the supervisor keeps the child's pid.
     */
    static ServerProcess start(List<String> wrapper, Map<String, String> env, String... args)
            throws IOException, InterruptedException {
        List<String> all = new ArrayList<>(List.of(args));
        if (!all.contains("--bind")) {
            all.add(0, "127.0.0.1:0");
            all.add(0, "--bind");
        }
        Path err = Files.createTempFile("m0serve-", ".err");
        List<String> cmd = new ArrayList<>(wrapper);
        cmd.addAll(command(all.toArray(String[]::new)));
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .redirectError(err.toFile());
        // Workers start lean in tests: two cores are shared by everything.
        pb.environment().keySet().removeIf(k -> k.startsWith("M0SERVE_")); // the test's settings only
        pb.environment().put("M0SERVE_WORKER_HEAP", "128m");
        pb.environment().put("M0SERVE_WORKER_JAVA_OPTS", "-XX:TieredStopAtLevel=1");
        pb.environment().putAll(env);
        Process p = pb.start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> listening = CompletableFuture.supplyAsync(() -> {
            try {
                for (String line; (line = out.readLine()) != null; ) {
                    if (LISTENING.matcher(line).find()) {
                        return line;
                    }
                }
                return null;
            } catch (IOException e) {
                return null;
            }
        });
        String banner;
        try {
            banner = listening.get(START_SECONDS, TimeUnit.SECONDS);
        } catch (Exception e) {
            banner = null;
        }
        if (banner == null) {
            kill(p);
            throw new IllegalStateException("m0serve did not report its port; stderr: " + Files.readString(err));
        }
        // Keep draining stdout so the child never blocks on a full pipe; note the ready line.
        ServerProcess server = new ServerProcess(p, banner, err);
        CompletableFuture<String> ready = new CompletableFuture<>();
        Thread drain = new Thread(() -> {
            try {
                for (String line; (line = out.readLine()) != null; ) {
                    server.lines.add(line);
                    if (line.contains("m0serve: ready:")) {
                        ready.complete(line);
                    }
                }
            } catch (IOException ignored) {
                // the process is gone
            }
            ready.complete(null);
        }, "m0serve-stdout");
        server.ready = ready;
        drain.setDaemon(true);
        drain.start();
        return server;
    }

    long pid() {
        return process.pid();
    }

    /**
     * The supervisor's "ready: N worker(s) started" line, printed once every first worker has
     * written its start to the page; null if stdout closed first.
     */
    String awaitReady(long seconds) throws Exception {
        return ready.get(seconds, TimeUnit.SECONDS);
    }

    /**
     * The first stdout line after the banner that matches {@code pattern} (its first group if it
     * has one), polled until {@code seconds} pass; null if none came.
     */
    String awaitLine(Pattern pattern, long seconds) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        do {
            synchronized (lines) {
                for (String line : lines) {
                    Matcher m = pattern.matcher(line);
                    if (m.find()) {
                        return m.groupCount() > 0 ? m.group(1) : line;
                    }
                }
            }
            Thread.sleep(10); // polling the drain thread's list, bounded by the deadline
        } while (System.nanoTime() - until < 0);
        return null;
    }

    String stderr() throws IOException {
        return Files.readString(stderr);
    }

    /** The size of what the server has written to stderr so far (its log). */
    long stderrBytes() throws IOException {
        return Files.size(stderr);
    }

    /** Every process below the supervisor (its workers). */
    List<ProcessHandle> descendants() {
        return process.descendants().toList();
    }

    /** The pid of the supervisor's live worker at {@code index} (its argv says index=N), or -1. */
    long workerPid(int index) {
        for (ProcessHandle h : process.toHandle().children().filter(ProcessHandle::isAlive).toList()) {
            try {
                String cmdline = Files.readString(Path.of("/proc/" + h.pid() + "/cmdline"), StandardCharsets.UTF_8);
                if (List.of(cmdline.split("\0")).contains("index=" + index)) {
                    return h.pid();
                }
            } catch (IOException e) {
                // gone meanwhile
            }
        }
        return -1;
    }

    @Override
    public void close() throws IOException {
        kill(process);
        Files.deleteIfExists(stderr);
    }

    /** SIGKILL to the supervisor and each descendant, by pid; waits (bounded) for them to go. */
    static void kill(Process p) {
        List<ProcessHandle> all = new ArrayList<>(p.descendants().toList());
        all.add(p.toHandle());
        for (ProcessHandle h : all) {
            h.destroyForcibly();
        }
        for (ProcessHandle h : all) {
            try {
                h.onExit().get(10, TimeUnit.SECONDS);
            } catch (Exception ignored) {
                // reported by the test that cares
            }
        }
    }
}
