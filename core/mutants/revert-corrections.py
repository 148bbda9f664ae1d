#!/usr/bin/env python3
"""Revert each correction of the seed in core's main code, one at a time, run core's tests,
and print which tests fail. Every correction must be caught by at least one test. The file
is restored after each run (also on error). Run from the repository root:

    python3 core/mutants/revert-corrections.py
"""
import pathlib, re, subprocess, sys

CORE = pathlib.Path("core/src/main/java/m0/core")

MUTANTS = {
    "R5 (pending raised after a successful send)": ("HandOff.java", [
        ("        page.getAndAdd(pendingWord, 1);\n        // B25", "        // B25"),
        ("        if (!sent) {\n            page.getAndAdd(pendingWord, -1); // full or gone: take it back, keep the connection\n            return false;\n        }\n        return true;",
         "        if (!sent) {\n            return false;\n        }\n        page.getAndAdd(pendingWord, 1);\n        return true;"),
        ("            page.getAndAdd(pendingWord, -1);\n            throw e;", "            throw e;"),
        ("        if (page.getVolatile(PageLayout.stateWord(target)) == PageLayout.LEFT) {\n            page.getAndAdd(pendingWord, -1);",
         "        if (page.getVolatile(PageLayout.stateWord(target)) == PageLayout.LEFT) {"),
    ]),
    "B25-send (no state re-read after the raise)": ("HandOff.java", [
        ("page.getVolatile(PageLayout.stateWord(target)) == PageLayout.LEFT", "false"),
    ]),
    "B25-leaver (drain once, no wait on pending - taken)": ("AcceptShare.java", [
        ("return !awaitingStart.isEmpty() || inFlight > 0 && clock.nanoTime() - leaveDeadline < 0;", "return !awaitingStart.isEmpty();"),
    ]),
    "B25-leaver (LEFT stored after the drain's first receive)": ("AcceptShare.java", [
        ("        page.setVolatile(stateWord, PageLayout.LEFT);\n        if (sharing) {", "        if (sharing) {"),
        ("        C connection;\n        while ((connection = receive()) != null) {\n            admit.accept(connection);\n        }\n        retire();",
         "        C connection;\n        while ((connection = receive()) != null) {\n            admit.accept(connection);\n        }\n        page.setVolatile(stateWord, PageLayout.LEFT);\n        retire();"),
    ]),
    "B25-idle (a leaver admits a fresh hand-off instead of forwarding)": ("AcceptShare.java", [
        ("if (handOff.forward(self, connection) >= 0) {", "if (false) {"),
    ]),
    "TAKEN (start does not subtract taken)": ("AcceptShare.java", [
        ("        long taken = page.getVolatile(takenWord);\n", "        long taken = 0;\n"),
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
        ("            page.getAndAdd(pendingWord, -1);\n            throw e;", "            throw e;"),
    ]),
    "lost (a receipt with no connection skipped, never taken)": ("AcceptShare.java", [
        ("            C connection = channel.receive(self);\n            if (connection == null) {\n                return null;\n            }\n",
         "            C connection = channel.receive(self);\n            if (connection == null) {\n                return null;\n            }\n            if (channel.lost(connection)) {\n                continue;\n            }\n"),
    ]),
    "retire order (pending lowered before taken)": ("AcceptShare.java", [
        ("        page.getAndAdd(takenWord, -n);\n        page.getAndAdd(pendingWord, -n);",
         "        page.getAndAdd(pendingWord, -n);\n        page.getAndAdd(takenWord, -n);"),
    ]),
}

def run_tests():
    out = subprocess.run(["mvn", "-B", "-q", "-o", "-pl", "core", "test"], capture_output=True, text=True).stdout
    if "COMPILATION ERROR" in out:
        sys.exit("a mutant does not compile; fix the mutant:\n" + out[-3000:])
    return sorted(set(re.findall(r"^\[ERROR\] m0\.core\.(\w+\.\w+) -- Time elapsed", out, re.M)))

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
print(f"{len(MUTANTS) - len(survivors)} of {len(MUTANTS)} reverted corrections caught")
sys.exit(1 if survivors else 0)
