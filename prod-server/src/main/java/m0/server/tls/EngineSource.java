package m0.server.tls;

import javax.net.ssl.SSLEngine;

/**
 * Where a worker's TLS connections get their engines (ADR 0069): m0serve's own context from
 * {@code --tls-cert/--tls-key} ({@link BoringTls}, else {@link TlsContext}), or under
 * {@code --main} the app's {@code HttpsServer} with its {@code HttpsConfigurator}.
 */
public interface EngineSource {

    /** A server-mode engine for one connection from {@code peer} (its raw sockaddr; may be null). */
    SSLEngine engine(byte[] peer);

    /**
     * Whether {@code engine}'s finished handshake resumed a session, for the handshake counters
     * (ADR 0073). The JDK says it nowhere: a session created before the connection was
     * ({@code linkMillis}, wall clock) came from a ticket or the cache. Within the same
     * millisecond it counts as full.
     */
    default boolean resumed(SSLEngine engine, long linkMillis) {
        return engine.getSession().getCreationTime() < linkMillis;
    }

    /** For the worker's start-up line. */
    String describe();
}
