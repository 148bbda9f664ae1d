package m0.server.http;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A streamed answer's head as its app sent it ({@link Exchange#sendHead}): the status, and the
 * status line and fields as bytes, with the framing field the body's framing calls for and no
 * Date, no Connection (the loop adds those as the answer goes out). Immutable: its
 * {@link PipedExchange} sets it once, under its lock, and the loop reads it there.
 */
final class ExchangeHead {

    final int status;
    final byte[] bytes;

    private ExchangeHead(int status, byte[] bytes) {
        this.status = status;
        this.bytes = bytes;
    }

    /**
     * The head for {@code status} and {@code headers} (names and values alternating), once
     * {@code body} was framed for it ({@link FramedBody#frame}); {@code head}: it answers a HEAD.
     * The server's own framing fields, Content-Length, Transfer-Encoding, Connection and Date,
     * are its to write and skipped.
     */
    static ExchangeHead of(int status, long length, boolean head, FramedBody body, String... headers) {
        StringBuilder sb = new StringBuilder(128);
        sb.append("HTTP/1.1 ").append(status).append(' ').append(Response.reason(status)).append("\r\n");
        for (int i = 0; i + 1 < headers.length; i += 2) {
            String name = headers[i];
            switch (name.toLowerCase(Locale.ROOT)) {
                case "transfer-encoding", "connection", "date" -> {
                    continue;
                }
                case "content-length" -> {
                    if (!head) {
                        continue; // the framing below says it; a HEAD's is the handler's to give
                    }
                }
                default -> { }
            }
            Response.checkHeader(name, headers[i + 1]);
            sb.append(name).append(": ").append(headers[i + 1]).append("\r\n");
        }
        if (body.chunked()) {
            sb.append("Transfer-Encoding: chunked\r\n");
        } else if (body.closeDelimited() || head) {
            // no framing field: the close ends a 1.0 body; a HEAD's length is what the handler set
        } else if (status >= 200 && status != 204 && status != 304) {
            // HEAD says the length a GET would get; 1xx and 204 never have one, 304 may omit it.
            sb.append("Content-Length: ").append(length == Exchange.CHUNKED ? 0 : length).append("\r\n");
        }
        return new ExchangeHead(status, sb.toString().getBytes(StandardCharsets.ISO_8859_1));
    }
}
