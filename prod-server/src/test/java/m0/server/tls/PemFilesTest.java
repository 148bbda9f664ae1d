package m0.server.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The PEM files m0serve takes, and the one line it says about each it does not. */
class PemFilesTest {

    private static TestCertificates rsa;
    private static TestCertificates ec;

    @BeforeAll
    static void make() throws Exception {
        rsa = TestCertificates.make("RSA");
        ec = TestCertificates.make("EC");
    }

    @Test
    void rsaAndEcPkcs8KeysLoadWithTheirChains() throws Exception {
        assertEquals(rsa.privateKey, PemFiles.key(rsa.key.toString()));
        assertEquals(ec.privateKey, PemFiles.key(ec.key.toString()));
        TlsContext c = TlsContext.load(new TlsFiles(ec.cert.toString(), ec.key.toString()));
        assertTrue(c.describe().contains("CN=localhost"), c.describe());
    }

    /** PKCS#1 ("BEGIN RSA PRIVATE KEY", older openssl's) is wrapped into PKCS#8 and reads as the same key. */
    @Test
    void aPkcs1RsaKeyReadsAsTheSameKey() throws Exception {
        byte[] pkcs8 = rsa.privateKey.getEncoded();
        // PrivateKeyInfo: 30 82 LL LL | 02 01 00 | the 15-byte algorithm | 04 82 LL LL | the PKCS#1 key
        assertEquals(0x04, pkcs8[22] & 0xff);
        byte[] pkcs1 = Arrays.copyOfRange(pkcs8, 26, pkcs8.length);
        Path f = rsa.dir.resolve("pkcs1.pem");
        Files.writeString(f, TestCertificates.pem("RSA PRIVATE KEY", pkcs1));
        assertEquals(rsa.privateKey, PemFiles.key(f.toString()));
    }

    @Test
    void aKeyOfAnotherCertificateIsNamedWithBothFiles() throws Exception {
        TlsSetupException e = assertThrows(TlsSetupException.class,
                () -> TlsContext.load(new TlsFiles(rsa.cert.toString(), ec.key.toString())));
        assertEquals("--tls-key " + ec.key + ": does not match the first certificate in " + rsa.cert, e.getMessage());
    }

    @Test
    void anSec1EcKeyIsRefusedWithTheCommandThatConvertsIt() throws Exception {
        Path f = ec.dir.resolve("sec1.pem");
        Files.writeString(f, "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n");
        TlsSetupException e = assertThrows(TlsSetupException.class, () -> PemFiles.key(f.toString()));
        assertEquals("--tls-key " + f + ": an SEC1 EC key; m0serve reads PKCS#8; convert it with: openssl pkcs8 -topk8"
                + " -nocrypt -in " + f + " -out key.pem", e.getMessage());
    }

    @Test
    void aMissingFileAndACertificateThatIsNotOneAreNamed() throws Exception {
        TlsSetupException missing = assertThrows(TlsSetupException.class, () -> PemFiles.chain("/nonexistent/c.pem"));
        assertTrue(missing.getMessage().startsWith("--tls-cert /nonexistent/c.pem: cannot read it"), missing.getMessage());
        TlsSetupException notCert = assertThrows(TlsSetupException.class, () -> PemFiles.chain(rsa.key.toString()));
        assertTrue(notCert.getMessage().startsWith("--tls-cert " + rsa.key + ": "), notCert.getMessage());
    }

    /** The suites offered: TLS 1.3's, and TLS 1.2's with ECDHE and an AEAD only. */
    @Test
    void theSuitesAreModern() {
        assertTrue(TlsContext.modern("TLS_AES_128_GCM_SHA256"));
        assertTrue(TlsContext.modern("TLS_CHACHA20_POLY1305_SHA256"));
        assertTrue(TlsContext.modern("TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"));
        assertTrue(!TlsContext.modern("TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256"));
        assertTrue(!TlsContext.modern("TLS_RSA_WITH_AES_256_GCM_SHA384"));
        assertTrue(!TlsContext.modern("TLS_DHE_RSA_WITH_AES_256_GCM_SHA384"));
    }
}
