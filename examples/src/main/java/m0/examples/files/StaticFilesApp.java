package m0.examples.files;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import m0.server.http.App;
import m0.server.http.Request;
import m0.server.http.Response;

/**
 * Serves one directory, as a team would put static assets behind m0serve: each file is a
 * {@link Response#file} answer, which m0serve sends with sendfile(2) (read and encrypted on TLS).
 *
 * <pre>
 *   M0_STATIC_ROOT=/srv/www m0serve --app m0.examples.files.StaticFilesApp --app-classpath examples/target/classes
 * </pre>
 *
 * What it refuses: anything but GET and HEAD (405); a path that climbs out of the root, however it
 * is spelled ({@code ../}, {@code %2e%2e/}, {@code a/../../}), a NUL, a backslash or bad
 * percent-encoding (400); hidden names ({@code .git}, {@code .env}) and what is missing (404).
 * A directory answers its {@code index.html}, and is first sent to its name with a slash (301)
 * as nginx does. Symbolic links inside the root are followed, as nginx follows them by default: a
 * link out of the root is the operator's to not make. Each file has an {@code ETag} and a
 * {@code Last-Modified}, and a request that already holds it gets 304 ({@link FileValidators});
 * m0serve answers a {@code Range} on the file answer itself (206 from sendfile, 416; ADR 0071).
 */
public final class StaticFilesApp implements App {

    private static final Map<String, String> TYPES = Map.ofEntries(
            Map.entry("html", "text/html; charset=utf-8"), Map.entry("css", "text/css; charset=utf-8"),
            Map.entry("js", "text/javascript; charset=utf-8"), Map.entry("json", "application/json"),
            Map.entry("txt", "text/plain; charset=utf-8"), Map.entry("svg", "image/svg+xml"),
            Map.entry("png", "image/png"), Map.entry("jpg", "image/jpeg"), Map.entry("jpeg", "image/jpeg"),
            Map.entry("gif", "image/gif"), Map.entry("webp", "image/webp"), Map.entry("ico", "image/x-icon"),
            Map.entry("wasm", "application/wasm"), Map.entry("pdf", "application/pdf"),
            Map.entry("mp4", "video/mp4"), Map.entry("webm", "video/webm"), Map.entry("mp3", "audio/mpeg"),
            Map.entry("ogg", "audio/ogg"), Map.entry("woff2", "font/woff2"), Map.entry("woff", "font/woff"),
            Map.entry("xml", "application/xml"), Map.entry("csv", "text/csv; charset=utf-8"),
            Map.entry("md", "text/markdown; charset=utf-8"), Map.entry("zip", "application/zip"));

    private final Path root;

    /** What m0serve calls (--app): the directory the environment names, else the working directory. */
    public StaticFilesApp() {
        this(Path.of(System.getenv().getOrDefault("M0_STATIC_ROOT", ".")));
    }

    StaticFilesApp(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    @Override
    public Response handle(Request request) {
        String method = request.method();
        if (!method.equals("GET") && !method.equals("HEAD")) {
            return Response.status(405).withHeader("Allow", "GET, HEAD");
        }
        String path = decode(request.path());
        if (path == null || !path.startsWith("/") || path.indexOf('\0') >= 0 || path.indexOf('\\') >= 0) {
            return Response.status(400);
        }
        StringBuilder relative = new StringBuilder();
        for (String segment : path.substring(1).split("/", -1)) {
            if (segment.equals("..")) {
                return Response.status(400); // climbing: refused whatever it would resolve to
            }
            if (segment.isEmpty() || segment.equals(".")) {
                continue;
            }
            if (segment.startsWith(".")) {
                return Response.status(404); // hidden: .git, .env, .htpasswd
            }
            relative.append(relative.length() == 0 ? "" : "/").append(segment);
        }
        Path file = root.resolve(relative.toString()).normalize();
        if (!file.startsWith(root)) {
            return Response.status(400); // the segments above make this unreachable; kept as the last word
        }
        if (Files.isDirectory(file)) {
            if (!request.path().endsWith("/")) {
                // As nginx does: the index's relative links must resolve inside the directory. The
                // Location is the normalised path, never the raw one: "//cdn.example.com/" would be
                // another host to a browser (an open redirect).
                String query = request.query();
                String to = relative.length() == 0 ? "/" : "/" + encode(relative.toString()) + "/";
                return Response.status(301).withHeader("Location", to + (query == null ? "" : "?" + query));
            }
            file = file.resolve("index.html");
        }
        FileValidators v = FileValidators.of(file);
        if (v == null) {
            // Missing, not a file, unreadable: the server's 404 or 403 when it opens it.
            return Response.file(200, type(file), file);
        }
        if (v.unchangedFor(request)) {
            return new Response(304, null, null, "ETag", v.etag, "Last-Modified", v.lastModified);
        }
        // m0serve takes a Range on this answer (206, 416; If-Range against these validators).
        return Response.file(200, type(file), file, "ETag", v.etag, "Last-Modified", v.lastModified);
    }

    /** The content type from the name's extension; bytes when it is unknown. */
    static String type(Path file) {
        String name = file.getFileName().toString();
        int dot = name.lastIndexOf('.');
        String ext = dot < 0 ? "" : name.substring(dot + 1).toLowerCase(Locale.ROOT);
        return TYPES.getOrDefault(ext, "application/octet-stream");
    }

    /** Percent-encoding of a decoded path as UTF-8: what a path segment may hold unescaped stays, "/" too. */
    static String encode(String path) {
        StringBuilder sb = new StringBuilder(path.length());
        for (byte b : path.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-._~!$&'()*+,;=:@/".indexOf(c) >= 0) {
                sb.append((char) c);
            } else {
                sb.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
            }
        }
        return sb.toString();
    }

    /** Percent-decoding of a path as UTF-8 ('+' is a plus in a path); null when malformed. */
    static String decode(String path) {
        if (path.indexOf('%') < 0) {
            return path;
        }
        ByteArrayOutputStream b = new ByteArrayOutputStream(path.length());
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c != '%') {
                b.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
                continue;
            }
            if (i + 2 >= path.length()) {
                return null;
            }
            int hi = Character.digit(path.charAt(i + 1), 16);
            int lo = Character.digit(path.charAt(i + 2), 16);
            if (hi < 0 || lo < 0) {
                return null;
            }
            b.write(hi * 16 + lo);
            i += 2;
        }
        return b.toString(StandardCharsets.UTF_8);
    }
}
