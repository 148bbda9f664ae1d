import m0.server.http.App;
import m0.server.http.Request;
import m0.server.http.Response;

/** 1 MiB (and 64 KiB) from memory: one constant answer each, so only the server's path is measured. */
public final class MemApp implements App {
    private static final Response MIB = Response.bytes(200, "application/octet-stream", fill(1 << 20));
    private static final Response K64 = Response.bytes(200, "application/octet-stream", fill(64 << 10));

    private static byte[] fill(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) ('a' + i % 26);
        return b;
    }

    @Override
    public Response handle(Request r) {
        return r.path().equals("/64k") ? K64 : MIB;
    }
}
