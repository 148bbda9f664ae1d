package m0.server.jdkhttp;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpPrincipal;
import com.sun.net.httpserver.HttpsExchange;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import javax.net.ssl.SSLSession;

/**
 * An exchange on a TLS connection (ADR 0069): an {@link HttpsExchange}, as the JDK's
 * {@code HttpsServer} gives its handlers, with the connection's session. Everything else is the
 * {@link M0HttpExchange} it wraps (one class can extend only one of the JDK's two).
 */
final class M0HttpsExchange extends HttpsExchange {

    private final M0HttpExchange x;
    private final SSLSession session;

    M0HttpsExchange(M0HttpExchange x, SSLSession session) {
        this.x = x;
        this.session = session;
    }

    @Override
    public SSLSession getSSLSession() {
        return session;
    }

    @Override
    public Headers getRequestHeaders() {
        return x.getRequestHeaders();
    }

    @Override
    public Headers getResponseHeaders() {
        return x.getResponseHeaders();
    }

    @Override
    public URI getRequestURI() {
        return x.getRequestURI();
    }

    @Override
    public String getRequestMethod() {
        return x.getRequestMethod();
    }

    @Override
    public HttpContext getHttpContext() {
        return x.getHttpContext();
    }

    @Override
    public void close() {
        x.close();
    }

    @Override
    public InputStream getRequestBody() {
        return x.getRequestBody();
    }

    @Override
    public OutputStream getResponseBody() {
        return x.getResponseBody();
    }

    @Override
    public void sendResponseHeaders(int rCode, long responseLength) throws IOException {
        x.sendResponseHeaders(rCode, responseLength);
    }

    @Override
    public InetSocketAddress getRemoteAddress() {
        return x.getRemoteAddress();
    }

    @Override
    public int getResponseCode() {
        return x.getResponseCode();
    }

    @Override
    public InetSocketAddress getLocalAddress() {
        return x.getLocalAddress();
    }

    @Override
    public String getProtocol() {
        return x.getProtocol();
    }

    @Override
    public Object getAttribute(String name) {
        return x.getAttribute(name);
    }

    @Override
    public void setAttribute(String name, Object value) {
        x.setAttribute(name, value);
    }

    @Override
    public void setStreams(InputStream i, OutputStream o) {
        x.setStreams(i, o);
    }

    @Override
    public HttpPrincipal getPrincipal() {
        return x.getPrincipal();
    }
}
