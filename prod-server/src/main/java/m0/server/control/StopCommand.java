package m0.server.control;

import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import m0.server.jnr.Processes;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code m0serve stop}: SIGTERM to a running server's supervisor, found as stats finds it (nginx -s quit). */
@Command(name = "stop", mixinStandardHelpOptions = true,
        description = "Stop a running server gracefully: SIGTERM to its supervisor (its health turns 503, "
                + "its workers finish what is in flight within --grace-ms). Exit 0 once sent; 1 when no "
                + "m0serve supervisor is found or, with --wait-ms, it has not exited in time.")
public final class StopCommand implements Callable<Integer> {

    @ArgGroup(exclusive = true, multiplicity = "1")
    ServerTarget target;

    @Option(names = "--wait-ms", paramLabel = "MS", defaultValue = "0",
            description = "then wait up to MS ms for the supervisor to exit (default: do not wait)")
    long waitMillis;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        long pid = SignalSender.send("stop", target, Processes.SIGTERM, "SIGTERM",
                spec.commandLine().getOut(), spec.commandLine().getErr());
        if (pid < 0) {
            return 1;
        }
        if (waitMillis <= 0) {
            return 0;
        }
        Optional<ProcessHandle> process = ProcessHandle.of(pid);
        try {
            if (process.isPresent()) {
                process.get().onExit().get(waitMillis, TimeUnit.MILLISECONDS);
            }
        } catch (TimeoutException e) {
            spec.commandLine().getErr().println("m0serve stop: pid " + pid + " still runs after " + waitMillis + " ms");
            spec.commandLine().getErr().flush();
            return 1;
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e); // onExit never completes exceptionally
        }
        spec.commandLine().getOut().println("m0serve stop: pid " + pid + " exited");
        spec.commandLine().getOut().flush();
        return 0;
    }
}
