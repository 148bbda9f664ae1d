package m0.server.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.security.cert.X509Certificate;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The SNI choice (ADR 0069): a name's own certificate, a wildcard's, else the first; among a
 * name's certificates the one whose key type the JDK asks for, and null (the JDK asks the next
 * type) rather than another name's certificate.
 */
class SniKeyManagerTest {

    private static TestCertificates a;
    private static TestCertificates b;
    private static TestCertificates wild;
    private static SniKeyManager keys;

    @BeforeAll
    static void certificates() throws Exception {
        a = TestCertificates.make("RSA", "a.example");
        b = TestCertificates.make("EC", "b.example");
        wild = TestCertificates.make("RSA", "*.w.example");
        keys = new SniKeyManager(List.of(entry(a), entry(b), entry(wild)));
    }

    private static SniKeyManager.Entry entry(TestCertificates c) {
        return SniKeyManager.entry(new X509Certificate[] {(X509Certificate) c.certificate}, c.privateKey);
    }

    @Test
    void eachNameGetsItsOwnCertificate() {
        assertEquals("0", keys.choose("RSA", "a.example"));
        assertEquals("1", keys.choose("EC", "b.example"));
        assertEquals("1", keys.choose("EC", "B.Example"), "names are case-insensitive");
        assertEquals("2", keys.choose("RSA", "x.w.example"), "a wildcard covers one label");
    }

    @Test
    void noNameOrAnUnknownOneGetsTheFirst() {
        assertEquals("0", keys.choose("RSA", null));
        assertEquals("0", keys.choose("RSA", "nobody.example"));
        assertEquals("0", keys.choose("RSA", "x.y.w.example"), "a wildcard covers one label only");
        assertEquals("0", keys.choose("RSA", "w.example"), "nor the bare domain");
        assertNull(keys.choose("EC", null), "the default is RSA: an EC ask gets nothing, not b's certificate");
    }

    @Test
    void aNamesCertificateOfAnotherKeyTypeIsNullNotTheDefault() {
        assertNull(keys.choose("RSA", "b.example"), "b is EC: the JDK asks again with EC");
        assertNull(keys.choose("EC", "a.example"), "a is RSA");
    }

    @Test
    void theNamesAreTheSubjectAlternativeDnsNames() {
        assertEquals(List.of("a.example"), SniKeyManager.names((X509Certificate) a.certificate));
        assertEquals(List.of("*.w.example"), SniKeyManager.names((X509Certificate) wild.certificate));
        assertEquals(a.certificate, keys.getCertificateChain("0")[0]);
        assertEquals(b.privateKey, keys.getPrivateKey("1"));
        assertNull(keys.getPrivateKey("3"));
    }

    @Test
    void listsPairByPositionAndMustBeAsLong() throws Exception {
        TlsContext two = TlsContext.load(new TlsFiles(a.cert + "," + b.cert, a.key + "," + b.key));
        assertEquals("TLS (TLSv1.3, TLSv1.2; 9 suites; ALPN http/1.1) for CN=a.example | CN=b.example "
                + "(by SNI; the first by default)", two.describe());
        TlsSetupException uneven = org.junit.jupiter.api.Assertions.assertThrows(TlsSetupException.class,
                () -> TlsContext.load(new TlsFiles(a.cert + "," + b.cert, a.key.toString())));
        assertEquals("--tls-cert names 2 file(s) and --tls-key 1: they pair by position, one key per certificate",
                uneven.getMessage());
        TlsSetupException swapped = org.junit.jupiter.api.Assertions.assertThrows(TlsSetupException.class,
                () -> TlsContext.load(new TlsFiles(a.cert + "," + b.cert, b.key + "," + a.key)));
        assertEquals("--tls-key " + b.key + ": does not match the first certificate in " + a.cert, swapped.getMessage());
    }
}
