package m0.server.jnr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import m0.core.Page;
import m0.core.PageLayout;
import m0.server.share.Accepted;
import m0.server.share.SharedPage;
import m0.server.share.SocketChannels;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The JNR layer against the real kernel: layouts, descriptors, errors, processes. */
@Timeout(30)
class JnrLayerTest {

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    @Test
    void epollEventIsPackedTwelveBytesAndDataRoundTrips() {
        try (Epoll epoll = new Epoll(4); EventFd a = new EventFd(); EventFd b = new EventFd()) {
            long dataA = 0x1122334455667788L;
            long dataB = 0x0102030405060708L;
            epoll.add(a.fd(), Epoll.IN, dataA);
            epoll.add(b.fd(), Epoll.IN, dataB);
            a.signal();
            b.signal();
            assertEquals(2, epoll.await(1000));
            // With a 16-byte layout the second event's data would read shifted garbage.
            Set<Long> seen = Set.of(epoll.data(0), epoll.data(1));
            assertEquals(Set.of(dataA, dataB), seen);
            assertEquals(Epoll.IN, epoll.events(0) & Epoll.IN);
            a.drain();
            b.drain();
            assertEquals(0, epoll.await(0), "drained eventfds are not readable");
        }
    }

    @Test
    void errorsNameTheCallAndTheErrno() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(LOOPBACK, 0));
            int port = taken.getLocalPort();
            NativeException e = assertThrows(NativeException.class, () -> Sockets.listenTcp(LOOPBACK, port, 16));
            assertEquals(Native.EADDRINUSE, e.errno());
            assertEquals("bind(127.0.0.1:" + port + ")", e.call());
            assertTrue(e.getMessage().contains("EADDRINUSE") && e.getMessage().contains("Address already in use"),
                    e.getMessage());
        }
    }

    @Test
    void listenerAcceptsNonBlockingAndReportsItsPort() throws Exception {
        int listener = Sockets.listenTcp(LOOPBACK, 0, 16);
        try {
            int port = Sockets.localPort(listener);
            assertTrue(port > 0);
            Acceptor acceptor = new Acceptor(listener);
            assertEquals(-1, acceptor.accept(), "EAGAIN on an empty backlog: non-blocking");
            try (Socket client = new Socket(LOOPBACK, port)) {
                int fd = acceptWithin(acceptor, 5_000);
                try {
                    byte[] peer = acceptor.lastPeer();
                    assertEquals(16, peer.length, "sockaddr_in");
                    assertEquals(client.getLocalPort(), ((peer[2] & 0xff) << 8) | (peer[3] & 0xff));
                    Sockets.setNoDelay(fd);
                    Memory m = new Memory(64);
                    m.buffer().put(0, "pong".getBytes(StandardCharsets.US_ASCII));
                    IoVecs iov = new IoVecs(2);
                    iov.add(m.address(), 2);
                    iov.add(m.address(2), 2);
                    assertEquals(4, iov.writeTo(fd));
                    assertEquals("pong", new String(client.getInputStream().readNBytes(4), StandardCharsets.US_ASCII));
                    assertEquals(-1, Fds.read(fd, m.address(), 64), "nothing to read: EAGAIN");
                    client.getOutputStream().write('x');
                    assertEquals(1, readWithin(fd, m, 5_000));
                    client.shutdownOutput();
                    assertEquals(0, readWithin(fd, m, 5_000), "EOF");
                } finally {
                    Fds.close(fd);
                }
            }
        } finally {
            Fds.close(listener);
        }
    }

    @Test
    void aConnectionPassedOverTheChannelStaysOpenAfterTheSenderClosesItsCopy() throws Exception {
        int[] pair = Sockets.datagramPair(SocketChannels.BUFFER_BYTES);
        int listener = Sockets.listenTcp(LOOPBACK, 0, 16);
        try (Socket client = new Socket(LOOPBACK, Sockets.localPort(listener))) {
            assertEquals(131072, Sockets.sendBufferSize(pair[0]), "64 KiB reads back doubled");
            Acceptor acceptor = new Acceptor(listener);
            int fd = acceptWithin(acceptor, 5_000);
            byte[] peer = acceptor.lastPeer();
            SocketChannels channels = new SocketChannels(new int[] {pair[0]}, new int[] {pair[1]});
            assertNull(channels.receive(0), "empty channel: null at EAGAIN");
            assertTrue(channels.send(0, new Accepted(fd, peer)));
            Accepted got = channels.receive(0);
            assertNotNull(got);
            assertArrayEquals(peer, got.peer(), "peer address travels in the payload");
            Memory m = new Memory(16);
            m.buffer().put(0, (byte) 'k');
            assertEquals(1, Fds.write(got.fd(), m.address(), 1));
            InputStream in = client.getInputStream();
            assertEquals('k', in.read());
            Fds.close(got.fd());
            assertEquals(-1, in.read(), "closing the last copy closes the connection");
        } finally {
            Fds.close(listener);
            Fds.close(pair[0]);
            Fds.close(pair[1]);
        }
    }

    @Test
    void aFullChannelRefusesAndTheSenderKeepsTheDescriptor() throws Exception {
        int[] pair = Sockets.datagramPair(SocketChannels.BUFFER_BYTES);
        FdPassing passing = new FdPassing();
        EventFd subject = new EventFd();
        try {
            int queued = 0;
            while (queued < 10_000 && passing.send(pair[0], subject.fd(), new byte[16])) {
                queued++;
            }
            assertTrue(queued > 50 && queued < 10_000, "refused once full, after " + queued);
            Fds.setNonBlocking(subject.fd()); // still ours: usable after the refusal
            int received = 0;
            FdPassing.Received r;
            while ((r = passing.receive(pair[1])) != null) {
                Fds.close(r.fd());
                received++;
            }
            assertEquals(queued, received);
            assertEquals(0, passing.truncated());
        } finally {
            subject.close();
            Fds.close(pair[0]);
            Fds.close(pair[1]);
        }
    }

    @Test
    void sendingToAChannelWithNoReaderIsRefusedNotFatal() {
        int[] pair = Sockets.datagramPair(SocketChannels.BUFFER_BYTES);
        Fds.close(pair[1]);
        try (EventFd subject = new EventFd()) {
            assertFalse(new FdPassing().send(pair[0], subject.fd(), new byte[4]), "ECONNREFUSED, no SIGPIPE");
        } finally {
            Fds.close(pair[0]);
        }
    }

    @Test
    void anUnexpectedSendErrnoIsARefusalNotAnEscape() {
        try (EventFd notASocket = new EventFd(); EventFd subject = new EventFd()) {
            FdPassing passing = new FdPassing();
            assertFalse(passing.send(notASocket.fd(), subject.fd(), new byte[4]), "ENOTSOCK: refused, not thrown");
            assertEquals(88, passing.lastErrno(), "ENOTSOCK");
            Fds.setNonBlocking(subject.fd()); // still ours
        }
    }

    @Test
    void aDatagramWithoutADescriptorIsAReceiptTheCoreCountsAsLost() {
        int[] pair = Sockets.datagramPair(SocketChannels.BUFFER_BYTES);
        try {
            Memory m = new Memory(8);
            assertEquals(4, Fds.write(pair[0], m.address(), 4)); // a datagram, no SCM_RIGHTS
            SocketChannels channels = new SocketChannels(new int[] {pair[0]}, new int[] {pair[1]});
            m0.server.share.Accepted got = channels.receive(0);
            assertTrue(got != null && channels.lost(got), "reported, not skipped: " + got);
            assertNull(channels.receive(0), "then EAGAIN");
        } finally {
            Fds.close(pair[0]);
            Fds.close(pair[1]);
        }
    }

    @Test
    void theSharedPageIsOneMemoryThroughTwoMappings() {
        SharedPage a = SharedPage.create(4);
        SharedPage b = SharedPage.adopt(a.fd(), 4);
        Page pa = a.page();
        Page pb = b.page();
        assertEquals(PageLayout.slots(4), pa.words());
        assertEquals(PageLayout.NOT_STARTED, pb.getVolatile(PageLayout.stateWord(3)), "a fresh page is zero");
        pa.setVolatile(PageLayout.countsWord(2), 41);
        assertEquals(41, pb.getAndAdd(PageLayout.countsWord(2), 1));
        assertEquals(42, pa.getVolatile(PageLayout.countsWord(2)));
        Fds.close(a.fd());
    }

    /**
     * Both ways of closing the rest (docs/adr/0060): addclosefrom_np (glibc 2.34) and the bounded
     * addclose list. This test JVM holds descriptors that are not close-on-exec (its jars): either
     * way must keep them from the child.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "closefrom_np {0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {true, false})
    void aSpawnedChildHasExactlyTheInheritedDescriptors(boolean closefrom) throws Exception {
        int[] pair = Sockets.datagramPair(4096);
        int memfd = Fds.memfd("m0-test");
        int low = Fds.dupAtLeast(pair[1], 3); // a close-on-exec copy: dup2 makes the child's inheritable
        int pid = Spawn.spawn(List.of("sleep", "30"), List.of("PATH=/usr/bin:/bin"), new int[] {memfd, low},
                closefrom);
        int pidfd = Processes.pidfdOpen(pid);
        try {
            // Right after exec the dynamic loader may still hold ld.so.cache or a library open (as
            // fd 5, briefly); a leaked descriptor never goes away. Bounded poll.
            Set<String> expected = new TreeSet<>(Set.of("0", "1", "2", "3", "4"));
            Set<String> fds = new TreeSet<>();
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
            do {
                fds.clear();
                try (var list = Files.list(Path.of("/proc/" + pid + "/fd"))) {
                    list.forEach(p -> fds.add(p.getFileName().toString()));
                }
                if (fds.equals(expected)) {
                    break;
                }
                Thread.sleep(5); // polling a condition, bounded by the deadline
            } while (System.nanoTime() < deadline);
            assertEquals(expected, fds, "exactly stdio and the two passed");
            assertTrue(Files.readSymbolicLink(Path.of("/proc/" + pid + "/fd/3")).toString().contains("memfd:m0-test"));
            assertTrue(Files.readSymbolicLink(Path.of("/proc/" + pid + "/fd/4")).toString().startsWith("socket:"));
            assertTrue(Processes.kill(pid, Processes.SIGTERM));
            try (Epoll epoll = new Epoll(1)) {
                epoll.add(pidfd, Epoll.IN, 7);
                assertEquals(1, epoll.await(10_000), "the pidfd turns readable at exit");
                assertEquals(7, epoll.data(0));
            }
            Processes.WaitStatus st = Processes.poll(pid);
            assertNotNull(st);
            assertTrue(st.signaled(), st.toString());
            assertEquals(Processes.SIGTERM, st.termSignal(), "default disposition in the child");
        } finally {
            Processes.kill(pid, Processes.SIGKILL);
            Fds.close(pidfd);
            Fds.close(pair[0]);
            Fds.close(pair[1]);
            Fds.close(low);
            Fds.close(memfd);
        }
    }

    @Test
    void waitpidDecodesAKillAndKillReportsAGonePid() throws Exception {
        int pid = Spawn.spawn(List.of("sleep", "30"), List.of("PATH=/usr/bin:/bin"), new int[0]);
        int pidfd = Processes.pidfdOpen(pid);
        try (Epoll epoll = new Epoll(1)) {
            epoll.add(pidfd, Epoll.IN, 1);
            assertNull(Processes.poll(pid), "running: nothing to report");
            assertTrue(Processes.kill(pid, Processes.SIGKILL));
            assertEquals(1, epoll.await(10_000));
            Processes.WaitStatus st = Processes.poll(pid);
            assertTrue(st.signaled(), st.toString());
            assertEquals(Processes.SIGKILL, st.termSignal());
            assertFalse(Processes.kill(pid, 0), "reaped: gone");
        } finally {
            Fds.close(pidfd);
        }
        assertThrows(IllegalArgumentException.class, () -> Processes.poll(-1), "never waitpid(-1)");
    }

    private static int acceptWithin(Acceptor acceptor, long millis) throws InterruptedException {
        try (Epoll epoll = new Epoll(1)) {
            epoll.add(acceptor.listener(), Epoll.IN, 0);
            assertEquals(1, epoll.await((int) millis), "a connection to accept");
        }
        int fd = acceptor.accept();
        assertTrue(fd >= 0);
        return fd;
    }

    private static int readWithin(int fd, Memory m, long millis) {
        try (Epoll epoll = new Epoll(1)) {
            epoll.add(fd, Epoll.IN, 0);
            assertEquals(1, epoll.await((int) millis), "readable");
        }
        return Fds.read(fd, m.address(), m.size());
    }
}
