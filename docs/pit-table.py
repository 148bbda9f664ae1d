#!/usr/bin/env python3
"""PIT's mutations.xml as a per-class Markdown table (docs/mutation.md). Killed as PIT counts it
(KILLED, TIMED_OUT, MEMORY_ERROR, RUN_ERROR); score: killed of generated; strength: killed of
those a test reaches. Nested classes and lambdas count with their top-level class.

    python3 docs/pit-table.py core/target/pit-reports/mutations.xml
    python3 docs/pit-table.py core/target/pit-reports/mutations.xml sim/target/pit-reports/mutations.xml
                                          # the second column set: killed by either run
"""
import collections, sys
import xml.etree.ElementTree as ET

KILLED = {"KILLED", "TIMED_OUT", "MEMORY_ERROR", "RUN_ERROR"}


def load(path):
    """(class, method, descriptor, mutator, indexes) -> status: one mutant, the same in every run."""
    rows = {}
    for m in ET.parse(path).getroot():
        key = tuple(m.findtext(t) for t in ("mutatedClass", "mutatedMethod", "methodDescription", "mutator"))
        key += (",".join(i.text for i in m.find("indexes")), m.findtext("lineNumber"))
        rows[key] = m.get("status")
    return rows


def table(rows, title):
    per = collections.defaultdict(collections.Counter)
    for key, status in rows.items():
        cls = key[0].split("$")[0].replace("m0.core.", "")
        per[cls]["gen"] += 1
        per[cls]["killed"] += status in KILLED
        per[cls]["nocov"] += status == "NO_COVERAGE"
        per[cls]["survived"] += status == "SURVIVED"
    print(f"\n{title}\n")
    print("| class | generated | killed | survived | no coverage | score | strength |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    tot = collections.Counter()
    for cls in sorted(per, key=lambda c: (-per[c]["gen"], c)):
        c = per[cls]
        tot.update(c)
        print(row(cls, c))
    print(row("**all**", tot))


def row(name, c):
    reached = c["gen"] - c["nocov"]
    score = 100 * c["killed"] / c["gen"] if c["gen"] else 0
    strength = 100 * c["killed"] / reached if reached else 0
    return f"| {name} | {c['gen']} | {c['killed']} | {c['survived']} | {c['nocov']} | {score:.0f} % | {strength:.0f} % |"


runs = [load(p) for p in sys.argv[1:]]
for path, rows in zip(sys.argv[1:], runs):
    table(rows, f"{path}")
if len(runs) == 2:
    a, b = runs
    union = {k: ("KILLED" if a[k] in KILLED or b.get(k) in KILLED else
                 "SURVIVED" if a[k] == "SURVIVED" or b.get(k) == "SURVIVED" else a[k]) for k in a}
    table(union, "killed by either run")
