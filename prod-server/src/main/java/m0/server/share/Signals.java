package m0.server.share;

import m0.server.jnr.Processes;
import sun.misc.Signal;

/**
 * Signal handlers as wake-ups. {@code sun.misc.Signal} runs a handler on a new thread and
 * merges signals that arrive together, so a handler only sets a flag and wakes the loop
 * (signalfd does not work in a JVM: the JVM's own threads do not block the signals). Taking
 * TERM or INT replaces the JVM's exit-on-signal. A signal the parent ignored is first set back
 * to its default, or the JVM would keep ignoring it (m0serve started under {@code nohup} would
 * never reload on HUP).
 */
public final class Signals {

    private Signals() {
    }

    /** Runs {@code wakeUp} (on a signal thread) each time {@code name} ("TERM", "INT", ...) arrives. */
    public static void onSignal(String name, Runnable wakeUp) {
        Signal signal = new Signal(name);
        Processes.resetToDefault(signal.getNumber());
        Signal.handle(signal, s -> wakeUp.run());
    }
}
