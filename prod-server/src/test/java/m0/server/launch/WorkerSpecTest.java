package m0.server.launch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import m0.server.settings.Catalog;
import m0.server.settings.SettingsReader;
import m0.server.settings.Values;
import m0.server.worker.Worker;
import org.junit.jupiter.api.Test;

/** The launch contract: what the supervisor writes is what the worker reads. */
class WorkerSpecTest {

    private static Values settings(String... args) {
        return SettingsReader.read(Catalog.STANDARD, args, Map.of()).values();
    }

    private static WorkerSpec spec(int[] cpus, boolean metrics, List<String> mainArgs, Values settings) {
        return new WorkerSpec(2, 5, 4242, WorkerSpec.LISTEN_FD, WorkerSpec.PAGE_FD, WorkerSpec.RECEIVE_FD,
                new int[] {6, 7, 8, 9, 10}, cpus, metrics, mainArgs, settings);
    }

    private static WorkerSpec again(WorkerSpec spec) {
        return WorkerSpec.parse(spec.toArgs().toArray(new String[0]));
    }

    @Test
    void theMainClassTheSupervisorNamesIsTheWorker() {
        assertEquals(Worker.class.getName(), WorkerSpec.MAIN_CLASS);
    }

    /** --dev-native-fallbacks reaches the worker as written, and is absent from the command line when unset (docs/adr/0060). */
    @Test
    void theForcedNativeFallbacksSurviveTheCommandLine() {
        WorkerSpec forced = spec(new int[0], false, List.of(), settings("--dev-native-fallbacks", "pidfd,epoll_pwait2"));
        assertEquals("pidfd,epoll_pwait2", WorkerOperations.of(again(forced)).nativeFallbacks());
        WorkerSpec none = spec(new int[0], false, List.of(), settings());
        assertEquals("", WorkerOperations.of(again(none)).nativeFallbacks());
        assertEquals(false, none.toArgs().stream().anyMatch(a -> a.startsWith("dev-native-fallbacks=")));
    }

    @Test
    void aSpecAndItsOperationsSurviveTheCommandLine() {
        WorkerSpec spec = spec(new int[] {2, 3}, true, List.of("a b", "x=y"),
                settings("--rebalance", "off", "--access-log", "-", "--blocking-threads", "3", "--main", "a.Main"));
        WorkerSpec read = again(spec);
        assertEquals(spec.index(), read.index());
        assertEquals(spec.lines(), read.lines());
        assertArrayEquals(spec.sendFds(), read.sendFds());
        assertEquals("share", read.acceptPolicy());
        assertEquals(false, read.rebalance());
        assertEquals(true, read.deferOnChurn());
        assertEquals(3, read.blockingThreads());
        assertArrayEquals(spec.cpus(), read.cpus());
        WorkerOperations ops = WorkerOperations.of(read);
        assertEquals(new WorkerOperations(true, "-", null, "a.Main", List.of("a b", "x=y"), "", 0), ops);
        assertNull(ops.appClasspath());
        assertEquals(false, again(spec(new int[0], true, List.of(), settings("--defer-accept", "1"))).deferOnChurn());
    }

    @Test
    void freeWorkersAreToldNoCpus() {
        assertArrayEquals(new int[0], again(spec(new int[0], false, List.of(), settings())).cpus());
    }

    @Test
    void aSettingTheWorkersDoNotReadIsRefused() {
        assertThrows(RuntimeException.class, () -> WorkerSpec.parse(new String[] {"index=0", "workers=2"}));
        assertThrows(RuntimeException.class, () -> WorkerSpec.parse(new String[] {"index=0", "no-such=2"}));
    }
}
