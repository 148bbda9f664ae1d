package m0.server.supervisor;

import java.util.concurrent.atomic.AtomicInteger;
import m0.server.jnr.EventFd;
import m0.server.share.Signals;

/**
 * What signals ask of the supervisor. A handler runs on a thread of its own, so it only sets a
 * flag (or counts, for SIGTTIN / SIGTTOU) and wakes the loop, which takes the request on its
 * own thread; signals that come together merge, as they do in the kernel.
 */
final class SignalRequests {

    private final EventFd wake;
    private volatile boolean stop;
    /** SIGTERMs and SIGINTs so far: a second one ends --drain-delay-ms early. */
    private final AtomicInteger stops = new AtomicInteger();
    /** The first stop signal's name, for the stop lines; set before {@link #stop}. */
    private volatile String stopSignal;
    private volatile boolean reload;
    private volatile boolean reopen;
    /** SIGTTINs less SIGTTOUs not yet taken. */
    private final AtomicInteger scale = new AtomicInteger();

    SignalRequests(EventFd wake) {
        this.wake = wake;
    }

    void install() {
        Signals.onSignal("TERM", () -> requestStop("SIGTERM"));
        Signals.onSignal("INT", () -> requestStop("SIGINT"));
        Signals.onSignal("HUP", () -> {
            reload = true;
            wake.signal();
        });
        Signals.onSignal("TTIN", () -> {
            scale.incrementAndGet();
            wake.signal();
        });
        Signals.onSignal("TTOU", () -> {
            scale.decrementAndGet();
            wake.signal();
        });
        Signals.onSignal("USR1", () -> { // logrotate's convention: forwarded, each worker reopens its log
            reopen = true;
            wake.signal();
        });
    }

    private void requestStop(String signal) {
        if (stopSignal == null) {
            stopSignal = signal; // signals merge: the first one names the stop
        }
        stop = true;
        stops.incrementAndGet();
        wake.signal();
    }

    /** SIGTERM or SIGINT came (it stays asked). */
    boolean stopRequested() {
        return stop;
    }

    /** Stop signals received so far (0 before the first). */
    int stopSignals() {
        return stops.get();
    }

    /** The signal that asked the stop ("SIGTERM", "SIGINT"), once {@link #stopRequested}. */
    String stopSignal() {
        return stopSignal;
    }

    boolean takeReload() {
        if (!reload) {
            return false;
        }
        reload = false;
        return true;
    }

    int takeScale() {
        return scale.getAndSet(0);
    }

    boolean takeReopen() {
        if (!reopen) {
            return false;
        }
        reopen = false;
        return true;
    }
}
