package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import m0.core.Page;
import m0.core.PageLayout;
import m0.server.share.SharedPage;
import m0.server.tls.TestCertificates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A request that arrives in the same read as the end of its connection's handshake runs the app
 * inline in that read: the worker's line must show the pass as a view while the handler runs
 * (ADR 0069, addendum), as for any other request, or a sibling's pick under share would hand
 * connections to a worker stuck in a slow handler. The handshake itself stamps nothing.
 */
final class TlsViewIntegrationTest {

    @Test
    @Timeout(120)
    void aRequestInTheHandshakesLastReadIsAViewWhileItsHandlerRuns() throws Exception {
        TestCertificates rsa = TestCertificates.make("RSA");
        Path flag = Files.createTempDirectory("m0-tls-view-").resolve("release");
        try (ServerProcess s = ServerProcess.start("--workers", "2", "--app", HeldApp.class.getName(),
                "--tls-cert", rsa.cert.toString(), "--tls-key", rsa.key.toString())) {
            PageWatch.of(s).awaitReady(60_000);
            Page page = SharedPage.attach(s.pid()).page();
            try (TlsEngineClient c = TlsEngineClient.openAsking(rsa.clientContext(), s.port, 60_000, "/held?until=" + flag)) {
                CompletableFuture<String> answer = CompletableFuture.supplyAsync(() -> {
                    try {
                        return c.readAnswer();
                    } catch (IOException e) {
                        return "failed: " + e;
                    }
                });
                boolean seen = false;
                try {
                    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    while (!seen && System.nanoTime() - until < 0) {
                        seen = PageLayout.inPass(page.getVolatile(PageLayout.stateWord(0)))
                                || PageLayout.inPass(page.getVolatile(PageLayout.stateWord(1)));
                        Thread.sleep(2); // polling the page while the handler is held, bounded
                    }
                } finally {
                    Files.createFile(flag); // the handler ends only now
                }
                assertEquals("released", answer.get(60, TimeUnit.SECONDS));
                assertTrue(seen, "the serving worker's line showed a view while its handler was held");
            }
        }
    }
}
