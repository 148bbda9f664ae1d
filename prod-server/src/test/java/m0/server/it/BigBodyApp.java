package m0.server.it;

import java.util.Arrays;
import m0.server.http.App;
import m0.server.http.AppContext;
import m0.server.http.BuiltinApp;
import m0.server.http.Request;
import m0.server.http.Response;

/**
 * The built-in app plus {@code /big}: a 1 MiB body of one repeated letter, so a few pipelined
 * requests outgrow every socket buffer and the worker's writes go partial (EAGAIN, EPOLLOUT).
 * Loaded by the tests through {@code --app m0.server.it.BigBodyApp}: also proves --app.
 */
public final class BigBodyApp implements App {

    static final int BIG = 1 << 20;

    private final BuiltinApp builtin = new BuiltinApp();

    @Override
    public void init(AppContext context) {
        builtin.init(context);
    }

    @Override
    public boolean blocking(Request request) {
        return builtin.blocking(request);
    }

    @Override
    public Response handle(Request request) throws Exception {
        String path = request.path();
        if (path.startsWith("/big/")) {
            byte[] body = new byte[BIG];
            Arrays.fill(body, (byte) path.charAt(5)); // /big/a, /big/b, ...: which response is which
            return Response.bytes(200, "application/octet-stream", body);
        }
        return builtin.handle(request);
    }
}
