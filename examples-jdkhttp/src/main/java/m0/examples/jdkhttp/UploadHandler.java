package m0.examples.jdkhttp;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * POST or PUT a body of any size, chunked or not: the answer is its SHA-256 and length. The body
 * passes through the digest one buffer at a time and is never held whole.
 */
final class UploadHandler implements HttpHandler {

  private static final int PIECE = 64 * 1024;

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String method = exchange.getRequestMethod();
      if (!method.equals("POST") && !method.equals("PUT")) {
        Responses.methodNotAllowed(exchange, "POST, PUT");
        return;
      }
      MessageDigest sha256 = sha256();
      long count = 0;
      byte[] piece = new byte[PIECE];
      try (InputStream in = exchange.getRequestBody()) {
        for (int n; (n = in.read(piece)) >= 0; ) {
          sha256.update(piece, 0, n);
          count += n;
        }
      }
      Responses.text(exchange, 200,
          "sha256=" + HexFormat.of().formatHex(sha256.digest()) + " bytes=" + count + "\n");
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      // Every Java platform must have SHA-256 (MessageDigest's javadoc).
      throw new IllegalStateException(e);
    }
  }
}
