package m0.server.worker;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import m0.server.http.Request;
import m0.server.http.ResponseObserver;
import m0.server.launch.WorkerOperations;
import m0.server.log.RateLimitedLog;
import m0.server.stats.RequestStats;

/**
 * What a worker records per request when the operator asked for it (docs/adr/0017): the
 * counters the supervisor's metrics read, and the access log. Absent (null in the loop) when
 * neither is on, so the default loop pays nothing. Loop thread only, but for {@link #requestReopen}
 * and {@link #writerBytesOut}.
 */
final class RequestRecorder {

    private final RequestStats stats;
    private final AccessLog log;
    /** Bytes out written by writers' threads ({@link DirectWrites}), folded into the stats at a pass's end. */
    private final java.util.concurrent.atomic.AtomicLong writersOut = new java.util.concurrent.atomic.AtomicLong();

    private RequestRecorder(RequestStats stats, AccessLog log) {
        this.stats = stats;
        this.log = log;
    }

    /** Null when nothing is to be recorded. */
    static RequestRecorder create(WorkerOperations ops, int index, RateLimitedLog failures) throws IOException {
        if (!ops.recording()) {
            return null;
        }
        return new RequestRecorder(ops.metrics() ? RequestStats.create() : null,
                ops.accessLog() != null ? new AccessLog(ops.accessLog(), index, failures) : null);
    }

    /** The observer for one connection from {@code peer} (a raw sockaddr, or null when unknown). */
    ResponseObserver observer(byte[] peer) {
        String from = peerHost(peer);
        return (request, status, bodyBytes, startNanos, cut) -> responded(from, request, status, bodyBytes, startNanos,
                cut);
    }

    private void responded(String peer, Request request, int status, long bodyBytes, long startNanos, boolean cut) {
        long micros = Math.max(0, (System.nanoTime() - startNanos) / 1000);
        if (stats != null) {
            stats.responded(status, micros);
        }
        if (log != null) {
            log.log(peer, request, status, bodyBytes, micros, System.currentTimeMillis(), cut);
        }
    }

    void bytesIn(int n) {
        if (stats != null) {
            stats.bytesIn(n);
        }
    }

    void bytesOut(int n) {
        if (stats != null) {
            stats.bytesOut(n);
        }
    }

    /** Bytes out written from a writer's thread (any thread): counted at the loop's next pass end. */
    void writerBytesOut(int n) {
        if (stats != null) {
            writersOut.addAndGet(n);
        }
    }

    /** End of a loop pass: counters to shared memory, the log's batch to its file. */
    void endOfPass() {
        if (stats != null) {
            long w = writersOut.getAndSet(0);
            if (w > 0) {
                stats.bytesOut(w);
            }
            stats.publish();
        }
        if (log != null) {
            log.flush();
        }
    }

    /** SIGUSR1 (forwarded by the supervisor), from the signal thread. */
    void requestReopen() {
        if (log != null) {
            log.requestReopen();
        }
    }

    void close() {
        endOfPass();
        if (log != null) {
            log.close();
        }
    }

    /** The host of a raw sockaddr (AF_INET: addr@4, AF_INET6: addr@8), "-" when unknown. */
    static String peerHost(byte[] peer) {
        if (peer == null || peer.length < 8) {
            return "-";
        }
        int family = ByteBuffer.wrap(peer).order(ByteOrder.nativeOrder()).getShort(0);
        try {
            if (family == 2) {
                return InetAddress.getByAddress(java.util.Arrays.copyOfRange(peer, 4, 8)).getHostAddress();
            }
            if (family == 10 && peer.length >= 24) {
                return InetAddress.getByAddress(java.util.Arrays.copyOfRange(peer, 8, 24)).getHostAddress();
            }
        } catch (UnknownHostException e) {
            // only for a wrong length, excluded above
        }
        return "-";
    }
}
