#!/usr/bin/env python3
"""Revert each correction of the seed in core's main code, one at a time, run core's tests,
and print which tests fail. Every correction must be caught by at least one test. The file
is restored after each run (also on error). The rules added since the seed (the loop's, the
fountain's, the heal's, rebalance's, the starting marks') are here too, each as the one-rule
change that the test named in its comment catches. Run from the repository root:

    python3 core/mutants/revert-corrections.py
    python3 core/mutants/revert-corrections.py "ADR 0057"   # only the mutants whose name holds this
"""
import pathlib, re, subprocess, sys

CORE = pathlib.Path("core/src/main/java/m0/core")

MUTANTS = {
    "R5 (pending raised after a successful send)": ("HandOff.java", [
        ("        if (!raise(countsWord, ifUnchanged, seen)) {\n            page.setVolatile(sendingWord, 0); // nothing raised: nothing for a heal to count\n            return MOVED;\n        }\n        // B25",
         "        // B25"),
        ("        page.setVolatile(sendingWord, 0);\n        return SENT;",
         "        page.getAndAdd(countsWord, Counts.RAISE);\n        page.setVolatile(sendingWord, 0);\n        return SENT;"),
        ("        page.getAndAdd(countsWord, Counts.TAKE_BACK);\n", ""),
    ]),
    "ADR 0043: the accept path raises blind (an add, whatever the pick read)": ("HandOff.java", [
        ("        if (ifUnchanged) {\n            return page.compareAndSet(", "        if (false) {\n            return page.compareAndSet("),
    ]),
    "ADR 0053: the accept path's keep published blind (an add, whatever the pick read)": ("AcceptPublication.java", [
        ("        if (!siblings.ownSeen()) {\n            kept(open);", "        if (true) {\n            kept(open);"),
    ]),
    "ADR 0053: a pick that reads none of its own counts keeps the last one's (no forgetOwn)": ("AcceptPublication.java", [
        ("        siblings.forgetOwn();\n", ""),
    ]),
    "ADR 0053: a keep that moves no active field is not checked against its pick's read": ("AcceptPublication.java", [
        ("active == publishedActive ? page.getVolatile(countsWord) != seen", "active == publishedActive ? false"),
    ]),
    "B25-send (no state re-read after the raise)": ("HandOff.java", [
        ("page.getVolatile(PageLayout.stateWord(target)) == PageLayout.LEFT", "false"),
    ]),
    "B25-leaver (drain once, no wait on pending - taken)": ("Leaving.java", [
        ("return !awaitingStart.isEmpty() || inFlight > 0 && clock.nanoTime() - leaveDeadline < 0;", "return !awaitingStart.isEmpty();"),
    ]),
    "B25-leaver (LEFT stored after the drain's first receive)": ("Leaving.java", [
        ("        page.setVolatile(stateWord, PageLayout.LEFT);\n        if (sharing) {", "        if (sharing) {"),
        ("        C connection;\n        while ((connection = receive()) != null) {\n            admit.accept(connection);\n        }\n        publication.retire();",
         "        C connection;\n        while ((connection = receive()) != null) {\n            admit.accept(connection);\n        }\n        page.setVolatile(stateWord, PageLayout.LEFT);\n        publication.retire();"),
    ]),
    "B25-idle (a leaver admits a fresh hand-off instead of forwarding)": ("Leaving.java", [
        ("if (handOff.forward(self, connection) >= 0) {", "if (false) {"),
    ]),
    "TAKEN (start does not subtract taken)": ("AcceptPublication.java", [
        ("        long taken = Counts.taken(counts);\n", "        long taken = 0;\n"),
    ]),
    "NS (NOT_STARTED read as parked)": ("SharePolicy.java", [
        ("if (state == LEFT || state == NOT_STARTED) {", "if (state == LEFT) {"),
    ]),
    "RP (reap does not mark LEFT)": ("SupervisorShare.java", [
        ("        page.setVolatile(PageLayout.stateWord(index), PageLayout.LEFT);\n", ""),
    ]),
    "RB (give-up does not drain the dead worker's channel)": ("GiveUp.java", [
        ("            while (inFlight() > 0) {\n                C connection = channel.receive(index);",
         "            while (inFlight() < 0) {\n                C connection = channel.receive(index);"),
    ]),
    "take-back (a send that throws leaves its raise behind)": ("HandOff.java", [
        ("            takeBack(countsWord);\n            throw e;", "            throw e;"),
    ]),
    "lost (a receipt with no connection skipped, never taken)": ("Receipts.java", [
        ("            if (connection == null && (connection = heal.atEagain()) == null) {\n                return null;\n            }\n",
         "            if (connection == null && (connection = heal.atEagain()) == null) {\n                return null;\n            }\n            if (channel.lost(connection)) {\n                continue;\n            }\n"),
    ]),
    "one-word retire (pending lowered before taken, in two adds)": ("AcceptPublication.java", [
        ("            delta += Counts.retire(received);\n",
         "            page.getAndAdd(countsWord, -received * Counts.PENDING_ONE + Counts.VERSION_ONE);\n            page.getAndAdd(countsWord, -received * Counts.TAKEN_ONE + Counts.VERSION_ONE);\n"),
    ]),
    "one-word load (active published, then the receipts retired, in two adds: ADR 0012's tear, ADR 0040)": ("AcceptPublication.java", [
        ("            delta += Counts.retire(received);\n",
         "            page.getAndAdd(countsWord, delta);\n            delta = Counts.retire(received);\n"),
    ]),
    "one-word start (taken, then pending, in two adds: ADR 0002's window)": ("AcceptPublication.java", [
        ("            page.getAndAdd(countsWord, settle);",
         "            page.getAndAdd(countsWord, settle + taken * Counts.PENDING_ONE);\n            page.getAndAdd(countsWord, -taken * Counts.PENDING_ONE + Counts.VERSION_ONE);"),
    ]),
    "heal, sender side (SENDING published after the raise)": ("HandOff.java", [
        ("        page.setVolatile(sendingWord, target + 1);\n", ""),
        ("        // B25, send side", "        page.setVolatile(sendingWord, target + 1);\n        // B25, send side"),
    ]),
    "heal, reap side (the dead sender's target is not asked)": ("SupervisorShare.java", [
        ("                requestHeal((int) (sending - 1));", "                // not asked"),
    ]),
    "heal, replacement side (a start that finds something in flight does not ask)": ("AcceptPublication.java", [
        ("            heal.ask();\n", ""),
    ]),
    "heal, give-up side (a give-up does not ask)": ("GiveUp.java", [
        ("            heal.ask(); // the dead may have died holding a receipt it never took\n", ""),
    ]),
    "heal, live senders not counted (a heal blind to SENDING)": ("Heal.java", [
        ("                if (page.getVolatile(word) == index + 1) {", "                if (page.getVolatile(word) == -1) {"),
    ]),
    "heal, no receive after the scan": ("Heal.java", [
        ("            C arrived = channel.receive(index);\n            if (arrived != null) {\n                return arrived;\n            }\n", ""),
    ]),
    "heal, no version (an ABA on the counts passes the compare-and-set)": ("Counts.java", [
        ("    public static final long VERSION_ONE = 1L << 52;", "    public static final long VERSION_ONE = 0L;"),
    ]),
    "heal, the supervisor's hand-off not counted (its SENDING word skipped)": ("Heal.java", [
        ("            for (int j = 0; j <= workers; j++) {", "            for (int j = 0; j < workers; j++) {"),
    ]),
    "heal, the request cleared with a hand-off still under way": ("Heal.java", [
        ("        boolean complete = senders == 0;", "        boolean complete = true;"),
    ]),

    # ---- the rules added since the seed
    "ADR 0007: a kept accept is published only at the pass end": ("AcceptPublication.java", [
        ("                page.getAndAdd(countsWord, Counts.activeBy(active - publishedActive));\n                publishedActive = active;\n", ""),
    ]),
    "pass end: PARKED not written after a stamped pass": ("PassStamp.java", [
        ("        if (!left && stamped) {\n            page.setVolatile(stateWord, PageLayout.PARKED);", "        if (false) {\n            page.setVolatile(stateWord, PageLayout.PARKED);"),
    ]),
    "starting marks: a leaver counts its own (a server-wide count)": ("Siblings.java", [
        ("                bits &= ~PageLayout.startingBit(exclude);", "                bits |= 0;"),
    ]),
    "starting marks: a give-up closes what a starting worker would serve": ("GiveUp.java", [
        ("        } else if (clock.nanoTime() - startWaitEnd < 0 && handOff.siblings().anyLiveOrStarting(index)) {",
         "        } else if (false) {"),
    ]),
    "fountain: a leaver hands its established connections over": ("Leaving.java", [
        ("        if (!sharing || !left || !policy.movesConnections()) {", "        if (!sharing || !left) {"),
    ]),
    "fountain: a head that holds its listener out reads as taking (ADR 0038)": ("FountainPolicy.java", [
        ("        return !BusyEstimator.full(busy) && !BusyEstimator.held(busy);", "        return !BusyEstimator.full(busy);"),
    ]),
    "fountain: endBatch stops for a later worker that is not taking": ("FountainPolicy.java", [
        ("            if (!taking(siblings, j, siblings.state(j), now)) {\n                continue; // stopped",
         "            if (!Siblings.live(siblings.state(j)) || BusyEstimator.full(siblings.busy(j))) {\n                continue; // stopped"),
    ]),
    "fountain: one stuck mark at a time": ("FountainPolicy.java", [
        ("        stuck[j] = true;\n", "        java.util.Arrays.fill(stuck, false);\n        stuck[j] = true;\n"),
    ]),
    "fountain: a stuck mark never forgotten when the head's words move": ("FountainPolicy.java", [
        ("            stuck[j] = false;\n        }", "            return false;\n        }"),
    ]),
    "fountain: stuck judged at the first look (no second look a look apart)": ("FountainPolicy.java", [
        ("            if (now - lookAt >= LOOK_NANOS) {", "            if (true) {"),
    ]),
    "fountain: no earlier look when the head's pass turns slow": ("FountainPolicy.java", [
        ("        return state > 0 && state + LEAVE_NANOS + 1 - deadline < 0 ? state + LEAVE_NANOS + 1 : deadline;", "        return deadline;"),
    ]),
    "fountain: a full worker keeps the listener from a later free one (ADR 0031)": ("FountainPolicy.java", [
        ("        if (estimator.full()) {\n            // Full, and nobody before us is taking", "        if (false) {\n            // Full, and nobody before us is taking"),
    ]),
    "fountain: no surge estimate (a burst never makes a worker full)": ("BusyEstimator.java", [
        ("        return Math.max(0, windowAccepts - previousWindowAccepts) * SURGE_PER_MILLE;", "        return 0;"),
    ]),
    "rebalance: a sibling that left holds a move back as heavier": ("Rebalance.java", [
        ("            if (state == LEFT || state == NOT_STARTED) {\n                continue;\n            }\n            long load = siblings.load(i);",
         "            if (state == NOT_STARTED) {\n                continue;\n            }\n            long load = siblings.load(i);\n            if (state == LEFT && load <= own) {\n                continue;\n            }"),
    ]),
    "rebalance: a replacement not yet started holds a move back with its predecessor's count": ("Rebalance.java", [
        ("            if (state == LEFT || state == NOT_STARTED) {\n                continue;\n            }\n            long load = siblings.load(i);",
         "            if (state == LEFT) {\n                continue;\n            }\n            long load = siblings.load(i);\n            if (state == NOT_STARTED && load <= own) {\n                continue;\n            }"),
    ]),
    "forward: a sibling in a slow pass is never chosen, even the only live one": ("Siblings.java", [
        ("            if (best < 0 || (bestSlow && !slow) || (slow == bestSlow && load < bestLoad)) {",
         "            if (!slow && (best < 0 || load < bestLoad)) {"),
    ]),
    "ADR 0044: share's gate enters keeping only at a window's end": ("LoadShape.java", [
        ("            if (keeping || shortN < keepMinShort || reuseN * keepShortPerReuse > shortN) {",
         "            if (true) {"),
    ]),
    "ADR 0046: share while keeping accepts on to EAGAIN": ("SharePolicy.java", [
        ("        return shape.keeping() ? END_BATCH : GO_ON;", "        return GO_ON;"),
    ]),
    "loop: the batch goes on past END_BATCH": ("loop/WorkerLoop.java", [
        ("            if (next != AcceptPolicy.GO_ON) {", "            if (next >= 0) {"),
    ]),
    "loop: the HELD mark never published": ("loop/WorkerLoop.java", [
        ("            share.holdListener(held);", "            // not published"),
    ]),
    "loop: no heal look without an event": ("loop/WorkerLoop.java", [
        ("            if (share.healDue()) {", "            if (false) {"),
    ]),
    "loop: EMFILE retried at once (no back-off)": ("loop/WorkerLoop.java", [
        ("                    interest.backOff(now + ACCEPT_BACKOFF_NANOS);", "                    interest.backOff(now);"),
    ]),
    "loop: no rebalance tick while holding idle connections": ("loop/WorkerLoop.java", [
        ("            nextRebalance = now + REBALANCE_TICK_NANOS;", "            nextRebalance = Long.MAX_VALUE;"),
    ]),
    "loop: a fountain leaver keeps idle connections it can never hand over": ("loop/WorkerLoop.java", [
        ("        return share.policy().movesConnections() && share.awaitingStart();", "        return share.awaitingStart();"),
    ]),
    # ADR 0056, caught by WorkerLoopTest's deferral tests.
    "ADR 0056: the deferral wish sent on a change only (an edge; a dead setter's stands)": ("loop/ListenerDeferral.java", [
        ("if (everyWorkerKeeps != deferring || now - askedAt >= REASK_NANOS) {", "if (everyWorkerKeeps != deferring) {"),
    ]),
    "ADR 0056: no wish sent at start (a past run's deferral stands on a cold start)": ("loop/ListenerDeferral.java", [
        ("    public void start(boolean everyWorkerKeeps, long now) {\n        ask(everyWorkerKeeps, now);", "    public void start(boolean everyWorkerKeeps, long now) {\n        askedAt = now;"),
    ]),
    "ADR 0056: a leaver goes on asking of the listener it closed": ("loop/WorkerLoop.java", [
        ("        deferral = null;\n        listener.close();", "        listener.close();"),
    ]),
    "ADR 0056: a predecessor's KEEPING outlives it": ("SharePolicy.java", [
        ("        siblings.publishBusy(self, 0);\n", ""),
    ]),
    # ADR 0057, the swap, caught by RebalanceTest's swap tests and WorkerLoopTest's.
    "ADR 0057: a one-sided swap (the sibling's AFFINE mark unread)": ("Rebalance.java", [
        ("if (swap == self && holds(affinities, i) && (siblings.affine(i) & affineBit(self)) != 0) {", "if (swap == self && holds(affinities, i)) {"),
    ]),
    "ADR 0057: a move of any kind (a swap's return undoes it)": ("Rebalance.java", [
        ("return (affinities & affineBit(target)) != 0 ? target : ANY_AFFINITY;", "return ANY_AFFINITY;"),
    ]),
    "ADR 0057: a swap whose return goes to another sibling": ("Rebalance.java", [
        ("if (swap != self && (lowestAt == swap ? secondLowest : lowest) >= own - 1) {", "if (swap != self) {"),
    ]),
    "ADR 0057: a swap of any kind when its own is busy": ("loop/WorkerLoop.java", [
        ("share.affinityToMove(target, affinities), share.swapping(), send)", "share.affinityToMove(target, affinities), false, send)"),
    ]),
    "ADR 0057: a tie among the lightest not given to the kind held": ("Rebalance.java", [
        ("if (load < lightestLoad || load == lightestLoad && holds(affinities, i) && !holds(affinities, lightest)) {", "if (load < lightestLoad) {"),
    ]),
    "ADR 0057: a CPU mapped over the page's lines, not the live workers": ("Siblings.java", [
        ("            if (i == self || live(state(i))) {\n                serving++;", "            if (true) {\n                serving++;"),
    ]),
    "ADR 0057: a predecessor's AFFINE mark outlives it": ("RebalanceMarks.java", [
        ("        page.setVolatile(affineWord, 0);\n        publishedAffinities = 0;\n", ""),
    ]),
    "ADR 0057: a worker marks its own kind": ("RebalanceMarks.java", [
        ("affinities & ~PageLayout.affineBit(self) : 0;", "affinities : 0;"),
    ]),
    "ADR 0059: a keeping worker moves nothing (ADR 0041's rule)": ("RebalanceMoves.java", [
        ("return policy.judgesShape() ? rebalance.pickSettled(siblings, self, settled, clock.nanoTime()) : self;",
         "return self;"),
    ]),
    "ADR 0059: a keeping look counts open connections": ("Rebalance.java", [
        ("long load = Counts.pending(counts) + (busy & AcceptShare.SETTLED_MASK);", "long load = Counts.load(counts);"),
    ]),
    "ADR 0059: a sibling's pending not counted with its settled": ("Rebalance.java", [
        ("long load = Counts.pending(counts) + (busy & AcceptShare.SETTLED_MASK);", "long load = busy & AcceptShare.SETTLED_MASK;"),
    ]),
    "ADR 0059: a balancing look targets a keeping sibling by open connections alone": ("Rebalance.java", [
        ("if (!evensSettled(siblings, i, settled)) {", "if (false) {"),
    ]),
    "ADR 0059: a keeping look moves though a keeping sibling holds more settled": ("Rebalance.java", [
        ("if (keeping && load > settled) {", "if (false) {"),
    ]),
    "ADR 0059: a keeping look targets a sibling that has left or not started": ("Rebalance.java", [
        ("            if (state == LEFT || state == NOT_STARTED) {\n                continue;\n            }\n            long counts = siblings.counts(i);",
         "            long counts = siblings.counts(i);"),
    ]),
    "ADR 0059: a keeping worker's move takes any idle connection": ("loop/WorkerLoop.java", [
        ("if (!(share.settledOnly() ? connections.moveSettled(send)", "if (!(false ? connections.moveSettled(send)"),
    ]),
    "ADR 0059: the settled count never published": ("loop/WorkerLoop.java", [
        ("        share.publishSettled(connections.settled());\n", ""),
    ]),
    "ADR 0059: the settled count published after the pass end's retire": ("loop/WorkerLoop.java", [
        ("        share.publishSettled(connections.settled());\n        share.passEnd(connections.open());",
         "        share.passEnd(connections.open());\n        share.publishSettled(connections.settled());"),
    ]),
}

def run_tests():
    out = subprocess.run(["mvn", "-B", "-q", "-o", "-pl", "core", "test"], capture_output=True, text=True).stdout
    if "COMPILATION ERROR" in out:
        sys.exit("a mutant does not compile; fix the mutant:\n" + out[-3000:])
    return sorted(set(re.findall(r"^\[ERROR\] m0\.core\.([\w.]+) -- Time elapsed", out, re.M)))

if len(sys.argv) > 1:
    MUTANTS = {k: v for k, v in MUTANTS.items() if sys.argv[1] in k}
survivors = []
for name, (fname, edits) in MUTANTS.items():
    path = CORE / fname
    original = path.read_text()
    text = original
    for old, new in edits:
        if old not in text:
            sys.exit(f"mutant '{name}': pattern not found in {fname}: {old[:60]!r}")
        text = text.replace(old, new)
    try:
        path.write_text(text)
        failed = run_tests()
    finally:
        path.write_text(original)
    print(f"{name}\n    caught by: {', '.join(failed) if failed else 'NOTHING'}", flush=True)
    if not failed:
        survivors.append(name)
print(f"{len(MUTANTS) - len(survivors)} of {len(MUTANTS)} mutants caught")
sys.exit(1 if survivors else 0)
