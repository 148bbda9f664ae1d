package m0.server.http;

import javax.net.ssl.SSLSession;

/**
 * The TLS session of the connection an {@link Exchange} answers on (ADR 0069): what the JDK's
 * {@code HttpsExchange.getSSLSession} returns under {@code --main}. Outside {@link Exchange}, so
 * the app API does not grow for the one caller that needs it.
 */
public final class ExchangeTls {

    private ExchangeTls() {
    }

    /** The session, or null: a plain connection, or an exchange m0serve did not make. */
    public static SSLSession session(Exchange x) {
        return x instanceof PipedExchange p ? p.tls() : null;
    }
}
