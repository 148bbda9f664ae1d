package m0.examples.jdkhttp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
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
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** FilesApp's contexts on the JDK's own server, through the JDK's own client. */
final class FilesAppTest {

  private static final int BIG = 5 * 1024 * 1024;
  private static final long UPLOAD = 10L * 1024 * 1024;

  @TempDir Path dir;

  private HttpServer server;
  private HttpClient client;
  private String base;
  private byte[] big;

  @BeforeEach
  void start() throws IOException {
    Path served = Files.createDirectory(dir.resolve("served"));
    big = new byte[BIG];
    new Random(42).nextBytes(big);
    Files.write(served.resolve("big.bin"), big);
    Files.writeString(served.resolve("hello.txt"), "hi there\n");
    Files.createDirectory(served.resolve("sub"));
    Files.writeString(served.resolve("sub/page.html"), "<p>x</p>\n");
    Files.writeString(dir.resolve("secret.txt"), "outside\n");

    server = FilesApp.create(new InetSocketAddress("127.0.0.1", 0), served);
    server.start();
    base = "http://127.0.0.1:" + server.getAddress().getPort();
    client = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .build();
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(20));
  }

  @Test
  @Timeout(30)
  void servesAFileWithItsBytesAndLength() throws Exception {
    HttpResponse<byte[]> r = client.send(request("/files/big.bin").build(), BodyHandlers.ofByteArray());
    assertEquals(200, r.statusCode());
    assertEquals(String.valueOf(BIG), r.headers().firstValue("content-length").orElseThrow());
    assertEquals("application/octet-stream", r.headers().firstValue("content-type").orElseThrow());
    assertArrayEquals(big, r.body());
  }

  @Test
  @Timeout(30)
  void contentTypeFollowsTheExtension() throws Exception {
    HttpResponse<String> txt = client.send(request("/files/hello.txt").build(), BodyHandlers.ofString());
    assertEquals(200, txt.statusCode());
    assertEquals("hi there\n", txt.body());
    assertEquals("text/plain; charset=utf-8", txt.headers().firstValue("content-type").orElseThrow());

    HttpResponse<String> html = client.send(request("/files/sub/page.html").build(), BodyHandlers.ofString());
    assertEquals(200, html.statusCode());
    assertEquals("text/html; charset=utf-8", html.headers().firstValue("content-type").orElseThrow());
  }

  @Test
  @Timeout(30)
  void headAnswersWithoutABody() throws Exception {
    HttpResponse<byte[]> r = client.send(
        request("/files/big.bin").method("HEAD", BodyPublishers.noBody()).build(),
        BodyHandlers.ofByteArray());
    assertEquals(200, r.statusCode());
    assertEquals(0, r.body().length);
    // The app sets it by hand: the API takes no length for HEAD.
    assertEquals(String.valueOf(BIG), r.headers().firstValue("content-length").orElseThrow());
    assertEquals("application/octet-stream", r.headers().firstValue("content-type").orElseThrow());
    // The connection is still good for the next request: no stray body was sent after the head.
    HttpResponse<String> next = client.send(request("/files/hello.txt").build(), BodyHandlers.ofString());
    assertEquals("hi there\n", next.body());
  }

  @Test
  @Timeout(30)
  void missingIs404() throws Exception {
    assertEquals(404, status(request("/files/nope.txt").build()));
    assertEquals(404, status(request("/files/sub").build()));
    assertEquals(404, status(request("/files/").build()));
    assertEquals(404, status(request("/elsewhere").build()));
  }

  @Test
  @Timeout(30)
  void escapingTheDirectoryIsRefused() throws Exception {
    for (String path : new String[] {
        "/files/../secret.txt", "/files/..%2Fsecret.txt", "/files/%2e%2e/secret.txt",
        "/files/sub/../../secret.txt", "/files/%2Fetc%2Fpasswd"}) {
      HttpResponse<String> r = client.send(request(path).build(), BodyHandlers.ofString());
      assertTrue(r.statusCode() == 403 || r.statusCode() == 404, path + " gave " + r.statusCode());
      assertTrue(!r.body().contains("outside"), path + " leaked the file");
    }
  }

  @Test
  @Timeout(30)
  void aLinkOutOfTheDirectoryIsRefused() throws Exception {
    Path served = dir.resolve("served");
    Files.createSymbolicLink(served.resolve("link.txt"), dir.resolve("secret.txt"));
    HttpResponse<String> r = client.send(request("/files/link.txt").build(), BodyHandlers.ofString());
    assertEquals(403, r.statusCode());
  }

  @Test
  @Timeout(60)
  void uploadOfTenMiBChunkedGivesItsSha256() throws Exception {
    MessageDigest expected = MessageDigest.getInstance("SHA-256");
    try (InputStream in = new PatternStream(UPLOAD)) {
      byte[] piece = new byte[8192];
      for (int n; (n = in.read(piece)) >= 0; ) {
        expected.update(piece, 0, n);
      }
    }
    // ofInputStream has no known length, so the client sends it chunked.
    HttpResponse<String> r = client.send(
        request("/upload").POST(BodyPublishers.ofInputStream(() -> new PatternStream(UPLOAD))).build(),
        BodyHandlers.ofString());
    assertEquals(200, r.statusCode());
    assertEquals("sha256=" + HexFormat.of().formatHex(expected.digest()) + " bytes=" + UPLOAD + "\n", r.body());
  }

  @Test
  @Timeout(30)
  void uploadOfAnEmptyBodyWithPut() throws Exception {
    HttpResponse<String> r = client.send(
        request("/upload").PUT(BodyPublishers.ofString("")).build(), BodyHandlers.ofString());
    assertEquals(200, r.statusCode());
    assertEquals("sha256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 bytes=0\n", r.body());
    assertEquals(405, status(request("/upload").build()));
  }

  @Test
  @Timeout(30)
  void privateAsksForCredentials() throws Exception {
    HttpResponse<String> none = client.send(request("/private").build(), BodyHandlers.ofString());
    assertEquals(401, none.statusCode());
    assertTrue(none.headers().firstValue("www-authenticate").orElseThrow().contains("m0-example"));

    assertEquals(401, status(request("/private").header("Authorization", basic("demo", "wrong")).build()));

    HttpResponse<String> ok = client.send(
        request("/private").header("Authorization", basic("demo", "demo")).build(), BodyHandlers.ofString());
    assertEquals(200, ok.statusCode());
    assertEquals("hello demo\n", ok.body());
  }

  @Test
  @Timeout(30)
  void indexIsPlainText() throws Exception {
    HttpResponse<String> r = client.send(request("/").build(), BodyHandlers.ofString());
    assertEquals(200, r.statusCode());
    assertEquals(IndexHandler.INDEX, r.body());
  }

  @Test
  @Timeout(10)
  void parsesHostPort() {
    assertEquals(8080, FilesApp.parseHostPort("127.0.0.1:8080").getPort());
    InetSocketAddress v6 = FilesApp.parseHostPort("[::1]:81");
    assertEquals(81, v6.getPort());
    assertTrue(v6.getAddress() instanceof Inet6Address && v6.getAddress().isLoopbackAddress());
  }

  private int status(HttpRequest request) throws Exception {
    return client.send(request, BodyHandlers.discarding()).statusCode();
  }

  private static String basic(String user, String password) {
    return "Basic " + Base64.getEncoder().encodeToString(
        (user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }

  /** A stream of {@code length} bytes in a fixed pattern: the same bytes each time, none held. */
  static final class PatternStream extends InputStream {
    private final long length;
    private long position;

    PatternStream(long length) {
      this.length = length;
    }

    private static byte at(long i) {
      return (byte) (i * 31 + (i >>> 11));
    }

    @Override
    public int read() {
      return position < length ? at(position++) & 0xff : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (position >= length) {
        return -1;
      }
      int n = (int) Math.min(len, length - position);
      for (int i = 0; i < n; i++) {
        b[off + i] = at(position++);
      }
      return n;
    }
  }
}
