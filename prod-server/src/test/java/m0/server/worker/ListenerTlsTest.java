package m0.server.worker;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import m0.server.tls.EngineSource;
import m0.server.tls.TestCertificates;
import m0.server.tls.TlsContext;
import m0.server.tls.TlsFiles;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A certificate the JDK took at the supervisor's check but BoringSSL refuses (or BoringSSL's
 * classes that fail to link) makes one worker's fallback line and the JDK's engines, not exit 78
 * in every worker (ADR 0073, addendum). BoringSSL is a stand-in that refuses.
 */
final class ListenerTlsTest {

    private static TlsFiles files;
    private static Path garbage;

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeAll
    static void certificates() throws Exception {
        TestCertificates rsa = TestCertificates.make("RSA");
        files = TlsFiles.parse(new String[] {"tls-cert=" + rsa.cert, "tls-key=" + rsa.key});
        garbage = Files.writeString(rsa.dir.resolve("garbage.pem"), "not a PEM file\n");
    }

    /** A genuine TlsSetupException (its constructor is the tls package's): the JDK's about a garbage file. */
    private static EngineSource refusing(TlsFiles f, Optional<?> tickets) throws m0.server.tls.TlsSetupException {
        return TlsContext.load(TlsFiles.parse(new String[] {"tls-cert=" + garbage, "tls-key=" + garbage}));
    }

    private String line() {
        return err.toString(StandardCharsets.UTF_8);
    }

    private EngineSource choose(ListenerTls.BoringLoader boring, boolean ticketKeyGiven) throws Exception {
        return ListenerTls.boringOrJdk(files, Optional.empty(), "worker 0", ticketKeyGiven, boring,
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void aCertificateBoringSslRefusesIsServedByTheJdksEngineWithOneLine() throws Exception {
        EngineSource engines = choose(ListenerTlsTest::refusing, false);

        assertInstanceOf(TlsContext.class, engines);
        assertTrue(line().startsWith("worker 0: TLS on the JDK's SSLEngine (BoringSSL could not load --tls-cert/--tls-key:"
                + " m0.server.tls.TlsSetupException: "), line());
        assertTrue(line().contains(garbage.toString()), "the cause names its file: " + line());
        assertFalse(line().contains("--tls-ticket-key"), line());
    }

    @Test
    void aBoringSslThatFailsToLinkFallsBackToo() throws Exception {
        EngineSource engines = choose((f, t) -> {
            throw new UnsatisfiedLinkError("no netty_tcnative in java.library.path");
        }, false);

        assertInstanceOf(TlsContext.class, engines);
        assertTrue(line().contains("(BoringSSL could not load --tls-cert/--tls-key: java.lang.UnsatisfiedLinkError:"
                + " no netty_tcnative in java.library.path)"), line());
    }

    @Test
    void aTicketKeyTheJdksEngineCannotApplyIsSaidInTheFallbackLine() throws Exception {
        choose(ListenerTlsTest::refusing, true);

        assertTrue(line().strip().endsWith("; --tls-ticket-key is not applied: the JDK's engine has no ticket-key API"),
                line());
    }
}
