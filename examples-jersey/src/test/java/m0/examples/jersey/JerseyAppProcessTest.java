package m0.examples.jersey;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * JerseyApp's main in a JVM of its own: main returns and the server's threads alone keep the
 * process serving, as a provider that runs the app's main will see it. The process is killed by
 * pid.
 */
final class JerseyAppProcessTest {

  private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)/");

  @TempDir Path dir;

  @Test
  @Timeout(60)
  void mainReturnsAndTheProcessServes() throws Exception {
    // This test's class path holds the app's classes and Jersey, what the shaded jar holds.
    ProcessBuilder pb = new ProcessBuilder(System.getProperty("m0.test.java", "java"),
        "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx64m",
        "-cp", System.getProperty("java.class.path"),
        JerseyApp.class.getName(), "127.0.0.1:0")
        .redirectError(dir.resolve("err").toFile());
    Process p = pb.start();
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      CompletableFuture<Integer> port = CompletableFuture.supplyAsync(() -> {
        try {
          for (String line; (line = out.readLine()) != null; ) {
            Matcher m = LISTENING.matcher(line);
            if (m.find()) {
              return Integer.parseInt(m.group(1));
            }
          }
        } catch (IOException e) {
          // exited: reported below with its stderr
        }
        return -1;
      });
      int at = port.get(40, TimeUnit.SECONDS);
      assertTrue(at > 0, "not listening; stderr: " + Files.readString(dir.resolve("err")));
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + at + "/greet/proc"))
          .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(200, r.statusCode());
      assertEquals("hello proc\n", r.body());
      assertTrue(p.isAlive(), "the server's threads keep the JVM alive after main returns");
    } finally {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
  }
}
