package m0.server.http;

/**
 * The built-in app (--app builtin):
 * {@code /} → 200 "hello\n"; {@code /pid} → 200 "&lt;pid&gt; &lt;workerIndex&gt;\n" (the spread probe's
 * endpoint); {@code /sleep?ms=N} → blocking (runs on the pool), sleeps N ms, 200;
 * {@code /work?us=N} → inline, burns N µs of CPU, 200; anything else → 404. A missing or bad
 * number → 400. A method outside RFC 9110's and PATCH → 501 (RFC 9110 15.6.2: not recognised).
 */
public final class BuiltinApp implements App {
    /** Upper bounds, so one request cannot hold a pool thread or the loop for long. */
    static final long MAX_SLEEP_MS = 60_000;
    static final long MAX_WORK_US = 10_000_000;

    private static final Response HELLO = Response.text(200, "hello\n");
    private static final Response NOT_FOUND = Response.status(404);
    private static final Response NOT_IMPLEMENTED = Response.status(501);

    private volatile Response pid = pidResponse(ProcessHandle.current().pid(), 0);

    @Override
    public void init(AppContext context) {
        pid = pidResponse(context.pid(), context.workerIndex());
    }

    private static Response pidResponse(long pid, int index) {
        return Response.text(200, pid + " " + index + "\n");
    }

    @Override
    public boolean blocking(Request request) {
        return request.path().equals("/sleep");
    }

    @Override
    public Response handle(Request request) throws InterruptedException {
        if (!known(request.method())) return NOT_IMPLEMENTED;
        String path = request.path();
        switch (path) {
            case "/":
                return HELLO;
            case "/pid":
                return pid;
            case "/sleep": {
                long ms = number(request, "ms", MAX_SLEEP_MS);
                if (ms < 0) return badNumber("ms", MAX_SLEEP_MS);
                if (ms > 0) Thread.sleep(ms);
                return Response.text(200, "slept " + ms + " ms\n");
            }
            case "/work": {
                long us = number(request, "us", MAX_WORK_US);
                if (us < 0) return badNumber("us", MAX_WORK_US);
                long spins = burn(us * 1000L);
                return Response.text(200, "worked " + us + " us (" + spins + ")\n");
            }
            default:
                return NOT_FOUND;
        }
    }

    private static boolean known(String method) {
        return switch (method) {
            case "GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "TRACE", "CONNECT", "PATCH" -> true;
            default -> false;
        };
    }

    /** The parameter as 0..max, or -1 when missing, malformed or out of range. */
    private static long number(Request request, String name, long max) {
        String v;
        try {
            v = request.queryParam(name);
        } catch (IllegalArgumentException e) {
            return -1;
        }
        if (v == null || v.isEmpty() || v.length() > 12) return -1;
        long n = 0;
        for (int i = 0; i < v.length(); i++) {
            int d = v.charAt(i) - '0';
            if (d < 0 || d > 9) return -1;
            n = n * 10 + d;
        }
        return n <= max ? n : -1;
    }

    private static Response badNumber(String name, long max) {
        return Response.text(400, "bad or missing " + name + " (0.." + max + ")\n");
    }

    /** Spins on the CPU until nanos have passed; the count keeps the JIT from removing the loop. */
    static long burn(long nanos) {
        long start = System.nanoTime();
        long spins = 0;
        long x = 0x9E3779B97F4A7C15L;
        while (System.nanoTime() - start < nanos) {
            for (int i = 0; i < 64; i++) {
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
            }
            spins++;
        }
        return spins + (x == 42 ? 1 : 0);
    }
}
