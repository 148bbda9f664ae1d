package m0.server.http;

import java.util.concurrent.Executor;

/**
 * An app that answers through the {@link Exchange} itself, off the loop: the JDK's
 * {@code HttpHandler}s through m0's provider ({@code m0.server.jdkhttp}). Every request is given
 * to {@link #serve} on {@link #executor()}, or the worker's blocking pool when that is null;
 * never on the loop, for a handler may block anywhere.
 */
public interface ExchangeApp extends App {

    /**
     * Answers the exchange: its head, then its body, then {@link Exchange#finish()}. What is not
     * finished when this returns is finished for it; an exception before the head closes the
     * connection with no answer, as the JDK's server does.
     */
    void serve(Exchange exchange) throws Exception;

    /** Where {@link #serve} runs; null: the worker's blocking pool. */
    default Executor executor() {
        return null;
    }

    /**
     * Whether the body's writes may wait in the server's buffer (up to {@link Exchange#PIPE_BYTES})
     * until a {@code flush()}, a full buffer or the end, as the JDK's own server buffers them; then
     * many small writes reach the loop as a few large ones. False (the default): each write is
     * handed to the loop as it is written.
     */
    default boolean gathersWrites() {
        return false;
    }

    @Override
    default boolean blocking(Request request) {
        return true;
    }

    @Override
    default Response handle(Request request) {
        throw new UnsupportedOperationException("an ExchangeApp answers through serve(Exchange)");
    }
}
