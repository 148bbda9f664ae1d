package m0.examples.jdkhttp;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;

/** {@code /} tells what is served; being the catch-all context, it answers 404 for anything else. */
final class IndexHandler implements HttpHandler {

  static final String INDEX = String.join("\n",
      "m0 example: files over com.sun.net.httpserver",
      "GET|HEAD /files/NAME   a file under the served directory",
      "POST|PUT /upload       answers the body's sha256 and length",
      "GET      /private      basic auth, realm " + FilesApp.REALM,
      "");

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!"/".equals(exchange.getRequestURI().getPath())) {
        Responses.text(exchange, 404, "not found\n");
        return;
      }
      String method = exchange.getRequestMethod();
      if (!method.equals("GET") && !method.equals("HEAD")) {
        Responses.methodNotAllowed(exchange, "GET, HEAD");
        return;
      }
      Responses.text(exchange, 200, INDEX);
    }
  }
}
