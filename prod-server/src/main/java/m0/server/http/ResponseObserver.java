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
     * @param bodyBytes  the bytes after the head handed to the connection, as nginx's
     *                   {@code $body_bytes_sent} (a chunked body's framing included; 0 for HEAD,
     *                   bodyless statuses, and an answer cut before its body)
     * @param startNanos System.nanoTime of the pass that parsed the request
     * @param cut        the answer ended short of what its head promised (its handler failed after
     *                   the head, wrote short, or the connection closed under it): the client saw
     *                   {@code status} and {@code bodyBytes}, then the close
     */
    void responded(Request request, int status, long bodyBytes, long startNanos, boolean cut);
}
