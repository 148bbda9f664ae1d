#!/usr/bin/env python3
"""PIT's mutations.xml as per-class Markdown tables (docs/mutation.md). Killed as PIT counts it
(KILLED, TIMED_OUT, MEMORY_ERROR, RUN_ERROR), with the timed-out ones also shown on their own;
score: killed of generated; strength: killed of those a test reaches. Nested classes and lambdas
count with their top-level class.

    python3 docs/pit-table.py core/target/pit-reports/mutations.xml
    python3 docs/pit-table.py CORE.xml SIM.xml [SIM2.xml ...] [--survivors docs/mutation-survivors.txt]
    python3 docs/pit-table.py CORE.xml [SIM.xml ...] --equivalent docs/mutation-equivalents.tsv [--gate]

The first file is core's run; the rest are the simulator's run, one file or one per class group
(-Dpit.targetClasses=...), merged. Given both runs it adds a third table, killed by either, and
with --survivors writes the mutants neither run kills (class, line, method, mutator, description).

--equivalent names the mutants argued equivalent (docs/mutation-equivalents.tsv: class, method,
mutator, description, where it is argued; no line numbers, so an edit elsewhere in the class does
not unmatch them) and adds the goal's table: per class, killed of the mutants not equivalent.
--gate (CI) exits 1 when a mutant that no run kills is not in that list, when an entry of the list
matches no surviving mutant (stale), or when a protocol class is under 90 %.
"""
import collections, sys
import xml.etree.ElementTree as ET

KILLED = {"KILLED", "TIMED_OUT", "MEMORY_ERROR", "RUN_ERROR"}
MUTATORS = "org.pitest.mutationtest.engine.gregor.mutators."


def load(paths):
    """(class, method, descriptor, mutator, indexes, line) -> (status, description), over all paths."""
    rows = {}
    for path in paths:
        for m in ET.parse(path).getroot():
            key = tuple(m.findtext(t) for t in ("mutatedClass", "mutatedMethod", "methodDescription", "mutator"))
            key += (",".join(i.text for i in m.find("indexes")), m.findtext("lineNumber"))
            if key in rows:
                sys.exit(f"{path}: a mutant met twice ({key}): the files overlap")
            rows[key] = (m.get("status"), m.findtext("description"))
    return rows


def short(cls):
    return cls.split("$")[0].replace("m0.core.", "")


def count(rows):
    per = collections.defaultdict(collections.Counter)
    for key, (status, *_) in rows.items():
        c = per[short(key[0])]
        c["gen"] += 1
        c["killed"] += status in KILLED
        c["timed"] += status == "TIMED_OUT"
        c["nocov"] += status == "NO_COVERAGE"
        c["survived"] += status == "SURVIVED"
    return per


def table(rows, title, extra=None):
    """extra: (header, per-class counter key) columns added after killed."""
    per = count(rows)
    extra = extra or []
    if extra:
        for cls, c in extra_counts(rows, extra).items():
            per[cls].update(c)
    print(f"\n{title}\n")
    print("| class | generated | killed | of which timed out |" + "".join(f" {h} |" for h, _ in extra)
          + " survived | no coverage | score | strength |")
    print("|---|" + "---:|" * (7 + len(extra)))
    tot = collections.Counter()
    for cls in sorted(per, key=lambda c: (-per[c]["gen"], c)):
        tot.update(per[cls])
        print(row(cls, per[cls], extra))
    print(row("**all**", tot, extra))


def extra_counts(rows, extra):
    per = collections.defaultdict(collections.Counter)
    for key, (_, _, *flags) in rows.items():
        for (_, name), flag in zip(extra, flags):
            per[short(key[0])][name] += flag
    return per


def row(name, c, extra):
    reached = c["gen"] - c["nocov"]
    score = 100 * c["killed"] / c["gen"] if c["gen"] else 0
    strength = 100 * c["killed"] / reached if reached else 0
    cols = "".join(f" {c[k]} |" for _, k in extra)
    return (f"| {name} | {c['gen']} | {c['killed']} | {c['timed']} |{cols} {c['survived']} | {c['nocov']} |"
            f" {score:.0f} % | {strength:.0f} % |")


def together(core, sim):
    """Each of core's mutants, killed if either run kills it (and how), else as it fared."""
    out = {}
    for k, (a, desc) in core.items():
        b = sim.get(k, (None, desc))[0]
        if a in KILLED or b in KILLED:
            status = "TIMED_OUT" if (a == "TIMED_OUT" or a not in KILLED) and (b == "TIMED_OUT" or b not in KILLED) else "KILLED"
        else:
            status = "SURVIVED" if "SURVIVED" in (a, b) else a
        out[k] = (status, desc, a in KILLED, a not in KILLED and b in KILLED)
    return out


def survivors(core, sim, path):
    both = sorted(((k, core[k][0], sim.get(k, ("NOT_RUN",))[0], core[k][1]) for k in core
                   if core[k][0] not in KILLED and sim.get(k, ("NOT_RUN",))[0] not in KILLED),
                  key=lambda r: (short(r[0][0]), int(r[0][5]), r[0][1], r[0][3]))
    per = collections.Counter(short(k[0]) for k, *_ in both)
    with open(path, "w") as f:
        f.write("# Mutants of core that neither core's tests nor the simulator's PitWorldsTest kill.\n"
                "# Generated by docs/pit-table.py (docs/mutation.md has the commands); do not edit.\n"
                "# class, line, method, mutator, description [core's status / the sim's status]\n#\n")
        for cls in sorted(per, key=lambda c: (-per[c], c)):
            f.write(f"# {cls}: {per[cls]}\n")
        f.write(f"# all: {len(both)}\n\n")
        for k, a, b, desc in both:
            f.write(f"{k[0].replace('m0.core.', '')}\t{k[5]}\t{k[1]}\t{k[3].replace(MUTATORS, '')}\t{desc}\t[{a} / {b}]\n")
    print(f"\n{len(both)} mutants survive both runs: {path}")
    print(", ".join(f"{c} {n}" for c, n in sorted(per.items(), key=lambda x: (-x[1], x[0]))))


PROTOCOL = ["AcceptShare", "AcceptPublication", "Receipts", "PassStamp", "Leaving", "RebalanceMoves",
            "RebalanceMarks", "ListenerTurns", "Siblings", "SharePolicy", "FountainPolicy", "Rebalance", "Heal",
            "HandOff", "GiveUp", "LoadShape", "Counts", "loop.WorkerLoop"]


def load_equivalent(path):
    """(class, method, mutator, description) -> how many such mutants are argued equivalent."""
    want = collections.Counter()
    with open(path) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                cls, method, mutator, desc = line.rstrip("\n").split("\t")[:4]
                want[(cls, method, mutator, desc)] += 1
    return want


def goal(rows, equivalent, gate):
    """The goal's table over rows (one run, or killed by either); returns the problems found."""
    left = collections.Counter(equivalent)
    per = collections.defaultdict(collections.Counter)
    unargued = []
    for key in sorted(rows, key=lambda k: (k[0], k[1], k[5])):
        status, desc = rows[key][:2]
        cls = short(key[0])
        c = per[cls]
        c["gen"] += 1
        if status in KILLED:
            c["killed"] += 1
            continue
        sig = (cls, key[1], key[3].replace(MUTATORS, ""), desc)
        if left[sig] > 0:
            left[sig] -= 1
            c["equiv"] += 1
        else:
            c["other"] += 1
            unargued.append(f"{cls}.{key[1]} line {key[5]}: {sig[2]}: {desc} ({status})")
    print("\nthe goal: killed of the mutants not argued equivalent\n")
    print("| class | generated | killed | equivalent | neither | killed of non-equivalent |")
    print("|---|---:|---:|---:|---:|---:|")
    problems = []
    for cls in sorted(per, key=lambda c: (c not in PROTOCOL, -per[c]["gen"], c)):
        c = per[cls]
        pct = 100 * c["killed"] / (c["gen"] - c["equiv"]) if c["gen"] > c["equiv"] else 100
        mark = " (protocol)" if cls in PROTOCOL else ""
        print(f"| {cls}{mark} | {c['gen']} | {c['killed']} | {c['equiv']} | {c['other']} | {pct:.1f} % |")
        if cls in PROTOCOL and pct < 90:
            problems.append(f"{cls}: {pct:.1f} % of its non-equivalent mutants killed, under the goal's 90 %")
    problems += [f"not killed and not argued equivalent: {u}" for u in unargued]
    problems += [f"stale entry of the equivalent list (no such surviving mutant): {sig}" for sig, n in left.items()
                 for _ in range(n)]
    if gate:
        for p in problems:
            print("GATE: " + p)
    return problems


args = sys.argv[1:]
out = None
equivalent = None
gate = "--gate" in args
if gate:
    args.remove("--gate")
if "--equivalent" in args:
    i = args.index("--equivalent")
    equivalent = load_equivalent(args[i + 1])
    del args[i:i + 2]
if "--survivors" in args:
    i = args.index("--survivors")
    out = args[i + 1]
    del args[i:i + 2]
core = load(args[:1])
table(core, args[0])
measured = core
if len(args) > 1:
    sim = load(args[1:])
    table(sim, " + ".join(args[1:]))
    missing = sum(k not in sim for k in core)
    if missing:
        print(f"\n{missing} of core's mutants are in no file of the simulator's run (not run there)")
    measured = together(core, sim)
    table(measured, "killed by either run", [("by core", "core"), ("by the sim only", "simonly")])
    if out:
        survivors(core, sim, out)
if equivalent is not None:
    problems = goal(measured, equivalent, gate)
    if gate and problems:
        sys.exit(f"{len(problems)} problem(s): docs/mutation.md says how to kill a mutant or argue it equivalent")
    if gate:
        print("\nGATE: every mutant is killed or argued equivalent, and every protocol class is at 90 % or more")
