#!/usr/bin/env python3
"""Each decision of the worker's loop (core's WorkerLoop, the class m0serve runs and the simulator
runs) removed or inverted, one at a time, and the simulator's tests run against it: every mutant
must fail at least one of them (issue 45, ADR 0063). The loop's source is restored after each run
(also on error). core's own tests are not run here: core/mutants/revert-corrections.py does that.
Run from the repository root:

    python3 sim/loop-mutants.py                    # the simulator's default tests (mvn test)
    python3 sim/loop-mutants.py --model-check      # the same under -P model-check (slow)
    python3 sim/loop-mutants.py "batch"            # only the mutants whose name holds this
    python3 sim/loop-mutants.py "batch" "cap"      # ... or holds any of these

A mutant the default tests miss and -P model-check catches says so in its name's note below.
"""
import os, pathlib, re, signal, subprocess, sys

LOOP = pathlib.Path("core/src/main/java/m0/core/loop/WorkerLoop.java")
TIMEOUT = 420

# name -> [(old, new), ...] on WorkerLoop.java. Each is a decision of the loop, as its javadoc
# lists them: the batch and where it ends, the channel drain, the cap and the EMFILE back-off,
# the listener's interest, the leave steps, the rebalance and heal looks, the pass end, the busy
# sample.
MUTANTS = {
    # ---- the accept batch and where it ends
    "batch: goes on past END_BATCH (next > GO_ON, issue 45)": [
        ("            if (next != AcceptPolicy.GO_ON) {", "            if (next > AcceptPolicy.GO_ON) {"),
    ],
    "batch: never ends on the core's word": [
        ("            if (next != AcceptPolicy.GO_ON) {", "            if (false) {"),
    ],
    "batch: the full worker's nudge never sent": [
        ("                    channels.nudge(next); // fountain", "                    // channels.nudge(next); fountain"),
    ],
    # ---- the channel drain
    "drain: a readable channel not drained": [
        ("        if (channelReadable) {\n            drainChannel();", "        if (false) {\n            drainChannel();"),
    ],
    "drain: a swallowed nudge makes no look due": [
        ("                interest.lookNow(now); // fountain", "                // interest.lookNow(now); fountain"),
    ],
    # ---- the cap and the EMFILE back-off
    "cap: accepts past --max-connections": [
        ("            if (open >= limits.maxConnections()) {", "            if (false) {"),
    ],
    "EMFILE: no back-off (per-connection error, listener stays in)": [
        ("                if (listener.outOfDescriptors(e)) {", "                if (false) {"),
    ],
    "EMFILE: back-off of zero": [
        ("                    interest.backOff(now + ACCEPT_BACKOFF_NANOS);", "                    interest.backOff(now);"),
    ],
    "HELD: never published": [
        ("            share.holdListener(held);", "            // not published"),
    ],
    # ---- the listener's interest
    "interest: a listener that is out is served when the wait says readable": [
        ("        if (listenerReadable && interest.in()) {", "        if (listenerReadable) {"),
    ],
    "interest: never taken back in (listenerDue skipped)": [
        ("            if (!interest.in()) {\n                listenerDue();", "            if (false) {\n                listenerDue();"),
    ],
    "interest: fountain's look never made": [
        ("        if (interest.lookDue(now)) {", "        if (false) {"),
    ],
    "interest: the core's no to the listener ignored": [
        ("        if (!share.takeListener(readable)) {", "        if (!share.takeListener(readable) && false) {"),
    ],
    # ---- the leave steps
    "leave: LEFT published after the hand-over of idle connections": [
        ("        share.leave();\n        interest.close();", "        interest.close();"),
        ("        connections.leaveIdle(this::handOver, this::keepIdle);\n    }\n\n    /**\n     * One leave step",
         "        connections.leaveIdle(this::handOver, this::keepIdle);\n        share.leave();\n    }\n\n    /**\n     * One leave step"),
    ],
    "leave: the drain ends at its first step": [
        ("            draining = share.leaveStep(c -> connections.admit(c, true));", "            share.leaveStep(c -> connections.admit(c, true));\n            draining = false;"),
    ],
    "leave: idle connections never offered again": [
        ("        connections.leaveIdle(this::handOver, this::keepIdle);\n        if (now - stopDeadline >= 0) {",
         "        if (now - stopDeadline >= 0) {"),
    ],
    "leave: an idle connection closed while a sibling is starting (ADR 0021)": [
        ("        return share.policy().movesConnections() && share.awaitingStart();", "        return false;"),
    ],
    "leave: exits while the drain goes on": [
        ("        if (stopping && !draining && connections.open() == 0) {", "        if (stopping && connections.open() == 0) {"),
    ],
    # ---- the rebalance and heal looks
    "rebalance: no look after work": [
        ("            if (rebalancing && (worked || now - nextRebalance >= 0)) {", "            if (rebalancing && now - nextRebalance >= 0) {"),
    ],
    "rebalance: no look on the tick": [
        ("            if (rebalancing && (worked || now - nextRebalance >= 0)) {", "            if (rebalancing && worked) {"),
    ],
    "rebalance: no tick while holding idle connections": [
        ("            nextRebalance = now + REBALANCE_TICK_NANOS;", "            nextRebalance = Long.MAX_VALUE;"),
    ],
    "rebalance: a move does not wait out the interval": [
        ("            nextRebalance = now + AcceptShare.REBALANCE_INTERVAL_NANOS;", "            nextRebalance = now;"),
    ],
    "heal: no look without an event": [
        ("            if (share.healDue()) {", "            if (false) {"),
    ],
    # LOOP-HEAL-IDLE (HEAL-LOOK); its port mutant is LoopMutants.NO_HEAL_LOOK, and LoopSourceMutantsTest
    # compiles this same edit in the default tests.
    "heal: no wake-up while sharing and idle (no HEAL_LOOK_NANOS)": [
        ("            return share.sharing() ? HEAL_LOOK_NANOS : -1;", "            return -1;"),
    ],
    # ---- the pass end and the busy sample
    # LOOP-SETTLED (SETTLED-SEEN); port mutant LoopMutants.SETTLED_AFTER_RETIRE; LoopSourceMutantsTest too.
    "pass end: the settled count published after the retire (ADR 0059)": [
        ("        share.publishSettled(connections.settled());\n        share.passEnd(connections.open());",
         "        share.passEnd(connections.open());\n        share.publishSettled(connections.settled());"),
    ],
    "pass: work never stamped": [
        ("        if (started) { // before start (the warm-up) the index is NOT_STARTED: nothing to stamp\n            share.work();",
         "        if (false) { // before start (the warm-up) the index is NOT_STARTED: nothing to stamp\n            share.work();"),
    ],
    "pass: an admission never told to the core": [
        ("        worked = true;\n        if (started) {\n            share.admitted();", "        worked = true;\n        if (false) {\n            share.admitted();"),
    ],
    "sample: never taken": [
        ("            share.sample(meter.busyNanos(), connections.poolBusyNanos(passEnd), connections.poolThreads());",
         "            // no sample"),
    ],
    # LOOP-SAMPLE (SAMPLE). No port mutant: nextSample is the loop's own state, set from the clock
    # read that also ends the pass, and no port says when a sample is due; LoopSourceMutantsTest
    # compiles this edit in the default tests.
    "sample: no timer for the next sample (an idle worker never samples)": [
        ("        if (sampling) {\n            next = Math.min(next, nextSample);\n        }", ""),
    ],
}


def run_tests(model_check):
    # LoopSourceMutantsTest edits this same file in its own scratch copy: left out, so that a
    # mutant here is never credited to its "edit not found".
    cmd = ["mvn", "-B", "-q", "-o", "-pl", "core,sim", "test", "-Dtest=m0.sim.*Test,!m0.sim.LoopSourceMutantsTest",
           "-Dsurefire.failIfNoSpecifiedTests=false"]
    if model_check:
        cmd.append("-Pmodel-check")
    # Its own process group: on a timeout Maven and its test fork go together.
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        # A loop that never finishes a world runs every test to its JUnit timeout (5 min each):
        # a catch, but a slow one, and named as such.
        return [f"TIMEOUT (the tests did not finish in {TIMEOUT} s)"]
    if "COMPILATION ERROR" in out:
        sys.exit("a mutant does not compile; fix the mutant:\n" + out[-3000:])
    return sorted(set(re.findall(r"^\[ERROR\] m0\.sim\.(\w+)\.\w+.*<<< (?:FAILURE|ERROR)!", out, re.M)))


args = sys.argv[1:]
model_check = "--model-check" in args
args = [a for a in args if a != "--model-check"]
if args:
    MUTANTS = {k: v for k, v in MUTANTS.items() if any(a in k for a in args)}
survivors = []
for name, edits in MUTANTS.items():
    original = LOOP.read_text()
    text = original
    for old, new in edits:
        if old not in text:
            sys.exit(f"mutant '{name}': pattern not found: {old[:60]!r}")
        text = text.replace(old, new, 1)
    try:
        LOOP.write_text(text)
        failed = run_tests(model_check)
    finally:
        LOOP.write_text(original)
    print(f"{name}\n    caught by: {', '.join(failed) if failed else 'NOTHING'}", flush=True)
    if not failed:
        survivors.append(name)
print(f"{len(MUTANTS) - len(survivors)} of {len(MUTANTS)} loop mutants caught by the simulator")
sys.exit(1 if survivors else 0)
