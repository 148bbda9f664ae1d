package m0.examples.notes;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import m0.server.http.App;
import m0.server.http.AppContext;
import m0.server.http.Request;
import m0.server.http.Response;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * A small JSON API over an embedded SQLite database, run by m0serve with
 * {@code --app m0.examples.notes.NotesApp --app-classpath examples/target/m0-notes-app.jar}:
 * <pre>
 *   POST /notes        {"text": "..."}  -> 201 {"id": N, "text": "..."}
 *   GET  /notes                         -> 200 [{"id": N, "text": "..."}, ...]  (newest first, 100 at most)
 *   GET  /notes/N                       -> 200 {"id": N, "text": "..."} or 404
 *   GET  /health                        -> 200 {"worker": I}   (on the loop: no database)
 * </pre>
 * Every {@code /notes} request touches the database, so {@link #blocking} sends it to the
 * worker's pool: the loop never waits on a disk. One connection per pool thread; the workers
 * share the file in WAL mode (SQLite's many readers, one writer), and a writer that finds the
 * database locked waits up to 5 s. The file: {@code $M0_NOTES_DB}, else {@code notes.db} in the
 * working directory.
 */
public final class NotesApp implements App {

    private static final int MAX_TEXT = 4096;

    /** Null: {@code $M0_NOTES_DB}, else notes.db, decided at init. */
    private final Path file;
    private SQLiteDataSource source;
    private int worker;
    private final ThreadLocal<Connection> connections = ThreadLocal.withInitial(this::open);

    /** What m0serve calls (--app): the database named by the environment. */
    public NotesApp() {
        this(null);
    }

    /** Tests: a database of their own. */
    NotesApp(Path file) {
        this.file = file;
    }

    @Override
    public void init(AppContext context) {
        worker = context.workerIndex();
        Path file = this.file != null ? this.file : Path.of(System.getenv().getOrDefault("M0_NOTES_DB", "notes.db"));
        SQLiteConfig config = new SQLiteConfig();
        config.setJournalMode(SQLiteConfig.JournalMode.WAL);
        config.setBusyTimeout(5000);
        source = new SQLiteDataSource(config);
        source.setUrl("jdbc:sqlite:" + file.toAbsolutePath());
        try (Connection c = source.getConnection(); Statement s = c.createStatement()) {
            s.executeUpdate("CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT NOT NULL)");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot open " + file + ": " + e.getMessage(), e);
        }
    }

    private Connection open() {
        try {
            return source.getConnection();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public boolean blocking(Request request) {
        return request.path().startsWith("/notes");
    }

    @Override
    public Response handle(Request request) throws SQLException {
        String path = request.path();
        String method = request.method();
        if (path.equals("/health")) {
            return json(200, "{\"worker\":" + worker + "}");
        }
        if (path.equals("/notes")) {
            if (method.equals("POST")) {
                return create(request);
            }
            return method.equals("GET") ? list() : json(405, "{\"error\":\"GET or POST\"}");
        }
        if (path.startsWith("/notes/") && method.equals("GET")) {
            long id;
            try {
                id = Long.parseLong(path.substring("/notes/".length()));
            } catch (NumberFormatException e) {
                return json(404, "{\"error\":\"no such note\"}");
            }
            return one(id);
        }
        return json(404, "{\"error\":\"not found\"}");
    }

    private Response create(Request request) throws SQLException {
        String text;
        try {
            text = Json.parseFlatObject(new String(request.body(), StandardCharsets.UTF_8)).get("text");
        } catch (IllegalArgumentException e) {
            return json(400, "{\"error\":" + Json.quote("bad JSON: " + e.getMessage()) + "}");
        }
        if (text == null || text.isEmpty() || text.length() > MAX_TEXT) {
            return json(400, "{\"error\":\"text: 1.." + MAX_TEXT + " characters\"}");
        }
        try (PreparedStatement s = connections.get().prepareStatement(
                "INSERT INTO notes (text) VALUES (?)", Statement.RETURN_GENERATED_KEYS)) {
            s.setString(1, text);
            s.executeUpdate();
            try (ResultSet keys = s.getGeneratedKeys()) {
                keys.next();
                return json(201, note(keys.getLong(1), text));
            }
        }
    }

    private Response list() throws SQLException {
        StringBuilder b = new StringBuilder("[");
        try (PreparedStatement s = connections.get().prepareStatement(
                "SELECT id, text FROM notes ORDER BY id DESC LIMIT 100");
             ResultSet r = s.executeQuery()) {
            while (r.next()) {
                b.append(b.length() > 1 ? "," : "").append(note(r.getLong(1), r.getString(2)));
            }
        }
        return json(200, b.append(']').toString());
    }

    private Response one(long id) throws SQLException {
        try (PreparedStatement s = connections.get().prepareStatement("SELECT text FROM notes WHERE id = ?")) {
            s.setLong(1, id);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? json(200, note(id, r.getString(1))) : json(404, "{\"error\":\"no such note\"}");
            }
        }
    }

    private static String note(long id, String text) {
        return "{\"id\":" + id + ",\"text\":" + Json.quote(text) + "}";
    }

    private static Response json(int status, String body) {
        return Response.bytes(status, "application/json", body.getBytes(StandardCharsets.UTF_8));
    }
}
