package m0.server.launch;

/**
 * The name a worker gives the thread that runs its loop, the one thread the supervisor pins to a
 * CPU (docs/adr/0070). The kernel keeps it as the thread's comm ({@code /proc/PID/task/TID/comm},
 * 15 bytes at most), where the supervisor finds it; every other thread of the worker runs free.
 */
public final class LoopThread {

    public static final String NAME = "m0-loop";

    private LoopThread() {
    }
}
