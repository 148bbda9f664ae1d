package m0.server.jdkhttp;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpPrincipal;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import m0.server.http.Exchange;
import m0.server.http.Request;

/**
 * The JDK's {@code HttpExchange} over one m0 {@link Exchange}, as the JDK's own server keeps its
 * contract: {@code sendResponseHeaders(code, n)} with n > 0 a fixed length, 0 chunked, -1 no body
 * (the exchange is then complete); attributes are the context's map (the JDK's exchange reads
 * and writes its context's); {@code close} closes the request body, then the response body.
 */
final class M0HttpExchange extends HttpExchange {

    private final Exchange exchange;
    private final M0HttpContext context;
    /** Made when first asked for: a handler that reads no header pays for no map. */
    private Headers requestHeaders;
    private final Headers responseHeaders = new Headers();
    private final URI uri;
    /** Decoded when first asked for. */
    private InetSocketAddress remote;
    private final InetSocketAddress local;
    private InputStream in;
    private OutputStream out;
    private int code = -1;
    private HttpPrincipal principal;

    M0HttpExchange(Exchange exchange, M0HttpContext context, InetSocketAddress local) {
        this.exchange = exchange;
        this.context = context;
        this.local = local;
        this.uri = URI.create(exchange.request().target()); // a target URI refuses is the caller's 400
        this.in = exchange.requestBody();
        this.out = exchange.body();
    }

    @Override
    public Headers getRequestHeaders() {
        Headers h = requestHeaders;
        if (h == null) {
            h = new Headers();
            Request r = exchange.request();
            for (String name : r.headerNames()) {
                if (!h.containsKey(name)) {
                    h.put(name, new ArrayList<>(r.headers(name)));
                }
            }
            requestHeaders = h;
        }
        return h;
    }

    @Override
    public Headers getResponseHeaders() {
        return responseHeaders;
    }

    @Override
    public URI getRequestURI() {
        return uri;
    }

    @Override
    public String getRequestMethod() {
        return exchange.request().method();
    }

    @Override
    public HttpContext getHttpContext() {
        return context;
    }

    @Override
    public void close() {
        try {
            in.close();
            out.close();
        } catch (IOException e) {
            // the JDK's close swallows these too: the connection ends with what was sent
        }
    }

    @Override
    public InputStream getRequestBody() {
        return in;
    }

    @Override
    public OutputStream getResponseBody() {
        return out;
    }

    @Override
    public void sendResponseHeaders(int rCode, long responseLength) throws IOException {
        if (exchange.headSent()) {
            throw new IOException("headers already sent");
        }
        code = rCode;
        List<String> h = new ArrayList<>();
        for (Map.Entry<String, List<String>> e : responseHeaders.entrySet()) {
            for (String v : e.getValue()) {
                h.add(e.getKey());
                h.add(v);
            }
        }
        long length = responseLength > 0 ? responseLength : responseLength == 0 ? Exchange.CHUNKED : 0;
        exchange.sendHead(rCode, length, h.toArray(new String[0]));
        if (responseLength == -1) {
            exchange.finish(); // no body: the JDK's exchange is complete here
        }
    }

    @Override
    public InetSocketAddress getRemoteAddress() {
        if (remote == null) {
            remote = exchange.remote();
        }
        return remote;
    }

    @Override
    public int getResponseCode() {
        return code;
    }

    @Override
    public InetSocketAddress getLocalAddress() {
        return local;
    }

    @Override
    public String getProtocol() {
        return exchange.request().version();
    }

    @Override
    public Object getAttribute(String name) {
        return context.getAttributes().get(name);
    }

    @Override
    public void setAttribute(String name, Object value) {
        if (value == null) {
            context.getAttributes().remove(name);
        } else {
            context.getAttributes().put(name, value);
        }
    }

    @Override
    public void setStreams(InputStream i, OutputStream o) {
        if (i != null) {
            in = i;
        }
        if (o != null) {
            out = o;
        }
    }

    @Override
    public HttpPrincipal getPrincipal() {
        return principal;
    }

    void principal(HttpPrincipal p) {
        principal = p;
    }
}
