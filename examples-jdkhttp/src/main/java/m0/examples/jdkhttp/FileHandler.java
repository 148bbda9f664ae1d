package m0.examples.jdkhttp;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * GET and HEAD of the regular files under one directory, streamed in fixed pieces so a file of any
 * size costs one buffer.
 */
final class FileHandler implements HttpHandler {

  /** The copy's one buffer: large enough for few writes, small enough to never matter. */
  static final int PIECE = 64 * 1024;

  private static final Map<String, String> TYPES = Map.of(
      "txt", "text/plain; charset=utf-8",
      "html", "text/html; charset=utf-8",
      "css", "text/css; charset=utf-8",
      "js", "text/javascript; charset=utf-8",
      "json", "application/json",
      "png", "image/png",
      "jpg", "image/jpeg",
      "svg", "image/svg+xml",
      "pdf", "application/pdf");

  private final String prefix;
  private final Path root;

  /** {@code root} must be a real path (no links, absolute), the yardstick of every request. */
  FileHandler(String prefix, Path root) {
    this.prefix = prefix;
    this.root = root;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String method = exchange.getRequestMethod();
      if (!method.equals("GET") && !method.equals("HEAD")) {
        Responses.methodNotAllowed(exchange, "GET, HEAD");
        return;
      }
      // The decoded path, so %2e%2e%2f is seen as ../ before the check below.
      String path = exchange.getRequestURI().getPath();
      if (path == null || !path.startsWith(prefix)) {
        Responses.text(exchange, 404, "not found\n");
        return;
      }
      Path file;
      try {
        file = root.resolve(path.substring(prefix.length())).normalize();
      } catch (InvalidPathException e) {
        Responses.text(exchange, 404, "not found\n");
        return;
      }
      if (!file.startsWith(root)) {
        Responses.text(exchange, 403, "forbidden\n");
        return;
      }
      if (!Files.isRegularFile(file)) {
        Responses.text(exchange, 404, "not found\n");
        return;
      }
      // A link inside the directory may still point out of it: judge where it really leads.
      if (!file.toRealPath().startsWith(root)) {
        Responses.text(exchange, 403, "forbidden\n");
        return;
      }
      send(exchange, file);
    }
  }

  private static void send(HttpExchange exchange, Path file) throws IOException {
    try (FileInputStream in = new FileInputStream(file.toFile())) {
      // The size of the file as opened, so the length sent and the bytes copied agree.
      long size = in.getChannel().size();
      exchange.getResponseHeaders().set("Content-Type", contentType(file));
      if (Responses.isHead(exchange)) {
        exchange.getResponseHeaders().set("Content-Length", Long.toString(size));
        exchange.sendResponseHeaders(200, -1);
        return;
      }
      // 0 would mean chunked in this API; an empty file has no body at all.
      exchange.sendResponseHeaders(200, size == 0 ? -1 : size);
      try (OutputStream out = exchange.getResponseBody()) {
        copy(in, out, size);
      }
    }
  }

  /** Copies exactly {@code size} bytes, even if the file grows meanwhile. */
  private static void copy(InputStream in, OutputStream out, long size) throws IOException {
    byte[] piece = new byte[PIECE];
    long left = size;
    while (left > 0) {
      int n = in.read(piece, 0, (int) Math.min(piece.length, left));
      if (n < 0) {
        throw new IOException("file shrank while sent: " + left + " bytes short");
      }
      out.write(piece, 0, n);
      left -= n;
    }
  }

  static String contentType(Path file) {
    String name = file.getFileName().toString();
    int dot = name.lastIndexOf('.');
    String ext = dot < 0 ? "" : name.substring(dot + 1).toLowerCase(Locale.ROOT);
    return TYPES.getOrDefault(ext, "application/octet-stream");
  }
}
