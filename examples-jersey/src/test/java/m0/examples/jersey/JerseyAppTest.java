package m0.examples.jersey;

import com.sun.net.httpserver.HttpServer;
import java.net.URI;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The resources through Jersey's jdk-http container on the JDK's own server, in this JVM. */
final class JerseyAppTest extends JerseyResourcesContract {

  private static HttpServer server;

  @BeforeAll
  static void start() {
    // Jersey binds the URI's host and port as given; port 0 is read back from the server.
    server = JerseyApp.start(URI.create("http://127.0.0.1:0/"));
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  @Override
  String base() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }
}
