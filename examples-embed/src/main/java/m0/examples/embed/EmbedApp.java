package m0.examples.embed;

import java.util.List;
import m0.server.http.App;
import m0.server.http.AppContext;
import m0.server.http.Request;
import m0.server.http.Response;

/**
 * The embedding service as an m0serve {@code App}: {@code POST /embed} runs on the worker's
 * blocking pool ({@code --blocking-threads}), never on its loop, since one call is milliseconds
 * of CPU. The model is loaded once per worker, in {@link #init}, before the worker counts as
 * started.
 *
 * <pre>
 * m0serve --workers 2 --blocking-threads 2 --app m0.examples.embed.EmbedApp \
 *     --app-classpath examples-embed/target/m0-embed-app.jar
 * </pre>
 *
 * <p>ONNX Runtime's threads per call come from {@code M0_EMBED_ORT_THREADS} (unset or 0: the
 * runtime's defaults); README.md says how to size it against workers and handler threads.
 */
public final class EmbedApp implements App {

    private volatile MiniLm model;

    @Override
    public void init(AppContext context) {
        model = MiniLm.threads(ortThreads(System.getenv("M0_EMBED_ORT_THREADS")));
        System.out.println("embed: worker " + context.workerIndex() + " loaded all-MiniLM-L6-v2 ("
                + model.description() + ")");
    }

    @Override
    public boolean blocking(Request request) {
        return request.path().equals("/embed");
    }

    @Override
    public Response handle(Request request) {
        if (!request.path().equals("/embed")) {
            return Response.text(404, "not found: POST /embed\n");
        }
        if (!request.method().equals("POST")) {
            return Response.text(405, "POST /embed\n").withHeader("Allow", "POST");
        }
        EmbedJson.Ask ask;
        try {
            ask = EmbedJson.parse(request.body());
        } catch (EmbedJson.BadRequest e) {
            return Response.bytes(400, "application/json", EmbedJson.error(e.getMessage()));
        }
        List<float[]> vectors = model.embed(ask.texts());
        return Response.bytes(200, "application/json", EmbedJson.answer(ask, vectors));
    }

    /** The variable's value: a count of threads, 0 (or unset) for the runtime's defaults. */
    static int ortThreads(String value) {
        if (value == null || value.isBlank()) {
            return 0;
        }
        try {
            int n = Integer.parseInt(value.trim());
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new IllegalArgumentException("M0_EMBED_ORT_THREADS must be a count of threads (0: the runtime's defaults), not '"
                + value + "'");
    }
}
