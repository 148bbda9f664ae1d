/**
 * m0serve's HTTP/1.1: a server-side codec and per-connection session with no I/O and no threads
 * of its own, and the built-in app. The application interface ({@link m0.server.http.App},
 * {@link m0.server.http.Request}, {@link m0.server.http.Response}, {@link m0.server.http.Exchange})
 * is in this package too, in its own artifact, m0-app-api (docs/adr/0066).
 *
 * <p>The worker's loop owns the sockets and drives one {@link m0.server.http.HttpSession} per
 * connection: bytes in ({@code onBytes}, {@code onEof}), bytes out ({@code output}/{@code written}),
 * time ({@code deadline}/{@code onTimeout}, fed with {@code System.nanoTime()}), and pool
 * completions ({@code pollCompletions} after {@code wakeLoop}). Responses always leave in request
 * order; a blocking request holds back every later response until it completes.
 */
package m0.server.http;
