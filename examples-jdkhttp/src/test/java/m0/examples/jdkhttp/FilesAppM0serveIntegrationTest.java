package m0.examples.jdkhttp;

import m0.examples.testkit.M0serveChild;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * FilesApp on the real m0serve: {@code --workers 2 --main m0.examples.jdkhttp.FilesApp
 * --app-classpath <this module's classes> -- 127.0.0.1:0 DIR}. The app asks for port 0 and gets
 * m0's listener; its classes reach m0serve only through --app-classpath. The burst spread runs
 * first, on connections no other test has left open.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
final class FilesAppM0serveIntegrationTest {

  private static final int BIG = 5 * 1024 * 1024;
  /** Twenty times m0serve's default --max-body-bytes: a --main app's request bodies stream. */
  private static final long UPLOAD = 20L * 1024 * 1024;

  @TempDir static Path dir;

  private static M0serveChild m0;
  private static HttpClient client;
  private static String base;
  private static byte[] big;

  @BeforeAll
  @Timeout(120)
  static void start() throws Exception {
    Path served = Files.createDirectory(dir.resolve("served"));
    big = new byte[BIG];
    new Random(7).nextBytes(big);
    Files.write(served.resolve("big.bin"), big);
    Files.writeString(served.resolve("hello.txt"), "hi there\n");

    M0serveChild.ClassPaths cp = M0serveChild.ClassPaths.split("examples-jdkhttp");
    assertEquals(1, cp.app().size(), "the app part is this module's classes alone: " + cp.app());
    assertTrue(cp.app().get(0).endsWith("classes"), cp.app().toString());
    cp.assertServerIsM0();
    m0 = M0serveChild.start(dir, cp, FilesApp.class.getName(), "127.0.0.1:0", served.toString());
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

  private static HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60));
  }

  @Test
  @Order(1)
  @Timeout(60)
  void aBurstOfThirtyTwoSpreadsSixteenSixteen() throws Exception {
    m0.assertBurstSpreadsEvenly(32, "/files/hello.txt");
  }

  @Test
  @Timeout(30)
  void eachWorkersAppGotTheListenerForPortZero() {
    // The app prints the address its HttpServer reports: m0's listener, in both workers.
    List<String> said = m0.stdout().stream().filter(l -> l.startsWith("FilesApp listening on")).toList();
    assertEquals(2, said.size(), "stdout: " + m0.stdout());
    said.forEach(l -> assertTrue(l.startsWith("FilesApp listening on http://127.0.0.1:" + m0.port + "/"), l));
  }

  @Test
  @Timeout(60)
  void aFiveMiBFileComesByteExact() throws Exception {
    HttpResponse<byte[]> r = client.send(request("/files/big.bin").build(), BodyHandlers.ofByteArray());
    assertEquals(200, r.statusCode());
    assertEquals(String.valueOf(BIG), r.headers().firstValue("content-length").orElseThrow());
    assertEquals(BIG, r.body().length);
    assertEquals(sha256(big), sha256(r.body()));

    HttpResponse<String> small = client.send(request("/files/hello.txt").build(), BodyHandlers.ofString());
    assertEquals("hi there\n", small.body());
    assertEquals("text/plain; charset=utf-8", small.headers().firstValue("content-type").orElseThrow());
  }

  @Test
  @Timeout(30)
  void headAnswersTheLengthWithoutABody() throws Exception {
    HttpResponse<byte[]> r = client.send(
        request("/files/big.bin").method("HEAD", BodyPublishers.noBody()).build(), BodyHandlers.ofByteArray());
    assertEquals(200, r.statusCode());
    assertEquals(0, r.body().length);
    assertEquals(String.valueOf(BIG), r.headers().firstValue("content-length").orElseThrow());
    // Nothing stray after the head: the connection serves the next request.
    assertEquals("hi there\n", client.send(request("/files/hello.txt").build(), BodyHandlers.ofString()).body());
  }

  @Test
  @Timeout(120)
  void twentyMiBUploadsStreamChunkedAndWithALength() throws Exception {
    MessageDigest expected = MessageDigest.getInstance("SHA-256");
    try (InputStream in = new FilesAppTest.PatternStream(UPLOAD)) {
      byte[] piece = new byte[64 * 1024];
      for (int n; (n = in.read(piece)) >= 0; ) {
        expected.update(piece, 0, n);
      }
    }
    String answer = "sha256=" + HexFormat.of().formatHex(expected.digest()) + " bytes=" + UPLOAD + "\n";

    // No known length: the client sends it chunked.
    HttpResponse<String> chunked = client.send(request("/upload")
        .POST(BodyPublishers.ofInputStream(() -> new FilesAppTest.PatternStream(UPLOAD))).build(),
        BodyHandlers.ofString());
    assertEquals(200, chunked.statusCode(), chunked.body());
    assertEquals(answer, chunked.body());

    // The same bytes with Content-Length: 20971520, far over --max-body-bytes' 1 MiB default.
    HttpResponse<String> sized = client.send(request("/upload")
        .PUT(BodyPublishers.fromPublisher(
            BodyPublishers.ofInputStream(() -> new FilesAppTest.PatternStream(UPLOAD)), UPLOAD)).build(),
        BodyHandlers.ofString());
    assertEquals(200, sized.statusCode(), sized.body());
    assertEquals(answer, sized.body());
  }

  @Test
  @Timeout(30)
  void privateIs401ThenHelloWithTheDemoCredentials() throws Exception {
    HttpResponse<String> none = client.send(request("/private").build(), BodyHandlers.ofString());
    assertEquals(401, none.statusCode());
    assertTrue(none.headers().firstValue("www-authenticate").orElseThrow().contains(FilesApp.REALM));

    HttpResponse<String> ok = client.send(request("/private")
        .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
            "demo:demo".getBytes(StandardCharsets.UTF_8))).build(), BodyHandlers.ofString());
    assertEquals(200, ok.statusCode());
    assertEquals("hello demo\n", ok.body());
  }

  private static String sha256(byte[] bytes) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }
}
