package m0.examples.jersey;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the three resources answer, whatever serves them: the JDK's own server in this JVM
 * ({@link JerseyAppTest}) or the real m0serve ({@link JerseyAppM0serveIntegrationTest}). A
 * subclass starts its server once and says where it is.
 */
abstract class JerseyResourcesContract {

  private static final HttpClient CLIENT = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10))
      .build();

  /** "http://127.0.0.1:PORT" of the server under test. */
  abstract String base();

  HttpResponse<String> get(String path) throws Exception {
    return CLIENT.send(HttpRequest.newBuilder(URI.create(base() + path))
        .timeout(Duration.ofSeconds(30)).build(), BodyHandlers.ofString());
  }

  HttpResponse<String> post(String path, String body) throws Exception {
    return CLIENT.send(HttpRequest.newBuilder(URI.create(base() + path))
        .header("Content-Type", "text/plain")
        .POST(BodyPublishers.ofString(body))
        .timeout(Duration.ofSeconds(30)).build(), BodyHandlers.ofString());
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
  }

  @Test
  @Timeout(60)
  void sumOfALongBodyStreams() throws Exception {
    // 200,000 ones, 400,000 bytes over many lines: the sum reads them as they come (on m0serve,
    // past --max-body-bytes: a --main app's body streams).
    StringBuilder body = new StringBuilder();
    for (int i = 0; i < 200_000; i++) {
      body.append(i % 20 == 19 ? "1\n" : "1 ");
    }
    assertEquals("200000\n", post("/sum", body.toString()).body());
  }

  @Test
  @Timeout(30)
  void aBadNumberIs400() throws Exception {
    HttpResponse<String> r = post("/sum", "1 two 3");
    assertEquals(400, r.statusCode());
    assertEquals("not a number: two\n", r.body());
    assertEquals(400, post("/sum", "1".repeat(SumResource.MAX_LINE + 1)).statusCode());
  }

  @Test
  @Timeout(30)
  void unknownIs404AndWrongMethodIs405() throws Exception {
    assertEquals(404, get("/nothing").statusCode());
    assertEquals(405, get("/sum").statusCode());
  }
}
