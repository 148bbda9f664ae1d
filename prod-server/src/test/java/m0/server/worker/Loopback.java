package m0.server.worker;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import m0.server.jnr.Acceptor;
import m0.server.jnr.Sockets;

/** The server's side of a {@code client} connected to {@code listener} on loopback: its descriptor and peer. */
record Loopback(int fd, byte[] peer) {

    /** Connects {@code client} and accepts it, within 5 s each. */
    static Loopback connect(Socket client, int listener) throws IOException {
        client.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), Sockets.localPort(listener)), 5_000);
        Acceptor acceptor = new Acceptor(listener);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        int fd;
        while ((fd = acceptor.accept()) < 0) {
            assertTrue(System.nanoTime() - deadline < 0, "the connection was not accepted");
            Thread.onSpinWait(); // the handshake is the kernel's, microseconds away
        }
        return new Loopback(fd, acceptor.lastPeer());
    }
}
