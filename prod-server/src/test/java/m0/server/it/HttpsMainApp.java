package m0.server.it;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import m0.server.jdkhttp.ConformanceHandlers;

/**
 * An app as a JDK user writes one for HTTPS: its own {@code SSLContext} from a PKCS#12 store, an
 * {@code HttpsConfigurator} whose {@code configure} allows one protocol only (so an answer shows
 * the app's configure was applied: m0serve's own default would pick TLS 1.3), the conformance
 * handlers, and {@code /tls}, which says what the exchange knows of its connection.
 *
 * <p>args: {@code host:port store.p12 password protocol}, or {@code host:port plain} for a plain
 * {@code HttpServer} (m0serve's {@code --tls-cert} then gives the TLS).
 */
public final class HttpsMainApp {

    private HttpsMainApp() {
    }

    public static void main(String[] args) throws Exception {
        start(args).start();
    }

    /** The server made and its contexts installed, not started. */
    public static HttpServer start(String[] args) throws Exception {
        int colon = args[0].lastIndexOf(':');
        InetSocketAddress at = new InetSocketAddress(args[0].substring(0, colon),
                Integer.parseInt(args[0].substring(colon + 1)));
        HttpServer server;
        if (args[1].equals("plain")) {
            server = HttpServer.create(at, 0);
        } else {
            HttpsServer https = HttpsServer.create(at, 0);
            SSLContext context = context(Path.of(args[1]), args[2].toCharArray());
            String protocol = args[3];
            https.setHttpsConfigurator(new HttpsConfigurator(context) {
                @Override
                public void configure(HttpsParameters params) {
                    SSLParameters p = getSSLContext().getDefaultSSLParameters();
                    p.setProtocols(new String[] {protocol});
                    params.setSSLParameters(p);
                }
            });
            server = https;
        }
        ConformanceHandlers.install(server);
        server.createContext("/tls", HttpsMainApp::tls);
        return server;
    }

    /** Whether the exchange is an HttpsExchange, and its session's protocol and suite. */
    private static void tls(HttpExchange x) throws IOException {
        String body = "https=" + (x instanceof HttpsExchange) + "\n";
        if (x instanceof HttpsExchange h) {
            body += "protocol=" + h.getSSLSession().getProtocol() + "\nsuite=" + h.getSSLSession().getCipherSuite() + "\n";
        }
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        x.sendResponseHeaders(200, b.length);
        try (OutputStream out = x.getResponseBody()) {
            out.write(b);
        }
    }

    private static SSLContext context(Path store, char[] password) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            ks.load(in, password);
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, password);
        SSLContext c = SSLContext.getInstance("TLS");
        c.init(kmf.getKeyManagers(), null, null);
        return c;
    }
}
