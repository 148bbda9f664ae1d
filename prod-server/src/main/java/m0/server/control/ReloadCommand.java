package m0.server.control;

import java.util.concurrent.Callable;
import m0.server.jnr.Processes;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code m0serve reload}: SIGHUP to a running server's supervisor, found as stats finds it (nginx -s reload). */
@Command(name = "reload", mixinStandardHelpOptions = true,
        description = "Replace a running server's workers one at a time (SIGHUP to its supervisor): the rolling "
                + "reload, with no connection refused. Exit 0 once sent; 1 when no m0serve supervisor is found.")
public final class ReloadCommand implements Callable<Integer> {

    @ArgGroup(exclusive = true, multiplicity = "1")
    ServerTarget target;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        return SignalSender.send("reload", target, Processes.SIGHUP, "SIGHUP",
                spec.commandLine().getOut(), spec.commandLine().getErr()) < 0 ? 1 : 0;
    }
}
