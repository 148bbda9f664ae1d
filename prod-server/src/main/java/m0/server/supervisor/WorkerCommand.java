package m0.server.supervisor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import m0.server.launch.WorkerSpec;

/**
 * What a worker JVM is started with: its command line (the launch contract, {@link WorkerSpec},
 * which carries every setting the workers read), its environment, and the descriptors it inherits, in the order
 * the spec numbers them (docs/adr/0005). Only the index differs from one worker to the next.
 * Pinned workers ({@link CpuPlacement}) are told the CPU list and the server's CPU count.
 */
final class WorkerCommand {

    private final ServerConfig config;
    private final OperatorConfig ops;
    private final SupervisorKnobs knobs;
    private final int lines;
    private final int listener;
    private final int pageFd;
    private final int[] sendFds;
    private final int[] receiveFds;
    private final CpuPlacement placement;
    /** The java command up to the main class, and the environment: made at the first spawn. */
    private List<String> prefix;
    private List<String> env;

    WorkerCommand(ServerConfig config, OperatorConfig ops, SupervisorKnobs knobs, int listener, int pageFd,
                  int[] sendFds, int[] receiveFds, CpuPlacement placement) {
        this.config = config;
        this.ops = ops;
        this.knobs = knobs;
        this.lines = sendFds.length;
        this.listener = listener;
        this.pageFd = pageFd;
        this.sendFds = sendFds;
        this.receiveFds = receiveFds;
        this.placement = placement;
    }

    List<String> argv(int index) {
        WorkerSpec spec = new WorkerSpec(index, lines, (int) ProcessHandle.current().pid(),
                WorkerSpec.LISTEN_FD, WorkerSpec.PAGE_FD, WorkerSpec.RECEIVE_FD, sendFdNumbers(), placement.cpus(),
                ops.metrics(), ops.mainArgs(), config.values());
        makeOnce();
        List<String> argv = new ArrayList<>(prefix);
        argv.addAll(spec.toArgs());
        return argv;
    }

    /** The supervisor's environment less what describes its own service (NOTIFY_SOCKET, LISTEN_*). */
    List<String> env() {
        makeOnce();
        return env;
    }

    /** The supervisor's descriptors the child gets as 3, 4, 5, 6...: listener, page, its receive end, every send end. */
    int[] inherit(int index) {
        int[] inherit = new int[WorkerSpec.descriptorCount(lines)];
        inherit[0] = listener;
        inherit[1] = pageFd;
        inherit[2] = receiveFds[index];
        System.arraycopy(sendFds, 0, inherit, 3, lines);
        return inherit;
    }

    private void makeOnce() {
        if (prefix != null) {
            return;
        }
        prefix = JavaCommand.workerPrefix(knobs.workerJavaOpts());
        prefix.add(WorkerSpec.MAIN_CLASS);
        env = new ArrayList<>();
        for (Map.Entry<String, String> e : knobs.environment().entrySet()) {
            if (!SocketActivation.ownVariable(e.getKey())) { // NOTIFY_SOCKET, LISTEN_*: ours, not theirs
                env.add(e.getKey() + "=" + e.getValue());
            }
        }
    }

    private int[] sendFdNumbers() {
        int[] fds = new int[lines];
        for (int i = 0; i < lines; i++) {
            fds[i] = WorkerSpec.FIRST_SEND_FD + i;
        }
        return fds;
    }
}
