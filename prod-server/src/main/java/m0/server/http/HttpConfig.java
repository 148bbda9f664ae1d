package m0.server.http;

/**
 * Limits and timeouts of one connection.
 *
 * @param maxHeaderBytes     request line + headers (with their line ends); past it: 431
 * @param maxBodyBytes       request body, decoded; past it: 413
 * @param idleTimeoutNanos   keep-alive idle time between requests; then the connection closes quietly
 * @param headerTimeoutNanos a started request head must complete within it, counted from its first
 *                           byte (blank lines included); else 408
 * @param bodyTimeoutNanos   a body that receives nothing for this long gets 408
 */
public record HttpConfig(int maxHeaderBytes, long maxBodyBytes, long idleTimeoutNanos, long headerTimeoutNanos,
                         long bodyTimeoutNanos) {

    /** The body timeout equal to the header timeout. */
    public HttpConfig(int maxHeaderBytes, long maxBodyBytes, long idleTimeoutNanos, long headerTimeoutNanos) {
        this(maxHeaderBytes, maxBodyBytes, idleTimeoutNanos, headerTimeoutNanos, headerTimeoutNanos);
    }

    public HttpConfig {
        if (maxHeaderBytes < 64) throw new IllegalArgumentException("maxHeaderBytes < 64: " + maxHeaderBytes);
        // Bodies are held in one byte[]: keep well inside array limits.
        if (maxBodyBytes < 0 || maxBodyBytes > Integer.MAX_VALUE - 64) {
            throw new IllegalArgumentException("maxBodyBytes out of range: " + maxBodyBytes);
        }
        if (idleTimeoutNanos <= 0) throw new IllegalArgumentException("idleTimeoutNanos <= 0");
        if (headerTimeoutNanos <= 0) throw new IllegalArgumentException("headerTimeoutNanos <= 0");
        if (bodyTimeoutNanos <= 0) throw new IllegalArgumentException("bodyTimeoutNanos <= 0");
    }

    /** 16 KiB of head, 1 MiB of body, 5 s idle, 10 s to finish a head, 10 s of silence inside a body. */
    public static HttpConfig defaults() {
        return new HttpConfig(16 * 1024, 1024 * 1024, 5_000_000_000L, 10_000_000_000L, 10_000_000_000L);
    }
}
