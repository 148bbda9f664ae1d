package m0.examples.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import m0.server.http.Request;
import m0.server.http.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What the example answers for each path, without a server: a file answer, or the refusal. */
class StaticFilesAppTest {

    @TempDir
    Path dir;

    private StaticFilesApp app() throws IOException {
        Path www = Files.createDirectories(dir.resolve("www"));
        Files.writeString(www.resolve("a.txt"), "a");
        Files.createDirectories(www.resolve("sub"));
        Files.writeString(www.resolve("sub/index.html"), "<p>");
        Files.writeString(dir.resolve("secret.txt"), "outside the root");
        return new StaticFilesApp(www);
    }

    private static Response get(StaticFilesApp app, String target) {
        return app.handle(Request.of("GET", target, new byte[0]));
    }

    @Test
    void aFileIsAFileAnswerWithItsTypeAndADirectoryItsIndex() throws IOException {
        StaticFilesApp app = app();
        Response a = get(app, "/a.txt");
        assertEquals(200, a.status());
        assertEquals(dir.resolve("www/a.txt").toAbsolutePath(), a.file());
        assertEquals("text/plain; charset=utf-8", a.contentType());
        assertEquals(dir.resolve("www/sub/index.html").toAbsolutePath(), get(app, "/sub/").file());
        assertEquals(dir.resolve("www/a.txt").toAbsolutePath(), get(app, "/./a.txt").file());
        assertEquals(405, app.handle(Request.of("POST", "/a.txt", new byte[0])).status());
    }

    @ParameterizedTest
    @ValueSource(strings = {"/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E%2Fsecret.txt", "/sub/../../secret.txt",
            "/..", "/a%00.txt", "/..%5csecret.txt", "/%zz"})
    void aPathThatClimbsOutOfTheRootOrIsMalformedIs400(String target) throws IOException {
        Response r = get(app(), target);
        assertEquals(400, r.status(), target);
        assertNull(r.file(), "no file answer");
    }

    @Test
    void hiddenNamesAre404() throws IOException {
        assertEquals(404, get(app(), "/.env").status());
        assertEquals(404, get(app(), "/sub/.git/config").status());
    }

    @Test
    void anAbsolutePathIsReadInsideTheRoot() throws IOException {
        Path secret = dir.resolve("secret.txt").toAbsolutePath();
        Response r = get(app(), "/" + secret); // "//tmp/.../secret.txt"
        assertTrue(r.file() == null || r.file().startsWith(dir.resolve("www").toAbsolutePath()), String.valueOf(r.file()));
        assertEquals(400, get(app(), "http://x/../secret.txt").status(), "absolute-form climbing too");
    }

    @Test
    void aDirectoryWithoutItsSlashIsSentToItAsNginxDoes() throws IOException {
        Response r = get(app(), "/sub");
        assertEquals(301, r.status());
        assertEquals("/sub/", r.header("Location"));
        assertEquals("/sub/?x=1", get(app(), "/sub?x=1").header("Location"));
        assertEquals(dir.resolve("www/sub/index.html").toAbsolutePath(), get(app(), "/sub/").file());
    }

    /**
     * The Location is the normalised path, never the raw one: "//cdn.example.com" would send a
     * browser to another host (an open redirect), so it must start with one "/" and a non-slash.
     */
    @ParameterizedTest
    @ValueSource(strings = {"//cdn.example.com", "///cdn.example.com", "/.//cdn.example.com", "//cdn.example.com?q=1"})
    void aDirectoryNamedLikeAHostIsSentToItsNormalisedPathNotAnotherHost(String target) throws IOException {
        StaticFilesApp app = app();
        Files.createDirectories(dir.resolve("www/cdn.example.com"));
        Response r = get(app, target);
        assertEquals(301, r.status(), target);
        String location = r.header("Location");
        assertTrue(location.startsWith("/") && location.length() > 1 && location.charAt(1) != '/', location);
        assertEquals(target.endsWith("?q=1") ? "/cdn.example.com/?q=1" : "/cdn.example.com/", location);
    }

    @Test
    void theRedirectsLocationIsPercentEncodedAndTheRootsIsOneSlash() throws IOException {
        StaticFilesApp app = app();
        Files.createDirectories(dir.resolve("www/a b/\u00e9t\u00e9"));
        assertEquals("/a%20b/%C3%A9t%C3%A9/", get(app, "/a%20b/%C3%A9t%C3%A9").header("Location"));
        assertEquals("/", get(app, "/.").header("Location"));
    }

    @Test
    void theContentTypeIsTheExtensionsWhateverItsCase() {
        assertEquals("video/mp4", StaticFilesApp.type(Path.of("v.MP4")));
        assertEquals("application/pdf", StaticFilesApp.type(Path.of("a.b.pdf")));
        assertEquals("application/octet-stream", StaticFilesApp.type(Path.of("noext")));
        assertEquals("application/octet-stream", StaticFilesApp.type(Path.of("x.unknown")));
    }

    /** a.txt ("a", 1 byte) modified at 1994-11-06T08:49:37Z: its ETag and Last-Modified, nginx's shapes. */
    private static final String ETAG = "\"" + Long.toHexString(784111777L) + "-1\"";
    private static final String MODIFIED = "Sun, 06 Nov 1994 08:49:37 GMT";

    private Response conditional(String... headers) throws IOException {
        StaticFilesApp app = app();
        Files.setLastModifiedTime(dir.resolve("www/a.txt"), FileTime.from(Instant.parse("1994-11-06T08:49:37Z")));
        return app.handle(Request.of("GET", "/a.txt", new byte[0], headers));
    }

    @Test
    void aFileCarriesItsValidators() throws IOException {
        Response r = conditional();
        assertEquals(200, r.status());
        assertEquals(ETAG, r.header("ETag"));
        assertEquals(MODIFIED, r.header("Last-Modified"), "IMF-fixdate, the day with its zero");
    }

    @Test
    void aCopyTheClientHoldsIs304() throws IOException {
        for (String[] h : new String[][] {{"If-None-Match", ETAG}, {"If-None-Match", "W/" + ETAG},
                {"If-None-Match", "\"x\", " + ETAG}, {"If-None-Match", "*"}, {"If-Modified-Since", MODIFIED},
                {"If-Modified-Since", "Mon, 07 Nov 1994 00:00:00 GMT"}}) {
            Response r = conditional(h);
            assertEquals(304, r.status(), String.join(": ", h));
            assertNull(r.file(), "no body");
            assertEquals(ETAG, r.header("ETag"));
            assertEquals(MODIFIED, r.header("Last-Modified"));
        }
    }

    @Test
    void aChangedOrUnreadableConditionIsTheFile() throws IOException {
        for (String[] h : new String[][] {{"If-None-Match", "\"other\""}, {"If-Modified-Since", "Sun, 06 Nov 1994 08:49:36 GMT"},
                {"If-Modified-Since", "yesterday"}, {"If-None-Match", "\"other\"", "If-Modified-Since", MODIFIED}}) {
            Response r = conditional(h);
            assertEquals(200, r.status(), String.join(": ", h));
            assertEquals(dir.resolve("www/a.txt").toAbsolutePath(), r.file());
        }
    }
}
