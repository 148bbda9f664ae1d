package m0.server.tls;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.OpenSslCachingX509KeyManagerFactory;
import io.netty.handler.ssl.OpenSslSessionContext;
import io.netty.handler.ssl.OpenSslSessionTicketKey;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.SimpleKeyManagerFactory;
import io.netty.internal.tcnative.SSL;
import java.security.KeyStore;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.KeyManager;
import javax.net.ssl.ManagerFactoryParameters;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;

/**
 * The listener's TLS on BoringSSL (ADR 0073): netty's OpenSSL engine over netty-tcnative's
 * statically linked BoringSSL, a {@code javax.net.ssl.SSLEngine} like the JDK's, so
 * {@link TlsLink} drives it the same way, with no netty event loop. The same defaults as
 * {@link TlsContext} (TLS 1.3 and 1.2, ECDHE with an AEAD, ALPN http/1.1, the certificate by SNI
 * through the same {@link SniKeyManager}), and what SunJSSE lacks: session-ticket keys set from
 * outside, so every worker seals and opens tickets with the supervisor's keys
 * ({@link TicketKeyPage}). Not thread-safe: one per worker, the loop's.
 */
public final class BoringTls implements EngineSource {

    /** How long a session (so a ticket) is good for, in seconds: one rotation period (ADR 0073). */
    public static final long SESSION_SECONDS = 3600;

    private final SslContext context;
    private final OpenSslSessionContext sessions;
    private final List<String> subjects;
    private final int suites;
    /** The supervisor's keys; empty: this worker's own (BoringSSL's random ones). */
    private final Optional<TicketKeyPage> tickets;
    private long applied;

    private BoringTls(SslContext context, List<String> subjects, int suites, Optional<TicketKeyPage> tickets) {
        this.context = context;
        this.sessions = (OpenSslSessionContext) context.sessionContext();
        this.subjects = subjects;
        this.suites = suites;
        this.tickets = tickets;
    }

    /** Whether BoringSSL loaded here; else why not (for the fallback's line). */
    public static Throwable unavailable() {
        return OpenSsl.isAvailable() ? null : OpenSsl.unavailabilityCause();
    }

    /**
     * Reads and checks the files as {@link TlsContext#load} does, and builds the BoringSSL context.
     *
     * @param tickets the supervisor's key page, or empty: each worker its own keys
     */
    public static BoringTls load(TlsFiles files, Optional<TicketKeyPage> tickets) throws TlsSetupException {
        List<SniKeyManager.Entry> entries = TlsContext.entries(files);
        String[] suites = OpenSsl.availableJavaCipherSuites().stream().filter(TlsContext::modern).sorted(
                BoringTls::preferred).toArray(String[]::new);
        try {
            // the caching factory: each certificate's key and chain parsed into BoringSSL once, not at
            // every handshake whose SNI picks another certificate than the last (netty's own cache
            // holds one)
            SslContext context = SslContextBuilder.forServer(
                            new OpenSslCachingX509KeyManagerFactory(new Keys(new SniKeyManager(entries))))
                    // REFCNT: engines without a finalizer (ADR 0073's storm addendum). OPENSSL's
                    // OpenSslEngine overrides finalize(), so each handshake's engine was registered
                    // with the Finalizer and outlived a GC; every connection releases its engine at
                    // its close (TlsLink.release), and netty's leak detector names one that is not.
                    .sslProvider(SslProvider.OPENSSL_REFCNT)
                    .protocols(TlsContext.PROTOCOLS)
                    .ciphers(List.of(suites))
                    .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                            ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                            ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, TlsContext.ALPN))
                    .sessionTimeout(SESSION_SECONDS)
                    .build();
            BoringTls tls = new BoringTls(context, TlsContext.subjects(entries), suites.length, tickets);
            tls.applyKeys();
            return tls;
        } catch (SSLException | RuntimeException e) {
            throw new TlsSetupException("--tls-cert " + files.cert() + " with --tls-key " + files.key()
                    + ": BoringSSL will not serve them (" + e + ")");
        }
    }

    /** TLS 1.3's first, then ECDSA before RSA, GCM before ChaCha20: stable, the server's order. */
    private static int preferred(String a, String b) {
        return Integer.compare(rank(a), rank(b));
    }

    private static int rank(String s) {
        int r = s.startsWith("TLS_AES_") || s.startsWith("TLS_CHACHA20_") ? 0 : 10;
        r += s.contains("_ECDSA_") ? 0 : 4;
        r += s.contains("_AES_128_GCM_") ? 0 : s.contains("_AES_256_GCM_") ? 1 : 2;
        return r;
    }

    /**
     * A server engine for one connection. First, the supervisor's keys if their generation moved
     * (a rotation): one volatile read per connection, so a rotation reaches a running worker at
     * its next TLS accept, with no timer and no restart.
     */
    @Override
    public SSLEngine engine(byte[] peer) {
        if (tickets.isPresent() && tickets.get().generation() != applied) {
            applyKeys();
        }
        return context.newEngine(ByteBufAllocator.DEFAULT);
    }

    /**
     * A client context of the same library, for the worker's TLS warm-up (ADR 0073's addendum):
     * it trusts any certificate, since its only peer is this worker on loopback. Its engines
     * made for one host and port offer the session the last one got, so the warm-up resumes too.
     */
    public static SslContext loopbackClient() throws SSLException {
        return SslContextBuilder.forClient().sslProvider(SslProvider.OPENSSL)
                .trustManager(io.netty.handler.ssl.util.InsecureTrustManagerFactory.INSTANCE)
                .protocols(TlsContext.PROTOCOLS).build();
    }

    /** The generation of the supervisor's keys this worker seals and opens tickets with; 0: its own. */
    public long appliedGeneration() {
        return applied;
    }

    private void applyKeys() {
        if (tickets.isEmpty()) {
            return;
        }
        Optional<TicketKeyPage.Read> read = tickets.get().read();
        if (read.isEmpty()) {
            return; // none yet, or a write kept crossing: the next connection looks again
        }
        TicketKeys keys = read.get().keys();
        try {
            OpenSslSessionTicketKey[] k = new OpenSslSessionTicketKey[keys.size()];
            for (int i = 0; i < k.length; i++) {
                k[i] = ticketKey(keys, i);
            }
            sessions.setTicketKeys(k); // the first seals new tickets; all open them
        } finally {
            keys.erase(); // BoringSSL holds them now; netty-tcnative's own heap copies are out of our reach
        }
        applied = read.get().generation();
    }

    /** Key {@code i} as netty takes it; netty clones the three parts, so ours are zeroed here. */
    private static OpenSslSessionTicketKey ticketKey(TicketKeys keys, int i) {
        byte[] name = keys.part(i, 0);
        byte[] hmac = keys.part(i, 1);
        byte[] aes = keys.part(i, 2);
        try {
            return new OpenSslSessionTicketKey(name, hmac, aes);
        } finally {
            java.util.Arrays.fill(name, (byte) 0);
            java.util.Arrays.fill(hmac, (byte) 0);
            java.util.Arrays.fill(aes, (byte) 0);
        }
    }

    @Override
    public boolean resumed(SSLEngine engine, long linkMillis) {
        return engine instanceof ReferenceCountedOpenSslEngine e && SSL.isSessionReused(e.sslPointer());
    }

    @Override
    public String describe() {
        return "TLS by BoringSSL (" + OpenSsl.versionString() + "; " + String.join(", ", TlsContext.PROTOCOLS) + "; "
                + suites + " suites; ALPN http/1.1; session tickets "
                + (tickets.isPresent() ? "with the supervisor's keys" : "with this worker's own keys") + ") for "
                + String.join(" | ", subjects) + (subjects.size() > 1 ? " (by SNI; the first by default)" : "");
    }

    /** The SNI key manager as the factory netty's builder takes. */
    private static final class Keys extends SimpleKeyManagerFactory {
        private final KeyManager[] managers;

        Keys(SniKeyManager manager) {
            this.managers = new KeyManager[] {manager};
        }

        @Override
        protected void engineInit(KeyStore keyStore, char[] password) {
        }

        @Override
        protected void engineInit(ManagerFactoryParameters params) {
        }

        @Override
        protected KeyManager[] engineGetKeyManagers() {
            return managers;
        }
    }
}
