package m0.server.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import m0.server.http.App;
import m0.server.http.HttpConfig;
import m0.server.http.Response;
import m0.server.jnr.Epoll;
import m0.server.jnr.EventFd;
import m0.server.jnr.Fds;
import m0.server.jnr.Sockets;
import m0.server.log.RateLimitedLog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Timeout;

/**
 * ADR 0052: under share an admission (an accept or a receipt) no longer stamps the pass, so one
 * that runs the app inline (--dev-eager-read on) must: a slow view there is what siblings' picks skip.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
final class EagerReadWorkTest {

    private static final App APP = request -> Response.text(200, "ok");

    private final Epoll epoll = EventLoop.epoll();
    private final EventFd wake = new EventFd();
    private final Socket client = new Socket();
    private int listener = -1;
    private ConnectionIo io;
    private Connection admitted;

    @BeforeEach
    void listen() throws IOException {
        listener = Sockets.listenTcp(InetAddress.getLoopbackAddress(), 0, 4);
    }

    @AfterEach
    void close() throws IOException {
        if (admitted != null) {
            io.close(admitted);
        }
        client.close();
        if (listener >= 0) {
            Fds.close(listener);
        }
        epoll.close();
        wake.close();
    }

    @ParameterizedTest(name = "eager read {0}, received {1}")
    @CsvSource({"true,false", "true,true", "false,false", "false,true"})
    void anAdmissionThatReadsAtOnceIsWorkTheLoopStamps(boolean eagerRead, boolean received) throws IOException {
        int[] works = {0};
        RateLimitedLog failures = new RateLimitedLog(new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8), "EagerReadWorkTest: ");
        io = new ConnectionIo(epoll, new ConnectionTable(), HttpConfig.defaults(), APP, null, wake, failures,
                () -> works[0]++, eagerRead, false, null);
        Loopback server = Loopback.connect(client, listener);
        admitted = io.admit(server.fd(), server.peer(), received, System.nanoTime());
        assertNotNull(admitted, "admitted");
        assertEquals(eagerRead ? 1 : 0, works[0], "work before the app may run inline, and only then");
    }
}
