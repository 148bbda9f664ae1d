package m0.examples.embed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import m0.examples.testkit.M0serveChild;
import m0.examples.testkit.M0serveChild.ClassPaths;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedding service on the real m0serve, both entry points at 2 workers: the app's classes,
 * langchain4j, ONNX Runtime and Jackson reach m0serve only through --app-classpath. What comes
 * back is checked against the vectors the same model computes in this test's own JVM (cosine ≥
 * 0.9999 and no component more than 1e-5 off), one text at a time and as a batch; a body that is
 * not JSON is a 400. Each worker loads the model once, before it counts as started.
 */
class EmbedM0serveIntegrationTest {

    private static final List<String> TEXTS = List.of(
            "A team serves a sentence embedding model behind a prefork server.",
            "Le chat dort sur le canapé.",
            "x",
            "prefork servers balance connections across workers; the second worker must pay for itself.");
    /** Each worker's heap: the model and its session beside the server's own. */
    private static final String WORKER_HEAP = "384m";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static List<float[]> expected;

    @TempDir
    Path dir;

    @BeforeAll
    static void computeHere() {
        expected = MiniLm.defaults().embed(TEXTS);
        assertEquals(MiniLm.DIMENSION, expected.get(0).length);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void mainOnTheJdkApiAnswersTheSameVectors() throws Exception {
        ClassPaths cp = ClassPaths.split("examples-embed");
        cp.assertServerIsM0();
        try (M0serveChild m0 = M0serveChild.start(dir, cp, WORKER_HEAP, Map.of(), List.of("--workers", "2",
                "--blocking-threads", "2", "--main", EmbedMain.class.getName(),
                "--app-classpath", String.join(java.io.File.pathSeparator, cp.app()), "--", "127.0.0.1:0"))) {
            assertServes(m0);
            assertEquals(2, m0.stdout().stream().filter(l -> l.startsWith("EmbedMain listening on")).count(),
                    "one main, one model, per worker: " + m0.stdout());
            // --cpu-affinity auto leaves a --main app's workers free (docs/adr/0070), whatever the CPU count
            assertTrue(m0.stdout().stream().noneMatch(l -> l.contains("workers pinned")), m0.stdout().toString());
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void appOnTheBlockingPoolWithOneRuntimeThreadAnswersTheSameVectors() throws Exception {
        ClassPaths cp = ClassPaths.split("examples-embed");
        // Sized as README.md says: one ONNX Runtime thread per call, the cores shared out by m0serve.
        try (M0serveChild m0 = M0serveChild.start(dir, cp, WORKER_HEAP, Map.of("M0_EMBED_ORT_THREADS", "1"),
                List.of("--workers", "2", "--blocking-threads", "2", "--app", EmbedApp.class.getName(),
                        "--app-classpath", String.join(java.io.File.pathSeparator, cp.app())))) {
            assertServes(m0);
            List<String> loaded = m0.stdout().stream().filter(l -> l.startsWith("embed: worker ")).toList();
            assertEquals(2, loaded.size(), "one model per worker: " + m0.stdout());
            assertTrue(loaded.stream().allMatch(l -> l.contains("1 ONNX Runtime thread(s) per call")), loaded.toString());
            if (Runtime.getRuntime().availableProcessors() == 2) { // one worker per CPU: an App's loops are pinned
                assertTrue(m0.stdout().stream().anyMatch(l -> l.startsWith("m0serve: workers pinned: w0 on CPU")),
                        m0.stdout().toString());
            }
        }
    }

    private static void assertServes(M0serveChild m0) throws Exception {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        URI embed = URI.create("http://127.0.0.1:" + m0.port + "/embed");
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < TEXTS.size(); i++) {
                JsonNode one = post(client, embed, JSON.writeValueAsString(Map.of("text", TEXTS.get(i))), 200);
                assertClose(expected.get(i), one.get("embedding"), "text " + i);
            }
        }
        JsonNode batch = post(client, embed, JSON.writeValueAsString(Map.of("texts", TEXTS)), 200);
        assertEquals(TEXTS.size(), batch.get("embeddings").size());
        for (int i = 0; i < TEXTS.size(); i++) {
            assertClose(expected.get(i), batch.get("embeddings").get(i), "batch item " + i);
        }
        JsonNode bad = post(client, embed, "{\"text\": ", 400);
        assertTrue(bad.get("error").asText().startsWith("not JSON"), bad.toString());
        post(client, embed, "{\"texts\": []}", 400);
        post(client, embed, "{\"text\": \"  \"}", 400);
    }

    private static JsonNode post(HttpClient client, URI uri, String body, int status) throws Exception {
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(status, r.statusCode(), body + " -> " + r.body());
        return JSON.readTree(r.body());
    }

    private static void assertClose(float[] want, JsonNode got, String what) {
        assertEquals(want.length, got.size(), what + ": length");
        double dot = 0;
        double a = 0;
        double b = 0;
        double worst = 0;
        for (int k = 0; k < want.length; k++) {
            double g = got.get(k).floatValue();
            dot += want[k] * g;
            a += (double) want[k] * want[k];
            b += g * g;
            worst = Math.max(worst, Math.abs(want[k] - g));
        }
        double cosine = dot / Math.sqrt(a * b);
        assertTrue(cosine >= 0.9999, what + ": cosine " + cosine);
        assertTrue(worst <= 1e-5, what + ": max abs diff " + worst);
    }
}
