package m0.server.http;

import java.util.ArrayList;
import java.util.List;

/**
 * The app the session tests drive: "/" hello; "/echo" echoes method, target and body;
 * "/block..." is blocking and answers its target; "/throw" throws; "/null" returns null;
 * any other path answers "METHOD target".
 */
final class TestApp implements App {
    final List<Request> seen = new ArrayList<>();

    @Override
    public boolean blocking(Request request) {
        return request.path().startsWith("/block");
    }

    @Override
    public Response handle(Request request) throws Exception {
        synchronized (seen) {
            seen.add(request);
        }
        switch (request.path()) {
            case "/":
                return Response.text(200, "hello\n");
            case "/echo":
                return Response.text(200, request.method() + " " + request.target() + " [" + request.bodyText() + "]");
            case "/throw":
                throw new IllegalStateException("boom");
            case "/null":
                return null;
            default:
                return Response.text(200, request.method() + " " + request.target());
        }
    }
}
