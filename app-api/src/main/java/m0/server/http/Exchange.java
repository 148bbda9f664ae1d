package m0.server.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;

/**
 * One request answered off the loop, its response streamed: the app's thread (a pool thread, or
 * the app's executor) sends a head and writes the body; the worker's loop takes the bytes as fast
 * as the connection carries them. m0serve makes each one and hands it to
 * {@link ExchangeApp#serve}; an app never implements it.
 *
 * <p><b>Back-pressure.</b> At most {@link #PIPE_BYTES} wait between the writer and the loop; a
 * writer past that blocks until the loop takes some. A client that reads slowly stalls the writer,
 * not the heap: a streamed response holds a bounded amount per connection, whatever its length.
 *
 * <p><b>Framing.</b> {@link #sendHead} with a length of 0 or more: that many bytes
 * (Content-Length); {@link #CHUNKED}: chunked, framed as the writer writes (to an HTTP/1.0
 * client: unframed, and the close ends it). A HEAD request, 1xx, 204 and 304 carry no body
 * whatever the length: what is written to them is dropped.
 * A fixed-length body written short or long is the writer's error (an {@link IOException}, as
 * the JDK's server throws) and the connection closes after what was sent: the client must not
 * read the next response out of a body it was promised.
 *
 * <p>Threads: {@link #sendHead}, {@link #body()} and {@link #finish()} are the writer's, one
 * thread at a time.
 */
public interface Exchange {

    /** {@link #sendHead}'s length for a chunked body. */
    long CHUNKED = -1;
    /** What may wait between the writer and the loop before the writer blocks. */
    int PIPE_BYTES = 64 * 1024;

    /** The request this exchange answers. */
    Request request();

    /** The client's address, or null when unknown. */
    InetSocketAddress remote();

    /** The request's body as a stream: as it arrives, or the whole body the parser read. */
    InputStream requestBody();

    /** Whether {@link #sendHead} has been called. */
    boolean headSent();

    /**
     * The status and headers (names and values alternating; the server's own framing fields,
     * Content-Length, Transfer-Encoding, Connection and Date, are its to write and skipped here),
     * and how the body is framed: {@code length >= 0} bytes, or {@link #CHUNKED}.
     *
     * @throws IOException when the connection is gone
     * @throws IllegalStateException when the head was sent already
     */
    void sendHead(int status, long length, String... headers) throws IOException;

    /** The body's stream: writes block while {@link #PIPE_BYTES} wait; close ends the response. */
    OutputStream body();

    /**
     * Ends the response (idempotent): a chunked body gets its last chunk; a fixed-length body
     * written short breaks the connection (and throws, as the JDK's does).
     */
    void finish() throws IOException;

    /**
     * The writer failed part-way (an exception after the head): what was sent stays sent, no last
     * chunk follows, and the connection closes, as the JDK's server does.
     */
    void fail();

    /** A whole response, as a blocking {@link App} answers. */
    void respond(Response r) throws IOException;
}
