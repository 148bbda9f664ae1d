package m0.server.tls;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;

/**
 * Reads a PEM certificate chain and its private key. JDK 17 has no PEM key reader: the base64
 * is decoded and read as PKCS#8, trying RSA then EC. A PKCS#1 RSA key ("BEGIN RSA PRIVATE KEY",
 * what older openssl writes) is wrapped into PKCS#8 here, which costs a few bytes of DER; an
 * SEC1 EC key or an encrypted one is refused with the openssl command that converts it.
 */
final class PemFiles {

    /** rsaEncryption's AlgorithmIdentifier: SEQUENCE { OID 1.2.840.113549.1.1.1, NULL }. */
    private static final byte[] RSA_ALGORITHM = {0x30, 0x0d, 0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86,
            (byte) 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00};

    private PemFiles() {
    }

    static X509Certificate[] chain(String file) throws TlsSetupException {
        byte[] bytes = read("--tls-cert", file);
        try {
            var certs = CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(bytes));
            if (certs.isEmpty()) {
                throw new TlsSetupException("--tls-cert " + file + ": no PEM certificate in it");
            }
            return certs.toArray(new X509Certificate[0]);
        } catch (CertificateException e) {
            throw new TlsSetupException("--tls-cert " + file + ": not a PEM certificate chain (" + e.getMessage() + ")");
        }
    }

    static PrivateKey key(String file) throws TlsSetupException {
        String text = new String(read("--tls-key", file), StandardCharsets.US_ASCII);
        String convert = "; convert it with: openssl pkcs8 -topk8 -nocrypt -in " + file + " -out key.pem";
        if (text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----") || text.contains("Proc-Type: 4,ENCRYPTED")) {
            throw new TlsSetupException("--tls-key " + file + ": the key is encrypted; m0serve reads an unencrypted key"
                    + convert);
        }
        if (text.contains("-----BEGIN EC PRIVATE KEY-----")) {
            throw new TlsSetupException("--tls-key " + file + ": an SEC1 EC key; m0serve reads PKCS#8" + convert);
        }
        byte[] der;
        boolean pkcs1 = text.contains("-----BEGIN RSA PRIVATE KEY-----");
        try {
            der = base64(text, pkcs1 ? "RSA PRIVATE KEY" : "PRIVATE KEY");
        } catch (IllegalArgumentException e) {
            throw new TlsSetupException("--tls-key " + file + ": no PEM private key in it (" + e.getMessage() + ")");
        }
        if (pkcs1) {
            der = pkcs8(der);
        }
        for (String algorithm : new String[] {"RSA", "EC"}) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException e) {
                // the next algorithm
            }
        }
        throw new TlsSetupException("--tls-key " + file + ": not an RSA or EC private key in PKCS#8");
    }

    /** The key signs what the leaf certificate's public key verifies: they are a pair. */
    static void matches(PrivateKey key, X509Certificate leaf, String keyFile, String certFile) throws TlsSetupException {
        String algorithm = key.getAlgorithm().equals("EC") ? "SHA256withECDSA" : "SHA256withRSA";
        try {
            byte[] probe = "m0serve".getBytes(StandardCharsets.US_ASCII);
            Signature s = Signature.getInstance(algorithm);
            s.initSign(key);
            s.update(probe);
            byte[] signature = s.sign();
            Signature v = Signature.getInstance(algorithm);
            v.initVerify(leaf.getPublicKey());
            v.update(probe);
            if (v.verify(signature)) {
                return;
            }
        } catch (GeneralSecurityException e) {
            // a key of another kind than the certificate's: no match
        }
        throw new TlsSetupException("--tls-key " + keyFile + ": does not match the first certificate in " + certFile);
    }

    private static byte[] read(String flag, String file) throws TlsSetupException {
        try {
            return Files.readAllBytes(Path.of(file));
        } catch (IOException | RuntimeException e) {
            throw new TlsSetupException(flag + " " + file + ": cannot read it (" + e + ")");
        }
    }

    private static byte[] base64(String text, String label) {
        String begin = "-----BEGIN " + label + "-----";
        int from = text.indexOf(begin);
        int to = text.indexOf("-----END " + label + "-----");
        if (from < 0 || to < from) {
            throw new IllegalArgumentException("no " + begin + " ... END block");
        }
        return Base64.getMimeDecoder().decode(text.substring(from + begin.length(), to));
    }

    /** PrivateKeyInfo ::= SEQUENCE { INTEGER 0, rsaEncryption, OCTET STRING pkcs1 }. */
    private static byte[] pkcs8(byte[] pkcs1) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(new byte[] {0x02, 0x01, 0x00});
        body.writeBytes(RSA_ALGORITHM);
        body.write(0x04);
        length(body, pkcs1.length);
        body.writeBytes(pkcs1);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0x30);
        length(out, body.size());
        out.writeBytes(body.toByteArray());
        return out.toByteArray();
    }

    private static void length(ByteArrayOutputStream out, int n) {
        if (n < 0x80) {
            out.write(n);
        } else if (n < 0x100) {
            out.write(0x81);
            out.write(n);
        } else if (n < 0x10000) {
            out.write(0x82);
            out.write(n >> 8);
            out.write(n);
        } else {
            out.write(0x83);
            out.write(n >> 16);
            out.write(n >> 8);
            out.write(n);
        }
    }
}
