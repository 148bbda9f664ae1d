package m0.server.worker;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.locks.LockSupport;

/**
 * Waits for this JVM's JIT to go quiet (ADR 0045): a worker that has just run its hot paths
 * enough times to queue their compiles lets them finish now, rather than on the same cores as
 * the work that follows. On two cores a compiler thread busy during a first burst is what
 * deschedules a worker inside its pass.
 */
final class CompilerQuiet {

    /** How long the compiler must finish nothing to count as quiet. */
    private static final long QUIET_NANOS = 10_000_000L;

    private CompilerQuiet() {
    }

    /**
     * Waits until no compilation has finished for {@link #QUIET_NANOS}, at most
     * {@code boundNanos}. A JVM without compilation-time monitoring does not wait.
     *
     * @return how long it waited, in nanoseconds
     */
    static long await(long boundNanos) {
        long begin = System.nanoTime();
        CompilationMXBean compiler = ManagementFactory.getCompilationMXBean();
        if (compiler == null || !compiler.isCompilationTimeMonitoringSupported()) {
            return 0;
        }
        long last = compiler.getTotalCompilationTime();
        while (System.nanoTime() - begin < boundNanos) {
            LockSupport.parkNanos(QUIET_NANOS); // a start-up's own wait: nothing else runs on this thread yet
            long now = compiler.getTotalCompilationTime();
            if (now == last) {
                break;
            }
            last = now;
        }
        return System.nanoTime() - begin;
    }
}
