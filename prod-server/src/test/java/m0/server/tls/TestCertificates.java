package m0.server.tls;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A self-signed certificate for localhost and 127.0.0.1, made at test time with the JDK's
 * keytool (no private key is committed), written as the PEM files m0serve reads: the chain
 * ({@link #cert}) and the unencrypted PKCS#8 key ({@link #key}).
 */
public final class TestCertificates {

    /** The PKCS#12 store's password ({@link #store}): an app that loads its own SSLContext reads it. */
    public static final String STORE_PASSWORD = "m0-test";
    private static final char[] PASSWORD = STORE_PASSWORD.toCharArray();

    public final Path dir;
    public final Path cert;
    public final Path key;
    public final Certificate certificate;
    public final PrivateKey privateKey;

    private TestCertificates(Path dir, Certificate certificate, PrivateKey privateKey) throws IOException {
        this.dir = dir;
        this.certificate = certificate;
        this.privateKey = privateKey;
        this.cert = dir.resolve("cert.pem");
        this.key = dir.resolve("key.pem");
        try {
            Files.writeString(cert, pem("CERTIFICATE", certificate.getEncoded()));
        } catch (java.security.cert.CertificateEncodingException e) {
            throw new IOException(e);
        }
        Files.writeString(key, pem("PRIVATE KEY", privateKey.getEncoded()));
    }

    /** {@code algorithm}: "RSA" (2048 bits) or "EC" (P-256). */
    public static TestCertificates make(String algorithm) throws Exception {
        return make(algorithm, "localhost");
    }

    /** For the DNS name {@code host} (its CN, and with 127.0.0.1 its SAN): SNI's tests. */
    public static TestCertificates make(String algorithm, String host) throws Exception {
        Path dir = Files.createTempDirectory("m0-tls-" + algorithm.toLowerCase() + "-");
        Path store = dir.resolve("server.p12");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        ProcessBuilder pb = new ProcessBuilder(keytool, "-genkeypair", "-alias", "m0", "-keyalg", algorithm,
                "-keysize", algorithm.equals("EC") ? "256" : "2048", "-dname", "CN=" + host,
                "-ext", "SAN=dns:" + host + ",ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12",
                "-keystore", store.toString(), "-storepass", new String(PASSWORD))
                .redirectErrorStream(true).redirectOutput(dir.resolve("keytool.out").toFile());
        Process p = pb.start();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException("keytool failed: " + Files.readString(dir.resolve("keytool.out")));
        }
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            ks.load(in, PASSWORD);
        }
        return new TestCertificates(dir, ks.getCertificate("m0"), (PrivateKey) ks.getKey("m0", PASSWORD));
    }

    /** The PKCS#12 store keytool made: the certificate and its key, for an app's own SSLContext. */
    public Path store() {
        return dir.resolve("server.p12");
    }

    /** A client context that trusts this certificate only. */
    public SSLContext clientContext() throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("m0", certificate);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext c = SSLContext.getInstance("TLS");
        c.init(null, tmf.getTrustManagers(), null);
        return c;
    }

    static String pem(String label, byte[] der) {
        return "-----BEGIN " + label + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + label + "-----\n";
    }
}
