package m0.server.it;

import java.nio.file.Files;
import java.nio.file.Path;
import m0.server.http.App;
import m0.server.http.Request;
import m0.server.http.Response;

/**
 * {@code /held?until=FILE}: the handler runs on the loop (not blocking) until FILE exists, at
 * most a minute, so a test decides when it ends. Loaded through {@code --app m0.server.it.HeldApp}.
 */
public final class HeldApp implements App {

    private static final long MAX_NANOS = 60_000_000_000L;

    @Override
    public Response handle(Request request) throws InterruptedException {
        String until = request.queryParam("until");
        if (!request.path().equals("/held") || until == null) {
            return Response.status(404);
        }
        Path flag = Path.of(until);
        long end = System.nanoTime() + MAX_NANOS;
        while (!Files.exists(flag) && System.nanoTime() - end < 0) {
            Thread.sleep(1); // the test's signal, polled, bounded
        }
        return Response.text(200, Files.exists(flag) ? "released\n" : "not released\n");
    }
}
