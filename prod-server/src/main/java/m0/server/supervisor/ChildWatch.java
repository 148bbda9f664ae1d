package m0.server.supervisor;

import m0.server.jnr.Epoll;
import m0.server.jnr.EventFd;
import m0.server.jnr.Fds;
import m0.server.jnr.Processes;
import m0.server.share.Signals;

/**
 * How the supervisor learns that a worker exited. With pidfds (Linux 5.3): each worker's pidfd
 * in the epoll set, its data the worker's index, readable once the worker exits. Without
 * ({@code NativePaths}, docs/adr/0060): SIGCHLD wakes the loop and the loop looks at every
 * running worker with {@code waitpid} of its own pid (never -1, which would steal the status of
 * children that are not workers). Signals merge, so a SIGCHLD is a reason to look at them all;
 * the flag is taken before the look, so an exit during the look is looked at again.
 */
final class ChildWatch {

    private final Epoll epoll;
    private final boolean pidfds;
    /** SIGCHLD came since the loop last looked (without pidfds only). */
    private volatile boolean childSignalled;

    ChildWatch(Epoll epoll, boolean pidfds) {
        this.epoll = epoll;
        this.pidfds = pidfds;
    }

    /** Without pidfds: SIGCHLD wakes the loop. With them: nothing to install. */
    void install(EventFd wake) {
        if (!pidfds) {
            Signals.onSignal("CHLD", () -> {
                childSignalled = true;
                wake.signal();
            });
        }
    }

    /**
     * Watches the worker {@code pid} at {@code index}.
     *
     * @return its pidfd, in the epoll set with data {@code index}; -1 without pidfds
     * @throws RuntimeException the pidfd could not be made or added (none is left open)
     */
    int watch(int pid, int index) {
        if (!pidfds) {
            return -1;
        }
        int pidfd = Processes.pidfdOpen(pid);
        try {
            epoll.add(pidfd, Epoll.IN, index);
        } catch (RuntimeException e) {
            Fds.close(pidfd);
            throw e;
        }
        return pidfd;
    }

    /** The worker of {@code pidfd} (-1: none) was reaped: its pidfd leaves the set and is closed. */
    void unwatch(int pidfd) {
        if (pidfd >= 0) {
            epoll.delete(pidfd);
            Fds.close(pidfd);
        }
    }

    /** A look failed: without pidfds, the loop's next pass looks at every worker again, as after a SIGCHLD. */
    void lookAgain() {
        if (!pidfds) {
            childSignalled = true;
        }
    }

    /** SIGCHLD came since the last call: every running worker is to be looked at. Always false with pidfds. */
    boolean takeChildSignal() {
        if (!childSignalled) {
            return false;
        }
        childSignalled = false;
        return true;
    }
}
