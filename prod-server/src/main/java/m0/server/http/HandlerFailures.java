package m0.server.http;

/**
 * Told, on the loop thread, of each request whose app code failed: it threw (an Exception or an
 * Error, inline or on a pool thread), returned no response, or returned without sending one. The
 * session has already answered 500 when no byte of the answer had left, or cut the connection
 * after what had; this is for the worker's log, its counters, and its decision to retire.
 */
@FunctionalInterface
public interface HandlerFailures {

    /** Nobody is told (tests of the session alone). */
    HandlerFailures NONE = (request, failure) -> { };

    /**
     * @param request the request whose handler failed
     * @param failure what it threw, or a stand-in saying what it did wrong
     */
    void failed(Request request, Throwable failure);
}
