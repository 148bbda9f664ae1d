package m0.examples.jdkhttp;

import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A small file server written only against the JDK's public {@code com.sun.net.httpserver} API.
 *
 * <p>It never names an implementation: {@link HttpServer#create} asks whichever {@code
 * HttpServerProvider} is installed, so the same jar runs on the JDK's built-in server ({@code java
 * -jar}) and on any other provider that is put on the class path or named by system property.
 *
 * <p>Usage: {@code FilesApp HOST:PORT DIRECTORY}.
 */
public final class FilesApp {

  /** Realm of the {@code /private} context. */
  static final String REALM = "m0-example";

  private FilesApp() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      System.err.println("usage: FilesApp HOST:PORT DIRECTORY");
      System.exit(2);
    }
    InetSocketAddress bind = parseHostPort(args[0]);
    Path root = Path.of(args[1]);
    if (!Files.isDirectory(root)) {
      System.err.println("not a directory: " + root);
      System.exit(2);
    }
    HttpServer server = create(bind, root);
    server.start();
    // Returning is the point: the server's own threads keep the JVM alive, as with any
    // HttpServer app, so a provider that runs this main must not wait for it to return.
    InetSocketAddress bound = server.getAddress();
    System.out.println("FilesApp listening on http://" + bound.getHostString() + ":" + bound.getPort()
        + "/ serving " + root.toAbsolutePath());
  }

  /**
   * Creates the server, bound and with every context, but not started; tests bind port 0 and read
   * the port back from {@link HttpServer#getAddress()}.
   */
  public static HttpServer create(InetSocketAddress bind, Path root) throws IOException {
    Path realRoot = root.toRealPath();
    HttpServer server = HttpServer.create(bind, 0);
    server.createContext("/files/", new FileHandler("/files/", realRoot));
    server.createContext("/upload", new UploadHandler());
    HttpContext hidden = server.createContext("/private", new HelloHandler());
    hidden.setAuthenticator(DemoAuthenticator.fromSystemProperties(REALM));
    server.createContext("/", new IndexHandler());
    // The provider's default executor: the app makes no threading choice of its own.
    server.setExecutor(null);
    return server;
  }

  /** Parses {@code host:port}, also {@code [v6]:port}; the last colon separates the port. */
  static InetSocketAddress parseHostPort(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    if (colon <= 0 || colon == hostPort.length() - 1) {
      throw new IllegalArgumentException("expected HOST:PORT, got " + hostPort);
    }
    String host = hostPort.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port = Integer.parseInt(hostPort.substring(colon + 1));
    return new InetSocketAddress(host, port);
  }
}
