package m0.examples.notes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The notes app served by the real m0serve through {@code --app-classpath}: the server's own
 * class path holds neither the app nor sqlite-jdbc (both are taken out of this test's), so the
 * app runs only if m0serve loads it apart. The supervisor and its worker are killed by pid.
 */
class NotesAppClasspathIntegrationTest {

    private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)/");

    @TempDir
    Path dir;

    @Test
    @Timeout(90)
    void theExampleAnswersThroughAppClasspath() throws Exception {
        List<String> app = new ArrayList<>();
        List<String> server = new ArrayList<>();
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            boolean ours = e.contains("examples" + File.separator + "target");
            if (e.contains("sqlite-jdbc") || e.endsWith("examples" + File.separator + "target" + File.separator + "classes")) {
                app.add(e);
            } else if (!ours) {
                server.add(e);
            }
        }
        assertEquals(2, app.size(), "the app's classes and sqlite-jdbc: " + app);
        List<String> cmd = new ArrayList<>(List.of(System.getProperty("m0.test.java", "java"),
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx64m", "-cp", String.join(File.pathSeparator, server),
                "m0.server.cli.M0serve", "--bind", "127.0.0.1:0", "--workers", "1",
                "--app", NotesApp.class.getName(), "--app-classpath", String.join(File.pathSeparator, app)));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(dir.resolve("err").toFile());
        pb.environment().put("M0_NOTES_DB", dir.resolve("notes.db").toString());
        pb.environment().put("M0SERVE_WORKER_HEAP", "128m"); // added to the workers' default JVM options
        pb.environment().put("M0SERVE_WORKER_JAVA_OPTS", "-XX:TieredStopAtLevel=1");
        Process p = pb.start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            CompletableFuture<Integer> port = CompletableFuture.supplyAsync(() -> {
                int found = -1;
                try {
                    for (String line; (line = out.readLine()) != null; ) {
                        Matcher m = LISTENING.matcher(line);
                        if (m.find()) {
                            found = Integer.parseInt(m.group(1));
                        }
                        if (line.contains("m0serve: ready:")) {
                            return found; // the worker has started: the app's init has run
                        }
                    }
                } catch (java.io.IOException e) {
                    // exited: reported below with its stderr
                }
                return -1;
            });
            int at = port.get(60, TimeUnit.SECONDS);
            assertTrue(at > 0, "not ready; stderr: " + Files.readString(dir.resolve("err")));
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
            URI base = URI.create("http://127.0.0.1:" + at);
            HttpResponse<String> created = http.send(HttpRequest.newBuilder(base.resolve("/notes"))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"text\":\"shipped apart\"}"))
                    .header("Content-Type", "application/json").timeout(Duration.ofSeconds(20)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(201, created.statusCode(), created.body());
            assertEquals("{\"id\":1,\"text\":\"shipped apart\"}", created.body());
            HttpResponse<String> list = http.send(HttpRequest.newBuilder(base.resolve("/notes"))
                    .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals("[{\"id\":1,\"text\":\"shipped apart\"}]", list.body());
            assertEquals("application/json", list.headers().firstValue("Content-Type").orElse(""));
            assertTrue(Files.size(dir.resolve("notes.db")) > 0);
        } finally {
            List<ProcessHandle> all = new ArrayList<>(p.descendants().toList());
            all.add(p.toHandle());
            all.forEach(ProcessHandle::destroyForcibly);
            for (ProcessHandle h : all) {
                h.onExit().get(10, TimeUnit.SECONDS);
            }
            assertFalse(p.isAlive());
        }
    }
}
