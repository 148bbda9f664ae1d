/**
 * The JDK's {@code com.sun.net.httpserver} API on m0serve's workers: {@link
 * m0.server.jdkhttp.M0HttpServerProvider} makes the {@code HttpServer} an app's own {@code main}
 * creates (under {@code m0serve --main}; an {@code HttpsServer} brings the listener its TLS, ADR
 * 0069), and {@link m0.server.jdkhttp.JdkHttpApp} serves its
 * contexts from the worker's loop, each exchange on the server's executor or the worker's pool.
 * The JDK's server ({@code sun.net.httpserver}) is the reference: docs/apps.md lists what differs.
 */
package m0.server.jdkhttp;
