package m0.server.http;

/**
 * Told of each response as it is queued for writing, in request order, on the loop thread:
 * what the access log and the request metrics need (docs/adr/0017). Not told of interim 100s.
 */
@FunctionalInterface
public interface ResponseObserver {

    /**
     * @param request    the request answered; null for an error answer to bytes that never became one
     * @param status     the status sent
     * @param bodyBytes  the body's length as sent (0 for HEAD and bodyless statuses)
     * @param startNanos System.nanoTime of the pass that parsed the request
     */
    void responded(Request request, int status, int bodyBytes, long startNanos);
}
