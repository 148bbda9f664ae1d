package m0.server.tls;

import javax.net.ssl.SSLEngine;

/**
 * Where a worker's TLS connections get their engines (ADR 0069): m0serve's own context from
 * {@code --tls-cert/--tls-key} ({@link TlsContext}), or under {@code --main} the app's
 * {@code HttpsServer} with its {@code HttpsConfigurator}.
 */
public interface EngineSource {

    /** A server-mode engine for one connection from {@code peer} (its raw sockaddr; may be null). */
    SSLEngine engine(byte[] peer);

    /** For the worker's start-up line. */
    String describe();
}
