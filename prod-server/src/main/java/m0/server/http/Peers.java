package m0.server.http;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** A raw sockaddr as the accept gives it (AF_INET: port@2 addr@4; AF_INET6: port@2 addr@8). */
public final class Peers {
    private Peers() {
    }

    /** The address, or null when unknown or of another family. */
    public static InetSocketAddress address(byte[] sockaddr) {
        if (sockaddr == null || sockaddr.length < 8) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(sockaddr);
        int family = b.order(ByteOrder.nativeOrder()).getShort(0);
        int port = b.order(ByteOrder.BIG_ENDIAN).getShort(2) & 0xffff;
        try {
            if (family == 2) {
                return new InetSocketAddress(InetAddress.getByAddress(java.util.Arrays.copyOfRange(sockaddr, 4, 8)), port);
            }
            if (family == 10 && sockaddr.length >= 24) {
                return new InetSocketAddress(InetAddress.getByAddress(java.util.Arrays.copyOfRange(sockaddr, 8, 24)), port);
            }
        } catch (UnknownHostException e) {
            // only for a wrong length, excluded above
        }
        return null;
    }
}
