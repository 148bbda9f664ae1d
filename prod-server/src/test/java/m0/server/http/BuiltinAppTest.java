package m0.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BuiltinAppTest {
    private static String text(Response r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    private static Response get(App app, String target) throws Exception {
        return app.handle(Request.of("GET", target, null));
    }

    @Test
    void rootSaysHello() throws Exception {
        Response r = get(new BuiltinApp(), "/");
        assertEquals(200, r.status());
        assertEquals("hello\n", text(r));
        assertSame(r, get(new BuiltinApp(), "/"), "the hello response is precomputed");
    }

    @Test
    void unknownMethodsAre501AndKnownOnesAreServed() throws Exception {
        BuiltinApp app = new BuiltinApp();
        assertEquals(501, app.handle(Request.of("BREW", "/", null)).status());
        assertEquals(501, app.handle(Request.of("get", "/", null)).status(), "methods are case-sensitive");
        assertEquals(200, app.handle(Request.of("DELETE", "/", null)).status());
        assertEquals(200, app.handle(Request.of("PATCH", "/", null)).status());
    }

    @Test
    void pidAnswersPidAndWorkerIndex() throws Exception {
        BuiltinApp app = new BuiltinApp();
        app.init(new AppContext(4242, 3));
        Response r = get(app, "/pid");
        assertEquals(200, r.status());
        assertEquals("4242 3\n", text(r));
    }

    @Test
    void pidBeforeInitIsThisProcess() throws Exception {
        assertEquals(ProcessHandle.current().pid() + " 0\n", text(get(new BuiltinApp(), "/pid")));
    }

    @Test
    void onlySleepIsBlocking() {
        BuiltinApp app = new BuiltinApp();
        assertTrue(app.blocking(Request.of("GET", "/sleep?ms=5", null)));
        assertFalse(app.blocking(Request.of("GET", "/work?us=5", null)));
        assertFalse(app.blocking(Request.of("GET", "/", null)));
        assertFalse(app.blocking(Request.of("GET", "/pid", null)));
    }

    @Test
    void sleepSleepsAtLeastTheGivenTime() throws Exception {
        long t0 = System.nanoTime();
        Response r = get(new BuiltinApp(), "/sleep?ms=20");
        long took = System.nanoTime() - t0;
        assertEquals(200, r.status());
        assertTrue(took >= 20_000_000L, "took " + took);
        assertEquals(200, get(new BuiltinApp(), "/sleep?ms=0").status());
    }

    @Test
    void workBurnsAtLeastTheGivenCpuTimeInline() throws Exception {
        long t0 = System.nanoTime();
        Response r = get(new BuiltinApp(), "/work?us=2000");
        long took = System.nanoTime() - t0;
        assertEquals(200, r.status());
        assertTrue(took >= 2_000_000L, "took " + took);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/sleep", "/sleep?ms=", "/sleep?ms=abc", "/sleep?ms=-1", "/sleep?ms=1.5",
        "/sleep?ms=99999999999999", "/sleep?ms=60001", "/sleep?ms=%zz", "/work", "/work?us=x", "/work?us=10000001"})
    void badNumbersGet400(String target) throws Exception {
        assertEquals(400, get(new BuiltinApp(), target).status());
    }

    @ParameterizedTest
    @ValueSource(strings = {"/nope", "/pid/", "/hello", "/sleepy"})
    void anythingElseIs404(String target) throws Exception {
        assertEquals(404, get(new BuiltinApp(), target).status());
    }

    @Test
    void throughASessionSleepRunsOnThePoolAndWorkInline() {
        Wire w = new Wire(HttpConfig.defaults(), new BuiltinApp(), true);
        w.feed("GET /sleep?ms=0 HTTP/1.1\r\nHost: h\r\n\r\nGET /work?us=1 HTTP/1.1\r\nHost: h\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n");
        assertEquals(1, w.pool.submitted());
        w.pool.run(0);
        w.session.pollCompletions(w.now);
        List<Integer> statuses = w.responses().stream().map(Wire.Resp::status).toList();
        assertEquals(List.of(200, 200, 200), statuses);
    }

    @Test
    void appsLoadsBuiltinByNameAndByClass() {
        assertTrue(Apps.load("builtin") instanceof BuiltinApp);
        assertTrue(Apps.load(BuiltinApp.class.getName()) instanceof BuiltinApp);
        assertTrue(Apps.load(PublicApp.class.getName()) instanceof PublicApp);
    }

    @Test
    void appsExplainsWhatIsWrong() {
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class, () -> Apps.load("com.example.Nope"));
        assertTrue(missing.getMessage().contains("not found") && missing.getMessage().contains("com.example.Nope"),
                missing.getMessage());
        IllegalArgumentException notApp = assertThrows(IllegalArgumentException.class, () -> Apps.load("java.lang.String"));
        assertTrue(notApp.getMessage().contains("does not implement"), notApp.getMessage());
        IllegalArgumentException noCtor = assertThrows(IllegalArgumentException.class, () -> Apps.load(NoDefaultCtor.class.getName()));
        assertTrue(noCtor.getMessage().contains("no public no-arg constructor"), noCtor.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Apps.load(" "));
    }

    public static final class PublicApp implements App {
        @Override
        public Response handle(Request request) {
            return Response.text(200, "mine\n");
        }
    }

    public static final class NoDefaultCtor implements App {
        public NoDefaultCtor(int x) {}

        @Override
        public Response handle(Request request) {
            return null;
        }
    }
}
