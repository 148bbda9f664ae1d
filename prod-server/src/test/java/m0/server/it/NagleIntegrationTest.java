package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Library;
import com.kenai.jffi.Type;
import m0.server.jnr.Fds;
import m0.server.jnr.Processes;
import m0.server.jnr.Sockets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Nagle goes off before a connection's second write, not at its accept (Connection#writes):
 * read from the worker's own socket, duplicated into this JVM with pidfd_getfd (the worker is
 * our descendant, so ptrace access is allowed), after the first answer and after the second.
 */
@Timeout(60)
class NagleIntegrationTest {

    /** pidfd_getfd(2): three arguments, which the server's libc binding (two) does not have. */
    private static final long SYS_PIDFD_GETFD = 438;
    private static final Library C = Library.getCachedInstance("libc.so.6", Library.LAZY | Library.LOCAL);
    private static final CallContext SYSCALL = CallContext.getCallContext(Type.SINT64,
            new Type[] {Type.SINT64, Type.SINT64, Type.SINT64, Type.SINT64}, CallingConvention.DEFAULT, true);

    private static ServerProcess server;

    @BeforeAll
    static void start() throws Exception {
        server = ServerProcess.start("--workers", "1");
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void nagleIsOnAfterTheFirstAnswerAndOffBeforeTheSecond() throws Exception {
        try (Http http = new Http(server.port)) {
            http.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
            assertEquals(200, http.read().status());
            assertEquals(0, noDelay(http), "one answer, one write: no setsockopt yet");
            http.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
            assertEquals(200, http.read().status());
            assertEquals(1, noDelay(http), "TCP_NODELAY before the second write");
        }
    }

    /** TCP_NODELAY on the worker's end of {@code http}'s connection. */
    private static int noDelay(Http http) throws IOException {
        long worker = server.workerPid(0);
        assertTrue(worker > 0, "worker 0 is running");
        int fd = workerFd(worker, inode(http.socket.getLocalPort()));
        int pidfd = Processes.pidfdOpen((int) worker);
        int local = (int) Invoker.getInstance().invokeL4(SYSCALL, C.getSymbolAddress("syscall"), SYS_PIDFD_GETFD,
                pidfd, fd, 0);
        Fds.close(pidfd);
        assertTrue(local >= 0, "pidfd_getfd(" + worker + ", " + fd + ")");
        try {
            return Sockets.noDelay(local) ? 1 : 0;
        } finally {
            Fds.close(local);
        }
    }

    /** The inode of the server's socket whose peer is 127.0.0.1:{@code clientPort} (/proc/net/tcp). */
    private static long inode(int clientPort) throws IOException {
        String peer = String.format(Locale.ROOT, "0100007F:%04X", clientPort);
        List<String> lines = Files.readAllLines(Path.of("/proc/net/tcp"));
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.trim().split("\\s+");
            if (f[2].equals(peer) && f[1].equals(String.format(Locale.ROOT, "0100007F:%04X", server.port))) {
                return Long.parseLong(f[9]);
            }
        }
        throw new AssertionError("no server socket with peer port " + clientPort + " in /proc/net/tcp");
    }

    /** The descriptor number under which {@code pid} holds socket {@code inode}. */
    private static int workerFd(long pid, long inode) throws IOException {
        String target = "socket:[" + inode + "]";
        try (var fds = Files.list(Path.of("/proc/" + pid + "/fd"))) {
            for (Path p : (Iterable<Path>) fds::iterator) {
                try {
                    if (Files.readSymbolicLink(p).toString().equals(target)) {
                        return Integer.parseInt(p.getFileName().toString());
                    }
                } catch (IOException gone) {
                    // closed while we listed
                }
            }
        }
        throw new AssertionError("worker " + pid + " holds no " + target);
    }
}
