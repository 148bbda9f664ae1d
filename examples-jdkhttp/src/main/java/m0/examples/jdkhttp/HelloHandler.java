package m0.examples.jdkhttp;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;

/** Behind the authenticator: greets whoever it let through. */
final class HelloHandler implements HttpHandler {

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      Responses.text(exchange, 200, "hello " + exchange.getPrincipal().getUsername() + "\n");
    }
  }
}
