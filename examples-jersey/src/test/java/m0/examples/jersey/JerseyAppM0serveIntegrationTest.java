package m0.examples.jersey;

import m0.examples.testkit.M0serveChild;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * JerseyApp on the real m0serve: {@code --workers 2 --main m0.examples.jersey.JerseyApp
 * --app-classpath <this module's classes and Jersey's jars> -- 127.0.0.1:0}. m0serve itself runs
 * on m0-prod-server and its libraries alone: Jersey reaches it only through --app-classpath.
 * Jersey's container asks {@code HttpServer.create} for port 0 and gets m0's listener. The burst
 * spread runs first, on connections no other test has left open.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
final class JerseyAppM0serveIntegrationTest {

  @TempDir static Path dir;

  private static M0serveChild m0;
  private static HttpClient client;
  private static String base;

  @BeforeAll
  @Timeout(120)
  static void start() throws Exception {
    M0serveChild.ClassPaths cp = M0serveChild.ClassPaths.split("examples-jersey");
    String classes = "examples-jersey" + File.separator + "target" + File.separator + "classes";
    assertTrue(cp.app().stream().anyMatch(e -> e.endsWith(classes)), "the app's classes: " + cp.app());
    assertTrue(cp.app().stream().anyMatch(e -> jar(e).startsWith("jersey-server-")), "Jersey: " + cp.app());
    assertTrue(cp.app().stream().anyMatch(e -> jar(e).startsWith("hk2-")), "hk2: " + cp.app());
    cp.assertServerIsM0();
    assertTrue(cp.server().stream().noneMatch(e -> jar(e).startsWith("jersey-") || jar(e).startsWith("jakarta.")
        || jar(e).startsWith("hk2-")), "no Jersey in m0serve's own class path: " + cp.server());
    m0 = M0serveChild.start(dir, cp, JerseyApp.class.getName(), "127.0.0.1:0");
    base = "http://127.0.0.1:" + m0.port;
    client = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(10))
        .build();
  }

  @AfterAll
  @Timeout(60)
  static void stop() throws Exception {
    if (m0 != null) {
      m0.close();
    }
  }

  private static String jar(String entry) {
    return Path.of(entry).getFileName().toString();
  }

  private static HttpResponse<String> get(String path) throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create(base + path))
        .timeout(Duration.ofSeconds(30)).build(), BodyHandlers.ofString());
  }

  private static HttpResponse<String> post(String path, String body) throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create(base + path))
        .header("Content-Type", "text/plain")
        .POST(BodyPublishers.ofString(body))
        .timeout(Duration.ofSeconds(30)).build(), BodyHandlers.ofString());
  }

  @Test
  @Order(1)
  @Timeout(60)
  void aBurstOfThirtyTwoSpreadsSixteenSixteen() throws Exception {
    m0.assertBurstSpreadsEvenly(32, "/greet/burst", 2_000);
  }

  @Test
  @Timeout(30)
  void eachWorkersAppGotTheListenerForPortZero() {
    List<String> said = m0.stdout().stream().filter(l -> l.startsWith("JerseyApp listening on")).toList();
    assertEquals(2, said.size(), "stdout: " + m0.stdout());
    said.forEach(l -> assertEquals("JerseyApp listening on http://127.0.0.1:" + m0.port + "/", l));
  }

  @Test
  @Timeout(30)
  void greetsByQuery() throws Exception {
    HttpResponse<String> r = get("/greet?name=ann");
    assertEquals(200, r.statusCode());
    assertEquals("hello ann\n", r.body());
    assertTrue(r.headers().firstValue("content-type").orElseThrow().startsWith("text/plain"));
    assertEquals("hello world\n", get("/greet").body());
  }

  @Test
  @Timeout(30)
  void greetsByPath() throws Exception {
    HttpResponse<String> r = get("/greet/bob%20smith");
    assertEquals(200, r.statusCode());
    assertEquals("hello bob smith\n", r.body());
  }

  @Test
  @Timeout(30)
  void sumsTheNumbersOfTheBody() throws Exception {
    HttpResponse<String> r = post("/sum", "1 2 3\n4.5,-1\n  0.25 ");
    assertEquals(200, r.statusCode());
    assertEquals("9.75\n", r.body());
    assertEquals("0\n", post("/sum", "").body());
    HttpResponse<String> bad = post("/sum", "1 two 3");
    assertEquals(400, bad.statusCode());
    assertEquals("not a number: two\n", bad.body());
  }

  @Test
  @Timeout(60)
  void sumOfALongBodyStreams() throws Exception {
    // 200,000 ones, 400,000 bytes: over no limit of m0serve's, a --main app's body streams.
    StringBuilder body = new StringBuilder();
    for (int i = 0; i < 200_000; i++) {
      body.append(i % 20 == 19 ? "1\n" : "1 ");
    }
    assertEquals("200000\n", post("/sum", body.toString()).body());
  }

  @Test
  @Timeout(30)
  void unknownIs404AndWrongMethodIs405() throws Exception {
    assertEquals(404, get("/nothing").statusCode());
    assertEquals(405, get("/sum").statusCode());
  }
}
