package m0.server.supervisor;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * SIGHUP: replace every worker, one at a time. Each step starts the replacement at a free
 * index, waits until the page shows it started (NS: until then the old one serves, and nothing
 * is handed to the new one), asks the old one to leave, and waits for its exit before the
 * next step (docs/adr/0006). A SIGHUP during a reload runs another afterwards; a replacement
 * given up stops the reload and keeps the old worker. Stepped from the loop while not stopping.
 *
 * <p>Before any replacement starts, {@link #check} reads what the new workers would load at
 * their start (the TLS files, ADR 0069): files that do not load abandon this reload in one line,
 * and the running workers serve on, rather than a replacement JVM started only to exit 78.
 */
final class RollingReload {

    private final Slots slots;
    private final Spawner spawner;
    private final Readiness readiness;
    private final ServerCounters counters;
    /** Why a replacement could not start now, or null: asked once per reload, before its first step. */
    private final java.util.function.Supplier<String> check;
    /** Old indices still to replace, in order. */
    private final Deque<Integer> queue = new ArrayDeque<>();
    /** A SIGHUP that came during a reload: run another once this one is done. */
    private boolean again;
    /** RELOADING=1 was sent; READY=1 follows when the queue is done. */
    private boolean notified;
    /** The step in progress, or null. */
    private Step step;

    /** One step: start {@code fresh}, wait for its start, then retire {@code old}. */
    private static final class Step {
        final int old;
        final int fresh;
        boolean leaving;

        Step(int old, int fresh) {
            this.old = old;
            this.fresh = fresh;
        }
    }

    RollingReload(Slots slots, Spawner spawner, Readiness readiness, ServerCounters counters,
                  java.util.function.Supplier<String> check) {
        this.slots = slots;
        this.check = check;
        this.spawner = spawner;
        this.readiness = readiness;
        this.counters = counters;
    }

    /** A step is running or queued: the loop looks again soon. */
    boolean inProgress() {
        return step != null || !queue.isEmpty();
    }

    /** {@code index} is the old worker of the step in progress: its death is the step's, not a crash. */
    boolean replacing(int index) {
        return step != null && step.old == index;
    }

    /** {@code index} is either side of the step in progress: not for SIGTTOU to take. */
    boolean involves(int index) {
        return step != null && (index == step.old || index == step.fresh);
    }

    /** The server is stopping: nothing more is replaced. */
    void cancel() {
        queue.clear();
        step = null;
    }

    /** Moves the reload on as far as it can go now; {@code requested}: a SIGHUP came. */
    void step(boolean requested) {
        if (requested) {
            if (step == null && queue.isEmpty()) {
                enqueue();
            } else {
                again = true;
            }
        }
        for (;;) {
            if (step == null) {
                if (queue.isEmpty()) {
                    if (!again) {
                        if (notified) {
                            notified = false;
                            readiness.reloaded();
                        }
                        return;
                    }
                    again = false;
                    enqueue();
                    continue;
                }
                int old = queue.peekFirst();
                if (!slots.at(old).member || !slots.at(old).running()) {
                    queue.removeFirst(); // gone meanwhile (a scale-down, a give-up)
                    continue;
                }
                int fresh = slots.freeIndex();
                if (fresh < 0) {
                    return; // every line taken (a leaver not yet reaped): try again next time
                }
                queue.removeFirst();
                step = new Step(old, fresh);
                if (!spawner.startFresh(fresh, "reload of worker " + old)) {
                    step = null;
                }
                return;
            }
            Slot fresh = slots.at(step.fresh);
            if (!step.leaving) {
                if (!fresh.member) {
                    System.err.println("m0serve: reload: the replacement at index " + step.fresh
                            + " was given up; keeping worker " + step.old + " and stopping the reload");
                    step = null;
                    queue.clear();
                    return;
                }
                if (!fresh.started) {
                    return; // NS: the old one serves until the new one reads its channel
                }
                if (slots.at(step.old).running()) {
                    slots.at(step.old).askToLeave("reload");
                }
                step.leaving = true;
            }
            if (slots.at(step.old).running()) {
                return; // one at a time: the next replacement waits for this leaver's exit
            }
            step = null;
        }
    }

    private void enqueue() {
        String unfit = check.get();
        if (unfit != null) {
            // Not retried: the operator fixes the files and sends SIGHUP again.
            System.err.println("m0serve: SIGHUP: " + unfit + "; keeping the running workers; reload abandoned");
            return;
        }
        for (int i = 0; i < slots.lines(); i++) {
            if (slots.at(i).member && slots.at(i).running()) {
                queue.addLast(i);
            }
        }
        System.err.println("m0serve: SIGHUP: reloading " + queue.size() + " worker(s), one at a time");
        counters.reloaded();
        if (!notified) {
            notified = true;
            readiness.reloading(queue.size());
        }
    }
}
