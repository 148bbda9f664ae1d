package m0.server.tls;

import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * The listener's TLS (ADR 0069): the JDK's own provider, TLS 1.3 and 1.2, the JDK's default
 * suites less CBC and less those without ECDHE (TLS 1.3's own suites kept), the server's order,
 * ALPN offering http/1.1 only; one certificate, or several chosen by SNI ({@link SniKeyManager}).
 * One per worker; {@link #engine} makes each connection's.
 */
public final class TlsContext implements EngineSource {

    static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};
    static final String[] ALPN = {"http/1.1"};

    private final SSLContext context;
    private final String[] suites;
    /** The certificates' leaves' subjects, for the start-up line. */
    private final List<String> subjects;

    private TlsContext(SSLContext context, List<SniKeyManager.Entry> entries) {
        this.context = context;
        this.subjects = subjects(entries);
        this.suites = Arrays.stream(context.getDefaultSSLParameters().getCipherSuites())
                .filter(TlsContext::modern).toArray(String[]::new);
    }

    /** Reads and checks the files: a bad one is one line naming it and its problem. */
    public static TlsContext load(TlsFiles files) throws TlsSetupException {
        List<SniKeyManager.Entry> entries = entries(files);
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(new KeyManager[] {new SniKeyManager(entries)}, null, null);
            return new TlsContext(context, entries);
        } catch (GeneralSecurityException e) {
            throw new TlsSetupException("--tls-cert " + files.cert() + " with --tls-key " + files.key()
                    + ": the JDK will not serve them (" + e + ")");
        }
    }

    /** The certificates and their keys, read and checked, in order: the first is the default. */
    static List<SniKeyManager.Entry> entries(TlsFiles files) throws TlsSetupException {
        List<String> certs = files.certs();
        List<String> keys = files.keys();
        if (certs.size() != keys.size()) {
            throw new TlsSetupException("--tls-cert names " + certs.size() + " file(s) and --tls-key "
                    + keys.size() + ": they pair by position, one key per certificate");
        }
        List<SniKeyManager.Entry> entries = new ArrayList<>();
        for (int i = 0; i < certs.size(); i++) {
            X509Certificate[] chain = PemFiles.chain(certs.get(i));
            PrivateKey key = PemFiles.key(keys.get(i));
            PemFiles.matches(key, chain[0], keys.get(i), certs.get(i));
            entries.add(SniKeyManager.entry(chain, key));
        }
        return entries;
    }

    /** The leaves' subjects, for the start-up line. */
    static List<String> subjects(List<SniKeyManager.Entry> entries) {
        return entries.stream().map(e -> e.chain()[0].getSubjectX500Principal().getName()).toList();
    }

    /**
     * Why {@code files} would not load now, as {@link #load} says it, or null (also for plain
     * HTTP): the supervisor's check before a reload starts any replacement.
     */
    public static String problem(TlsFiles files) {
        if (!files.on()) {
            return null;
        }
        try {
            load(files);
            return null;
        } catch (TlsSetupException | RuntimeException e) {
            return e instanceof TlsSetupException ? e.getMessage() : "--tls-cert " + files.cert() + ": " + e;
        }
    }

    /** TLS 1.3's suites, and TLS 1.2's with ECDHE and an AEAD (GCM, ChaCha20): no CBC, no static RSA or DHE. */
    static boolean modern(String suite) {
        if (suite.startsWith("TLS_AES_") || suite.startsWith("TLS_CHACHA20_")) {
            return true;
        }
        return suite.startsWith("TLS_ECDHE_") && !suite.contains("_CBC_");
    }

    /** A server engine for one connection, with this context's protocols, suites and ALPN. */
    @Override
    public SSLEngine engine(byte[] peer) {
        return engine();
    }

    /** A server engine, with this context's protocols, suites and ALPN. */
    public SSLEngine engine() {
        SSLEngine engine = context.createSSLEngine();
        engine.setUseClientMode(false);
        SSLParameters p = engine.getSSLParameters();
        p.setProtocols(PROTOCOLS);
        p.setCipherSuites(suites);
        p.setUseCipherSuitesOrder(true);
        p.setApplicationProtocols(ALPN);
        engine.setSSLParameters(p);
        return engine;
    }

    @Override
    public String describe() {
        return "TLS (" + String.join(", ", PROTOCOLS) + "; " + suites.length + " suites; ALPN http/1.1) for "
                + String.join(" | ", subjects) + (subjects.size() > 1 ? " (by SNI; the first by default)" : "");
    }
}
