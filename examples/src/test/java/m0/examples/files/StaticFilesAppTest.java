package m0.examples.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
}
