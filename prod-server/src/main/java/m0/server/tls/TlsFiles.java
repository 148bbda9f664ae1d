package m0.server.tls;

import java.util.List;

/**
 * {@code --tls-cert} and {@code --tls-key}: the PEM files the listener's TLS is made from
 * (ADR 0069), or {@link #NONE}: plain HTTP. Passed to each worker on its command line as
 * {@code tls-cert=} and {@code tls-key=} arguments (keys {@code WorkerSpec.parse} ignores); each
 * worker loads them itself, so no key material crosses a pipe.
 *
 * <p>Either may be a comma-separated list (SNI, several certificates): the pairs match by
 * position, and the first is the default ({@link SniKeyManager}).
 *
 * @param cert the certificate chain, leaf first; null: no TLS
 * @param key  its private key (PKCS#8 PEM, or PKCS#1 RSA PEM)
 */
public record TlsFiles(String cert, String key) {

    public static final TlsFiles NONE = new TlsFiles(null, null);

    public boolean on() {
        return cert != null;
    }

    /** The certificate files, in order. */
    public List<String> certs() {
        return split(cert);
    }

    /** The key files, in order: the i-th is the i-th certificate's. */
    public List<String> keys() {
        return split(key);
    }

    private static List<String> split(String list) {
        return java.util.Arrays.stream(list.split(",")).map(String::strip).toList();
    }

    public List<String> toArgs() {
        return on() ? List.of("tls-cert=" + cert, "tls-key=" + key) : List.of();
    }

    public static TlsFiles parse(String[] args) {
        String cert = null;
        String key = null;
        for (String a : args) {
            if (a.startsWith("tls-cert=")) {
                cert = a.substring("tls-cert=".length());
            } else if (a.startsWith("tls-key=")) {
                key = a.substring("tls-key=".length());
            }
        }
        // The launch contract writes an unset setting as "key=": plain HTTP.
        return cert == null || key == null || cert.isEmpty() || key.isEmpty() ? NONE : new TlsFiles(cert, key);
    }
}
