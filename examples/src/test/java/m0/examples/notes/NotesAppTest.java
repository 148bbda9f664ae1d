package m0.examples.notes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import m0.server.http.AppContext;
import m0.server.http.Request;
import m0.server.http.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The notes API in process, over a real SQLite file. */
class NotesAppTest {

    @TempDir
    Path dir;

    private static String body(Response r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    private static Request post(String json) {
        return Request.of("POST", "/notes", json.getBytes(StandardCharsets.UTF_8), "Content-Type", "application/json");
    }

    @Test
    void createListAndGetOneNoteAcrossTwoAppsOnOneFile() throws Exception {
        NotesApp a = new NotesApp(dir.resolve("n.db"));
        a.init(new AppContext(1, 0));
        NotesApp b = new NotesApp(dir.resolve("n.db")); // a second worker on the same file
        b.init(new AppContext(2, 1));

        Response created = a.handle(post("{\"text\": \"hello \\\"sqlite\\\"\"}"));
        assertEquals(201, created.status(), body(created));
        assertEquals("{\"id\":1,\"text\":\"hello \\\"sqlite\\\"\"}", body(created));
        assertEquals(201, b.handle(post("{\"text\":\"second\"}")).status());

        Response list = a.handle(Request.of("GET", "/notes", new byte[0]));
        assertEquals("[{\"id\":2,\"text\":\"second\"},{\"id\":1,\"text\":\"hello \\\"sqlite\\\"\"}]", body(list));
        assertEquals("application/json", list.contentType());
        assertEquals(200, b.handle(Request.of("GET", "/notes/1", new byte[0])).status());
        assertEquals(404, b.handle(Request.of("GET", "/notes/99", new byte[0])).status());
        assertEquals(404, b.handle(Request.of("GET", "/notes/x", new byte[0])).status());
    }

    @Test
    void badInputIsA400AndOnlyDatabaseWorkIsBlocking() throws Exception {
        NotesApp a = new NotesApp(dir.resolve("n.db"));
        a.init(new AppContext(1, 0));
        assertEquals(400, a.handle(post("{\"text\": 3}")).status());
        assertEquals(400, a.handle(post("not json")).status());
        assertEquals(400, a.handle(post("{}")).status());
        assertEquals(400, a.handle(post("{\"text\":\"" + "x".repeat(5000) + "\"}")).status());
        assertEquals(405, a.handle(Request.of("DELETE", "/notes", new byte[0])).status());
        assertTrue(a.blocking(Request.of("GET", "/notes", new byte[0])));
        assertFalse(a.blocking(Request.of("GET", "/health", new byte[0])));
        assertEquals("{\"worker\":0}", body(a.handle(Request.of("GET", "/health", new byte[0]))));
    }
}
