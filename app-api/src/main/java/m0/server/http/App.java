package m0.server.http;

/**
 * The application: request in, response out. Loaded by class name (m0serve's {@code --app})
 * (public no-arg constructor). One instance per worker; {@link #handle} may run on the worker's
 * loop thread and, for blocking requests, on its pool threads at the same time.
 */
public interface App {
    /** Once per worker, before serving. */
    default void init(AppContext context) {}

    /** True when handle() may block: it then runs on the worker's bounded blocking pool. */
    default boolean blocking(Request request) {
        return false;
    }

    /** The response; an exception or null becomes a 500. */
    Response handle(Request request) throws Exception;
}
