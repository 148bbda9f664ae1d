package m0.server.jdkhttp;

import com.sun.net.httpserver.Authenticator;
import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Executor;
import m0.server.http.Exchange;
import m0.server.http.ExchangeApp;

/**
 * The app's {@code HttpServer} as m0's {@link ExchangeApp}: each request finds its context (the
 * longest prefix), then runs as the JDK's server runs it: the context's filters, then its
 * authenticator, then its handler, on the server's executor or the worker's pool.
 */
public final class JdkHttpApp implements ExchangeApp {

    private static final byte[] NO_CONTEXT = "<h1>404 Not Found</h1>No context found for request"
            .getBytes(StandardCharsets.ISO_8859_1);

    private static final byte[] BAD_URI = "<h1>400 Bad Request</h1>Bad request line"
            .getBytes(StandardCharsets.ISO_8859_1);

    private final M0HttpServer server;

    public JdkHttpApp(M0HttpServer server) {
        this.server = server;
    }

    @Override
    public Executor executor() {
        return server.getExecutor();
    }

    /** The JDK's server buffers a body's writes until a flush; an app written for it flushes where it must. */
    @Override
    public boolean gathersWrites() {
        return true;
    }

    @Override
    public void serve(Exchange x) throws Exception {
        M0HttpContext ctx = server.find(x.request().path());
        if (ctx == null || ctx.getHandler() == null) {
            x.sendHead(404, NO_CONTEXT.length, "Content-Type", "text/html");
            x.body().write(NO_CONTEXT);
            x.finish();
            return;
        }
        M0HttpExchange e;
        try {
            e = new M0HttpExchange(x, ctx, server.getAddress());
        } catch (IllegalArgumentException notAUri) {
            // A target m0's parser takes but java.net.URI does not: the JDK's server answers 400.
            x.sendHead(400, BAD_URI.length, "Content-Type", "text/html");
            x.body().write(BAD_URI);
            x.finish();
            return;
        }
        // On a TLS connection the app's handlers get an HttpsExchange, as under the JDK's HttpsServer.
        javax.net.ssl.SSLSession tls = m0.server.http.ExchangeTls.session(x);
        HttpExchange given = tls == null ? e : new M0HttpsExchange(e, tls);
        // The JDK's order: the user's filters, then the authenticator (a system filter), then the handler.
        HttpHandler auth = new AuthThenHandle(ctx.getAuthenticator(), ctx.getHandler(), e);
        new Filter.Chain(List.copyOf(ctx.getFilters()), auth).doFilter(given);
    }

    /** The JDK's AuthFilter in front of the context's handler. */
    private static final class AuthThenHandle implements HttpHandler {
        private final Authenticator authenticator;
        private final HttpHandler handler;
        /** The exchange the chain began with: a filter may pass on a wrapper of it. */
        private final M0HttpExchange ours;

        AuthThenHandle(Authenticator authenticator, HttpHandler handler, M0HttpExchange ours) {
            this.authenticator = authenticator;
            this.handler = handler;
            this.ours = ours;
        }

        @Override
        public void handle(HttpExchange exchange) throws IOException {
            if (authenticator == null) {
                handler.handle(exchange);
                return;
            }
            Authenticator.Result r = authenticator.authenticate(exchange);
            if (r instanceof Authenticator.Success s) {
                ours.principal(s.getPrincipal());
                handler.handle(exchange);
            } else if (r instanceof Authenticator.Retry ry) {
                consume(exchange);
                exchange.sendResponseHeaders(ry.getResponseCode(), -1);
            } else if (r instanceof Authenticator.Failure f) {
                consume(exchange);
                exchange.sendResponseHeaders(f.getResponseCode(), -1);
            }
        }

        private static void consume(HttpExchange exchange) throws IOException {
            InputStream in = exchange.getRequestBody();
            in.transferTo(java.io.OutputStream.nullOutputStream());
        }
    }

    /** For a caller that needs the listener's address, as the server reports it. */
    InetSocketAddress address() {
        return server.getAddress();
    }
}
