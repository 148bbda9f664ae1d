package m0.examples.jdkhttp;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/** Short text answers, sized up front so they go out with a Content-Length, never chunked. */
final class Responses {

  private Responses() {}

  static boolean isHead(HttpExchange exchange) {
    return "HEAD".equals(exchange.getRequestMethod());
  }

  static void text(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    if (isHead(exchange)) {
      // The API forbids a length for HEAD (-1 means no body); the header tells what GET would send.
      exchange.getResponseHeaders().set("Content-Length", Integer.toString(bytes.length));
      exchange.sendResponseHeaders(status, -1);
      return;
    }
    // A length of 0 would mean "chunked" in this API, so an empty body is -1.
    exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  /** 405 with the Allow header a client needs to try again. */
  static void methodNotAllowed(HttpExchange exchange, String allow) throws IOException {
    exchange.getResponseHeaders().set("Allow", allow);
    text(exchange, 405, "method not allowed\n");
  }
}
