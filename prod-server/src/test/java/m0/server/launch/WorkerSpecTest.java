package m0.server.launch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import m0.server.worker.Worker;
import org.junit.jupiter.api.Test;

/** The launch contract: what the supervisor writes is what the worker reads. */
class WorkerSpecTest {

    @Test
    void theMainClassTheSupervisorNamesIsTheWorker() {
        assertEquals(Worker.class.getName(), WorkerSpec.MAIN_CLASS);
    }

    /** --native-fallbacks reaches the worker as written, and is absent from the command line when unset (docs/adr/0060). */
    @Test
    void theForcedNativeFallbacksSurviveTheCommandLine() {
        WorkerOperations forced = new WorkerOperations(false, null, null, null, List.of(), "pidfd,epoll_pwait2", 0);
        assertEquals(forced, WorkerOperations.parse(forced.toArgs().toArray(new String[0])));
        assertEquals("pidfd,epoll_pwait2", WorkerOperations.parse(forced.toArgs().toArray(new String[0])).nativeFallbacks());
        WorkerOperations none = new WorkerOperations(false, null, null);
        assertEquals("", none.nativeFallbacks());
        assertEquals(false, none.toArgs().stream().anyMatch(a -> a.startsWith("native-fallbacks=")));
    }

    @Test
    void aSpecAndItsOperationsSurviveTheCommandLine() {
        WorkerSpec spec = new WorkerSpec(2, 5, 4242, WorkerSpec.LISTEN_FD, WorkerSpec.PAGE_FD, WorkerSpec.RECEIVE_FD,
                new int[] {6, 7, 8, 9, 10}, "builtin", 2, "share", 16384, 5000, 10000, 10000, 10000, 1048576, 0, false, true,
                new int[] {2, 3});
        WorkerOperations ops = new WorkerOperations(true, "-", null);
        List<String> argv = new ArrayList<>(spec.toArgs());
        argv.addAll(ops.toArgs());
        String[] args = argv.toArray(new String[0]);

        WorkerSpec read = WorkerSpec.parse(args);
        assertEquals(spec.index(), read.index());
        assertEquals(spec.lines(), read.lines());
        assertArrayEquals(spec.sendFds(), read.sendFds());
        assertEquals(spec.acceptPolicy(), read.acceptPolicy());
        assertEquals(spec.rebalance(), read.rebalance());
        assertEquals(spec.deferOnChurn(), read.deferOnChurn());
        assertArrayEquals(spec.cpus(), read.cpus());
        WorkerOperations readOps = WorkerOperations.parse(args);
        assertEquals(ops, readOps);
        assertNull(readOps.appClasspath());
    }

    @Test
    void freeWorkersAreToldNoCpus() {
        WorkerSpec spec = new WorkerSpec(0, 1, 1, WorkerSpec.LISTEN_FD, WorkerSpec.PAGE_FD, WorkerSpec.RECEIVE_FD,
                new int[] {6}, "builtin", 0, "share", 16384, 5000, 10000, 10000, 10000, 1048576, 0, true, true,
                new int[0]);
        assertArrayEquals(new int[0], WorkerSpec.parse(spec.toArgs().toArray(new String[0])).cpus());
    }
}
