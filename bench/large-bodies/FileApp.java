import java.nio.file.Path;
import m0.server.http.App;
import m0.server.http.Request;
import m0.server.http.Response;

/** /1m.bin and /4k.bin as file answers (sendfile) from $M0_TEST_WWW. */
public final class FileApp implements App {
    private static final Path ROOT = Path.of(System.getenv().getOrDefault("M0_TEST_WWW", "/tmp/m0-large-bodies/www"));

    @Override
    public Response handle(Request r) {
        return Response.file(200, "application/octet-stream", ROOT.resolve(r.path().substring(1)));
    }
}
