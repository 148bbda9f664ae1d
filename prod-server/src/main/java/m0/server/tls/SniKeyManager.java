package m0.server.tls;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;
import javax.net.ssl.StandardConstants;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * The listener's certificates, chosen by the client's SNI host name (ADR 0069), as nginx picks
 * a server block: a name a certificate has exactly (its DNS subject alternative names, or its
 * CN when it has none), else one its wildcard ({@code *.example.com}: one label) covers, else the
 * first certificate, the default for a client without SNI or with a name none has. Among the
 * certificates a name picks, the first whose key fits the key type the JDK asks for (it asks
 * per signature scheme the client offers, e.g. "EC" before "RSA"); none: null, so the JDK asks
 * the next type. Aliases are the certificates' positions.
 */
final class SniKeyManager extends X509ExtendedKeyManager {

    /** One {@code --tls-cert}/{@code --tls-key} pair and the host names its leaf is for (lower case). */
    record Entry(X509Certificate[] chain, PrivateKey key, List<String> names) {
    }

    private final List<Entry> entries;

    SniKeyManager(List<Entry> entries) {
        if (entries.isEmpty()) {
            throw new IllegalArgumentException("no certificate");
        }
        this.entries = List.copyOf(entries);
    }

    static Entry entry(X509Certificate[] chain, PrivateKey key) {
        return new Entry(chain, key, names(chain[0]));
    }

    /** The leaf's DNS subject alternative names, or its CN when it has none; lower case. */
    static List<String> names(X509Certificate leaf) {
        List<String> names = new ArrayList<>();
        try {
            Collection<List<?>> alt = leaf.getSubjectAlternativeNames();
            if (alt != null) {
                for (List<?> n : alt) {
                    if (Integer.valueOf(2).equals(n.get(0))) { // dNSName
                        names.add(n.get(1).toString().toLowerCase(Locale.ROOT));
                    }
                }
            }
        } catch (CertificateParsingException e) {
            // unreadable extension: fall back to the CN, as for a certificate without one
        }
        if (names.isEmpty()) {
            for (String rdn : leaf.getSubjectX500Principal().getName().split(",")) {
                if (rdn.startsWith("CN=")) {
                    names.add(rdn.substring(3).toLowerCase(Locale.ROOT));
                }
            }
        }
        return names;
    }

    /**
     * The alias for a handshake asking {@code keyType} from a client that named {@code host}
     * (null: no SNI), or null.
     */
    String choose(String keyType, String host) {
        if (host != null) {
            String h = host.toLowerCase(Locale.ROOT);
            boolean named = false;
            for (boolean wildcard : new boolean[] {false, true}) {
                for (int i = 0; i < entries.size(); i++) {
                    if (covers(entries.get(i).names(), h, wildcard)) {
                        named = true;
                        if (fits(i, keyType)) {
                            return alias(i);
                        }
                    }
                }
            }
            if (named) {
                return null; // the name's certificates have another key type: the JDK asks the next
            }
        }
        return fits(0, keyType) ? alias(0) : null;
    }

    private static boolean covers(List<String> names, String host, boolean wildcard) {
        for (String n : names) {
            if (!wildcard && n.equals(host)) {
                return true;
            }
            if (wildcard && n.startsWith("*.")) {
                int dot = host.indexOf('.');
                if (dot > 0 && host.substring(dot).equals(n.substring(1))) {
                    return true;
                }
            }
        }
        return false;
    }

    private boolean fits(int i, String keyType) {
        return entries.get(i).key().getAlgorithm().equalsIgnoreCase(keyType);
    }

    private static String alias(int i) {
        return Integer.toString(i);
    }

    /** The SNI host name the client's hello named, or null. */
    static String requestedHost(SSLSession handshake) {
        if (handshake instanceof ExtendedSSLSession e) {
            for (SNIServerName n : e.getRequestedServerNames()) {
                if (n.getType() == StandardConstants.SNI_HOST_NAME) {
                    return n instanceof SNIHostName h ? h.getAsciiName() : new SNIHostName(n.getEncoded()).getAsciiName();
                }
            }
        }
        return null;
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
        return choose(keyType, engine == null ? null : requestedHost(engine.getHandshakeSession()));
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        return choose(keyType, null); // m0serve's connections are engines; a socket gets the default
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        List<String> fit = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            if (fits(i, keyType)) {
                fit.add(alias(i));
            }
        }
        return fit.isEmpty() ? null : fit.toArray(String[]::new);
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        Entry e = at(alias);
        return e == null ? null : e.chain().clone();
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        Entry e = at(alias);
        return e == null ? null : e.key();
    }

    private Entry at(String alias) {
        try {
            int i = Integer.parseInt(alias);
            return i >= 0 && i < entries.size() ? entries.get(i) : null;
        } catch (NumberFormatException | NullPointerException e) {
            return null;
        }
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
        return null; // a server's
    }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
        return null;
    }
}
