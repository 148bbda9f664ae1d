package m0.examples.jersey;

import com.sun.net.httpserver.HttpServer;
import java.net.URI;
import org.glassfish.jersey.jdkhttp.JdkHttpServerFactory;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.server.ServerProperties;

/**
 * A JAX-RS app served by Jersey's container for {@code com.sun.net.httpserver}. Jersey asks {@link
 * HttpServer#create} for its server, so the installed {@code HttpServerProvider} decides which
 * server that is: the JDK's own by default.
 *
 * <p>Usage: {@code JerseyApp HOST:PORT}.
 */
public final class JerseyApp {

  private JerseyApp() {}

  public static void main(String[] args) {
    if (args.length != 1) {
      System.err.println("usage: JerseyApp HOST:PORT");
      System.exit(2);
    }
    HttpServer server = start(URI.create("http://" + args[0] + "/"));
    // Returning is the point: the server's threads keep the JVM alive.
    System.out.println("JerseyApp listening on http://" + server.getAddress().getHostString() + ":"
        + server.getAddress().getPort() + "/");
  }

  /** The app's resources, and nothing scanned: what is served is what is listed here. */
  public static ResourceConfig resources() {
    return new ResourceConfig(GreetResource.class, SumResource.class)
        // WADL needs a JAXB implementation the app does not carry; without this Jersey warns at start.
        .property(ServerProperties.WADL_FEATURE_DISABLE, true);
  }

  /** Creates and starts the server at {@code base} (Jersey's factory starts it). */
  public static HttpServer start(URI base) {
    return JdkHttpServerFactory.createHttpServer(base, resources());
  }
}
