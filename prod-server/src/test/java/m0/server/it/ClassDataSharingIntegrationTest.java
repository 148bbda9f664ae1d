package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import m0.server.supervisor.StartupTimes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher (bin/m0serve) with its class-data archive, on the real processes (docs/adr/0011, 0027).
 * In the test phase there is no shaded jar yet, so the test lays out what the build does: an
 * {@code m0serve.jar} (main classes jarred, dependencies by its Class-Path: CDS cannot archive
 * from a directory) beside a copy of the launcher, then runs the build's training
 * ({@code m0.server.cds.CdsTraining}) on it.
 */
@Timeout(240)
class ClassDataSharingIntegrationTest {

    private static final long START_SECONDS = 60;

    @TempDir
    static Path trained;
    private final List<Process> processes = new ArrayList<>();

    @BeforeAll
    static void buildAndTrain() throws Exception {
        layout(trained);
        List<String> cmd = List.of(java(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("java.class.path"), "m0.server.cds.CdsTraining", trained.resolve("m0serve").toString(),
                "120");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("JAVA", java());
        Process p = pb.start();
        try {
            assertTrue(p.waitFor(150, TimeUnit.SECONDS), "the training run did not end within 150 s");
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, p.exitValue(), "training: " + out);
        } finally {
            ServerProcess.kill(p);
        }
        assertTrue(Files.isRegularFile(trained.resolve("m0serve.jsa")), "the archive written");
    }

    @AfterEach
    void killEverything() {
        for (Process p : processes) {
            ServerProcess.kill(p);
        }
    }

    @Test
    void theSupervisorAndAWorkerMapTheArchiveByDefault() throws Exception {
        Launched s = launch(trained, Map.of(), "--workers", "1");
        ProcessHandle worker = onlyWorker(s);
        String archive = trained.resolve("m0serve.jsa").toString();
        assertTrue(maps(s.process.pid()).contains(archive), "the supervisor maps the archive");
        assertTrue(maps(worker.pid()).contains(archive), "the worker maps the archive");
        assertHello(s.port);
        String err = s.stderr();
        assertFalse(err.contains("class-data archive missing"), err);
        // Start-up measured: in the log, and in the memfd m0serve stats reads.
        assertTrue(err.contains("m0serve: worker 0 (pid " + worker.pid() + ") started "), err);
        assertTrue(err.matches("(?s).*m0serve: ready \\d+ ms after launch.*"), err);
        StartupTimes times = StartupTimes.attach(s.process.pid()).orElseThrow();
        assertEquals(1, times.starts(0), "one start at index 0");
        assertTrue(times.startedMillis(0) > 0 && times.readyMillis() >= times.startedMillis(0),
                "spawn to PARKED " + times.startedMillis(0) + " ms within launch to ready " + times.readyMillis() + " ms");
        assertTrue(times.format(1).contains("w0="), times.format(1));
        assertFalse(String.join("\n", s.stdout).contains("Unable to use shared archive"), String.join("\n", s.stdout));
    }

    @Test
    void aWorkerLoadsItsClassesFromTheArchiveAndNoPicocliWithOptionsAdded() throws Exception {
        String classes = classesLoaded("M0SERVE_WORKER_JAVA_OPTS", "-Xms8m");
        assertArchived(classes, "m0.server.worker.Worker", "the worker's own classes come from the archive");
        assertArchived(classes, "m0.server.http.HttpSession", "and the HTTP classes");
        assertArchived(classes, "com.kenai.jffi.Invoker", "and the libc binding's (docs/adr/0028)");
        assertFalse(classes.contains("picocli"), "a worker never loads the command line's classes");
        assertFalse(classes.contains("] org.objectweb.asm.") || classes.contains("$jnr$ffi$"),
                "no binding class is generated at start (jnr-ffi's ran its ASM over the whole interface)");
    }

    @Test
    void theSupervisorLoadsTheCommandLineFromTheArchive() throws Exception {
        String classes = classesLoaded("M0_JAVA_OPTS", "-XX:+UseSerialGC -XX:TieredStopAtLevel=1");
        assertArchived(classes, "m0.server.cli.M0serve", "the command line comes from the archive");
        assertArchived(classes, "m0.server.settings.SettingsReader", "and the settings' reader");
        assertFalse(classes.contains("] picocli."), "serving reads its settings without picocli (docs/adr/0065)");
        assertArchived(classes, "m0.server.supervisor.Supervisor", "and the supervisor");
    }

    /** The class-load log of a 1-worker server's supervisor or worker (by its options' variable), after a hello. */
    private String classesLoaded(String optionsVariable, String options) throws Exception {
        Path log = trained.resolve(optionsVariable + "-classes.log");
        Launched s = launch(trained, Map.of(optionsVariable, options + " -Xlog:class+load=info:file=" + log), "--workers", "1");
        assertHello(s.port);
        return Files.readString(log);
    }

    private static void assertArchived(String classLog, String className, String what) {
        // "(top)" follows for a dynamic archive's layer; a static archive's classes say only this.
        assertTrue(classLog.contains(className + " source: shared objects file"), what + ":\n" + head(classLog));
    }

    @Test
    void anArchiveTheJvmRejectsIsSaidOnceAndTheWorkersStartOnTheJdksOwn(@TempDir Path moved) throws Exception {
        // The trained layout moved elsewhere: the archive still looks fresh to the launcher, but
        // it names the old jar path, so JDK 17 rejects it without a word (and shares nothing).
        layout(moved);
        Files.copy(trained.resolve("m0serve.jsa"), moved.resolve("m0serve.jsa"));
        assertTrue(moved.resolve("m0serve.jsa").toFile().setLastModified(System.currentTimeMillis() + 1000));
        Launched s = launch(moved, Map.of(), "--workers", "1");
        ProcessHandle worker = onlyWorker(s);
        assertHello(s.port);
        String err = s.stderr();
        assertEquals(1, err.lines().filter(l -> l.contains("class-data archive not usable")).count(), err);
        String maps = maps(worker.pid());
        assertFalse(maps.contains("m0serve.jsa"), "the worker is not given the rejected archive");
        assertTrue(maps.contains("classes.jsa"), "it shares the JDK's own archive instead");
    }

    @Test
    void withoutArchivesTheServerStartsAndSaysSoOnce(@TempDir Path bare) throws Exception {
        layout(bare);
        Launched s = launch(bare, Map.of(), "--workers", "1");
        ProcessHandle worker = onlyWorker(s);
        assertFalse(maps(worker.pid()).contains("m0serve.jsa"), "no archive to map");
        assertHello(s.port);
        String err = s.stderr();
        assertEquals(1, err.lines().filter(l -> l.contains("class-data archive missing")).count(), err);
    }

    // --- the layout, the launch, the checks ---

    private static String java() {
        return System.getProperty("m0.test.java", System.getProperty("java.home") + "/bin/java");
    }

    /** {@code dir/m0serve} (the launcher) and {@code dir/m0serve.jar} over {@code dir/lib/*.jar}. */
    private static void layout(Path dir) throws IOException {
        Path launcher = Path.of("bin", "m0serve");
        assertTrue(Files.isRegularFile(launcher), "run from prod-server/ (surefire's default): " + launcher.toAbsolutePath());
        Files.copy(launcher, dir.resolve("m0serve"), StandardCopyOption.REPLACE_EXISTING);
        assertTrue(dir.resolve("m0serve").toFile().setExecutable(true));
        Path lib = Files.createDirectories(dir.resolve("lib"));
        List<String> classPath = new ArrayList<>();
        int n = 0;
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Path e = Path.of(entry);
            String name = "lib/" + (n++) + "-" + e.getFileName();
            if (Files.isDirectory(e)) {
                if (e.getFileName().toString().equals("test-classes")) {
                    continue; // the server needs none of the tests
                }
                name += ".jar";
                jar(e, dir.resolve(name), null);
            } else if (entry.endsWith(".jar")) {
                Files.copy(e, dir.resolve(name));
            } else {
                continue;
            }
            classPath.add(name);
        }
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        m.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "m0.server.cli.M0serve");
        m.getMainAttributes().put(Attributes.Name.CLASS_PATH, String.join(" ", classPath));
        jar(null, dir.resolve("m0serve.jar"), m);
        assertTrue(Files.isDirectory(lib));
    }

    private static void jar(Path classes, Path target, Manifest manifest) throws IOException {
        try (OutputStream os = Files.newOutputStream(target);
             JarOutputStream jar = manifest == null ? new JarOutputStream(os) : new JarOutputStream(os, manifest)) {
            if (classes == null) {
                return;
            }
            try (Stream<Path> files = Files.walk(classes)) {
                for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
                    jar.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
                    jar.write(Files.readAllBytes(f));
                    jar.closeEntry();
                }
            }
        }
    }

    /** A running launcher: its supervisor (the launcher execs java), port, stdout lines and stderr file. */
    private record Launched(Process process, int port, List<String> stdout, Path err) {
        String stderr() throws IOException {
            return Files.readString(err);
        }
    }

    /** Starts {@code dir/m0serve} on 127.0.0.1:0 and waits (bounded) for its ready line. */
    private Launched launch(Path dir, Map<String, String> env, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(dir.resolve("m0serve").toString(), "--bind", "127.0.0.1:0"));
        cmd.addAll(List.of(args));
        Path err = Files.createTempFile(dir, "m0serve-", ".err");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(err.toFile());
        pb.environment().put("JAVA", java());
        for (String k : List.of("M0_JAVA_OPTS", "M0_CDS", "M0_CDS_TRAIN")) {
            pb.environment().remove(k);
        }
        pb.environment().keySet().removeIf(k -> k.startsWith("M0SERVE_"));
        pb.environment().putAll(env);
        Process p = pb.start();
        processes.add(p);
        LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // the process is gone
            }
        }, "m0serve-stdout");
        reader.setDaemon(true);
        reader.start();
        List<String> seen = new ArrayList<>();
        int port = -1;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_SECONDS);
        while (seen.stream().noneMatch(l -> l.startsWith("m0serve: ready:"))) {
            String line = lines.poll(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())),
                    TimeUnit.MILLISECONDS);
            assertNotNull(line, "the ready line within " + START_SECONDS + " s; stdout " + seen + "; stderr "
                    + Files.readString(err));
            seen.add(line);
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)/")
                    .matcher(line);
            if (m.find()) {
                port = Integer.parseInt(m.group(1));
            }
        }
        assertTrue(port > 0, "a port in " + seen);
        return new Launched(p, port, seen, err);
    }

    private static ProcessHandle onlyWorker(Launched s) {
        List<ProcessHandle> workers = s.process.children().toList();
        assertEquals(1, workers.size(), "one worker below the supervisor: " + workers);
        return workers.get(0);
    }

    private static String maps(long pid) throws IOException {
        return Files.readString(Path.of("/proc", Long.toString(pid), "maps"));
    }

    private static void assertHello(int port) throws IOException {
        try (Http h = new Http(port)) {
            h.send(Http.get("/"));
            Http.Response r = h.read();
            assertNotNull(r, "a response to GET /");
            assertEquals(200, r.status());
        }
    }

    private static String head(String text) {
        return text.lines().limit(40).reduce("", (a, b) -> a + b + "\n");
    }
}
