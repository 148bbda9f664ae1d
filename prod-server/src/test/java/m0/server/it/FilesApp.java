package m0.server.it;

import java.nio.file.Path;
import m0.server.http.App;
import m0.server.http.Request;
import m0.server.http.Response;

/**
 * {@code /files/NAME}: the file NAME of the directory {@code M0_TEST_FILES} names, as a file
 * answer (ADR 0071); a name is letters, digits, dots and dashes, never {@code ..}. Loaded
 * through {@code --app m0.server.it.FilesApp}.
 */
public final class FilesApp implements App {

    private final Path root = Path.of(System.getenv().getOrDefault("M0_TEST_FILES", "/nonexistent"));

    @Override
    public Response handle(Request request) {
        String path = request.path();
        if (!path.startsWith("/files/")) {
            return Response.status(404);
        }
        String name = path.substring(7);
        if (!name.matches("[A-Za-z0-9-]+(\\.[A-Za-z0-9]+)*")) {
            return Response.status(404);
        }
        return Response.file(200, "application/octet-stream", root.resolve(name));
    }
}
