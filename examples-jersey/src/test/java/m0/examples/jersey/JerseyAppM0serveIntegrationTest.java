package m0.examples.jersey;

import m0.examples.testkit.M0serveChild;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Path;
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
 * spread runs first, on connections no other test has left open; the resources' own checks are
 * {@link JerseyResourcesContract}'s, as under the JDK's server.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
final class JerseyAppM0serveIntegrationTest extends JerseyResourcesContract {

  @TempDir static Path dir;

  private static M0serveChild m0;
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

  @Override
  String base() {
    return base;
  }

  @Test
  @Order(1)
  @Timeout(60)
  void aBurstOfThirtyTwoSpreadsSixteenSixteen() throws Exception {
    m0.assertBurstSpreadsEvenly(32, "/greet/burst");
  }

  @Test
  @Timeout(30)
  void eachWorkersAppGotTheListenerForPortZero() {
    List<String> said = m0.stdout().stream().filter(l -> l.startsWith("JerseyApp listening on")).toList();
    assertEquals(2, said.size(), "stdout: " + m0.stdout());
    said.forEach(l -> assertEquals("JerseyApp listening on http://127.0.0.1:" + m0.port + "/", l));
  }
}
