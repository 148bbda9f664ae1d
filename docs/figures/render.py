#!/usr/bin/env python3
"""Renders the current figures from figures.sh's rows (docs/figures/figures.tsv) into the docs.

    python3 docs/figures/render.py            # print both blocks
    python3 docs/figures/render.py --write    # rewrite the blocks in place
    python3 docs/figures/render.py --check    # exit 1, with a diff, where a block differs (CI)

A block is the text between <!-- figures:NAME:begin --> and <!-- figures:NAME:end -->:
"bench" in docs/bench.md, "readme" in README.md. The
numbers in them come from the TSV only, so the docs cannot drift from the run they quote.

The TSV's rows (tab-separated; prod-server/bench/figures.sh writes them, "-" is a field a run
did not record, "#" starts a comment):
    meta       date commit cores                     the run the rows after it come from
    cpu        load workers arm us/req ratio req/s   one arm's total over its rounds
    cpu-round  load workers arm round requests seconds us/req p50-ms p99-ms
    landing    cold|four n landed settled            "16/16": connections per worker
    mixed      arm round keep-alive-req close-req us/req readings...
    mixed-ka   arm split
    open       workers arm rate percent us/req
    embed, embed-ratio, embed-open                  prod-server/bench/embed-tsv.py's (issue 48's
                                                    embedding rows, from embed.sh's output)
"""
import argparse
import difflib
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TSV = os.path.join(ROOT, "docs", "figures", "figures.tsv")
TARGETS = [("docs/bench.md", "bench", True), ("README.md", "readme", True)]
NAMES = {"share": "m0 share", "race": "m0 race", "fountain": "m0 fountain",
         "nginx": "nginx", "netty": "Netty", "uvicorn": "uvicorn"}
EMBED_NAMES = {"auto": "m0, 2 workers (defaults)", "off": "m0, 2 workers, `--cpu-affinity off`",
               "one": "m0, 1 worker", "race": "m0 race", "fountain": "m0 fountain",
               "jvm": "one JVM, 4 threads", "node": "Node cluster, 2 workers", "uvicorn": "uvicorn, 2 workers"}
LOADS = {"close": "connection-close", "keep-alive": "keep-alive"}
NONE = "—"


def read(path):
    runs, rows = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            row = line.split("\t")
            if row[0] == "meta":
                runs.append(row[1:4])
            else:
                rows.append((len(runs) - 1, row))
    return runs, rows


def num(s):
    return None if s in ("-", "") else float(s)


def ratio(x):
    if x is None:
        return NONE
    return f"{x:.1f}×" if x >= 10 else f"{x:.2f}×" if x >= 2 else f"{x:.3f}×"


def ms(x):
    return NONE if x is None else f"{x:.1f}" if x >= 10 else f"{x:.2f}"


def grouped(x):
    return NONE if x is None else f"{x:,.0f}".replace(",", " ")


def spread(values, fmt):
    values = [v for v in values if v is not None]
    if len(values) < 2:
        return NONE
    return f"{fmt(min(values)).rstrip('×')}–{fmt(max(values))}"


def exact(split):
    parts = split.split("/")
    return len(set(parts)) == 1


def run_names(runs, rows):
    """Each run the rows came from: its commit, when it began, and the kinds of row it gave."""
    kinds = {}
    for r, row in rows:
        if r >= 0:
            kind = row[0].replace("cpu-round", "cpu")
            kinds.setdefault(r, []).append("embed" if kind.startswith("embed") else kind)
    return "; ".join(f"{runs[r][1]} at {runs[r][0][:16].replace('T', ' ')} UTC ({', '.join(dict.fromkeys(k))})"
                     for r, k in sorted(kinds.items()))


def cpu_rows(rows):
    """(load, workers) in the TSV's order -> {arm: cpu row}, and the rounds of each arm."""
    table, rounds = {}, {}
    for _, row in rows:
        if row[0] == "cpu":
            table.setdefault((row[1], int(row[2])), {})[row[3]] = row
        elif row[0] == "cpu-round":
            rounds.setdefault((row[1], int(row[2]), row[3]), {})[int(row[4])] = row
    return table, rounds


def bench_block(runs, rows):
    table, rounds = cpu_rows(rows)
    out = [f"Rendered by `docs/figures/render.py` from `docs/figures/figures.tsv`: "
           f"{run_names(runs, rows)}. "
           f"{runs[0][2] if runs else '?'} vCPU, the client on the same machine.", "",
           "| load (wrk -t2 -c32, hello) | workers | server | CPU a request ÷ nginx's | ÷ nginx, round by round | µs CPU a request | requests/s | p50 ms | p99 ms |",
           "|---|---|---|---|---|---|---|---|---|"]
    missing = set()
    for (load, w), arms in table.items():
        base = rounds.get((load, w, "nginx"), {})
        for arm, row in arms.items():
            mine = rounds.get((load, w, arm), {})
            per = [num(r[7]) / num(base[k][7]) for k, r in mine.items()
                   if k in base and num(r[7]) and num(base[k][7])]
            p50 = [num(r[8]) for r in mine.values() if num(r[8]) is not None]
            p99 = [num(r[9]) for r in mine.values() if num(r[9]) is not None]
            cells = [ratio(num(row[5])), spread(per, ratio) if arm != "nginx" else "1",
                     NONE if num(row[4]) is None else row[4], grouped(num(row[6])),
                     ms(statistics.median(p50)) if p50 else NONE,
                     ms(statistics.median(p99)) if p99 else NONE]
            if arm == "share":
                cells[0] = f"**{cells[0]}**"
            missing.update(i for i, c in enumerate(cells) if c == NONE)
            out.append(f"| {LOADS.get(load, load)} | {w} | {NAMES.get(arm, arm)} | " + " | ".join(cells) + " |")
    if missing:
        out += ["", "— : not in the TSV's rows for this run (figures.sh records the rounds, wrk's "
                "p50/p99 and requests/s of every arm since issue 46; the p50/p99 shown are the "
                "median round's)."]
    out += measurements(runs, rows)
    out += open_loop(rows)
    out += embedding(rows)
    return "\n".join(out)


def measurements(runs, rows):
    out = []
    for kind, what in (("cold", "cold first burst: fresh 2-worker servers, 32 keep-alive connections asked at once"),
                       ("four", "4 workers on 2 cores, bursts of 64 from the first")):
        got = [row for _, row in rows if row[0] == "landing" and row[1] == kind]
        if got:
            landed = sum(exact(r[3]) for r in got)
            settled = sum(exact(r[4]) for r in got)
            out.append(f"| {what} | landed exact in **{landed} of {len(got)}**; settled exact 1 s later in {settled} of {len(got)} |")
    mixed = [row for _, row in rows if row[0] == "mixed"]
    after = {row[1]: row[2] for _, row in rows if row[0] == "mixed-ka"}
    if mixed or after:
        parts = []
        for arm in ("share", "race"):
            mine = [r for r in mixed if r[1] == arm]
            readings = [s for r in mine for s in r[6].split()]
            us = [num(r[5]) for r in mine]
            text = NAMES[arm] + ":"
            if mine:
                text += (f" the keep-alive half at 8/8 in {sum(s == '8/8' for s in readings)} of "
                         f"{len(readings)} readings, {spread(us, ms)} µs a request;")
            if arm in after:
                text += f" {after[arm]} once the close clients stop"
            parts.append(text.rstrip(";"))
        if not mixed:
            parts.append("(the rounds' rows are not in the TSV)")
        out.append("| mixed: 16 connection-close clients, joined 1.5 s later by 16 keep-alive ones, 2 workers | "
                   + "; ".join(parts) + " |")
    return ["", "| measurement | result |", "|---|---|"] + out if out else []


def open_loop(rows):
    got = [row for _, row in rows if row[0] == "open"]
    if not got:
        return []
    arms = list(dict.fromkeys(r[2] for r in got))
    rates = list(dict.fromkeys((r[3], r[4]) for r in got))
    value = {(r[2], r[3]): r[5] for r in got}
    out = ["", f"Open loop, {got[0][1]} workers, a new connection per request (h2load rate mode): µs CPU a request.", "",
           "| offered (req/s, % of nginx's connection-close capacity) | " + " | ".join(NAMES.get(a, a) for a in arms) + " |",
           "|---|" + "---|" * len(arms)]
    for rate, pct in rates:
        out.append(f"| {grouped(float(rate))} ({pct} %) | " + " | ".join(value.get((a, rate), NONE) for a in arms) + " |")
    return out


def sizing(ort, bt):
    return f"runtime's defaults, {bt} handler threads" if ort == "0" else f"{ort} runtime thread a call, {bt} handler thread"


def embedding(rows):
    closed = [row for _, row in rows if row[0] == "embed"]
    ratios = [row for _, row in rows if row[0] == "embed-ratio"]
    opened = [row for _, row in rows if row[0] == "embed-open"]
    if not closed and not ratios:
        return []
    out = ["", "Embedding (issue 48): all-MiniLM-L6-v2 as a `--main` app (`prod-server/bench/embed.sh`), "
           "`wrk -t1` POSTs; CPU in ms a request; p50/p99 the median round's.", "",
           "| sizing | connections | server | requests/s | p50 ms | p99 ms | ms CPU a request | client's ms CPU a request |",
           "|---|---|---|---|---|---|---|---|"]
    for r in closed:
        out.append(f"| {sizing(r[1], r[2])} | {r[3]} | {EMBED_NAMES.get(r[4], r[4])} | {r[5]} | {r[8]} | {r[9]} | {r[6]} | {r[7]} |")
    if ratios:
        out += ["", "| sizing | connections | ratio | median of the rounds' | rounds |", "|---|---|---|---|---|"]
        for r in ratios:
            out.append(f"| {sizing(r[1], r[2])} | {r[3]} | {r[4]} {r[5]} | **{r[6]}** | {r[7]} |")
    if opened:
        out += ["", "| open loop (% of the 2-worker default's capacity), sizing | server | offered req/s | p50 ms | p99 ms | ms CPU a request | client's ms CPU a request | errors |",
                "|---|---|---|---|---|---|---|---|"]
        for r in opened:
            out.append(f"| {r[3]} %, {sizing(r[1], r[2])} | {EMBED_NAMES.get(r[4], r[4])} | {r[5]} | {r[8]} | {r[9]} | {r[6]} | {r[7]} | {r[10]} |")
    return out


def embed_said(rows):
    got = {(r[1], r[3], r[4], r[5]): r[6] for _, r in rows if r[0] == "embed-ratio"}
    parts = []
    if ("0", "8", "auto/off", "req/s") in got:
        parts.append(f"with the runtime's defaults, m0's defaults {got[('0', '8', 'auto/off', 'req/s')]}× "
                     "`--cpu-affinity off`'s requests/s")
    for conns in ("8", "32"):
        peers = [f"{got[(o, conns, p, 'req/s')]}× {name}" for o in ("1",) for p, name in
                 (("auto/one", "1 worker"), ("auto/race", "race"), ("auto/node", "Node's cluster"), ("auto/jvm", "one JVM"))
                 if (o, conns, p, "req/s") in got]
        if peers:
            text = f"sized (1 runtime thread a call), c{conns}: 2 workers {', '.join(peers)}"
            if ("1", conns, "auto/node", "p99") in got:
                text += f", p99 {got[('1', conns, 'auto/node', 'p99')]}× Node's"
            parts.append(text)
    if not parts:
        return []
    return ["- Embedding (all-MiniLM-L6-v2, `--main`, wrk POSTs; medians of per-round ratios; "
            "each run's load is in docs/bench.md): " + "; ".join(parts) + "."]


def readme_block(runs, rows):
    table, _ = cpu_rows(rows)

    def said(load):
        got = [(w, arms) for (l, w), arms in table.items() if l == load and "share" in arms]
        ws = " and ".join(str(w) for w, _ in got) + (" worker" if [w for w, _ in got] == [1] else " workers")
        share = " and ".join(ratio(num(arms["share"][5])) for _, arms in got)
        race = [ratio(num(arms["race"][5])) for _, arms in got if "race" in arms]
        return ws, share, (f" (the bare race: {' and '.join(race)})" if race else "")

    out = []
    ws, share, race = said("close")
    if share:
        out.append(f"- Connection-close hello at {ws}: m0 costs {share} nginx's CPU a request{race}.")
    ws, share, _ = said("keep-alive")
    if share:
        out.append(f"- Keep-alive hello at {ws}: {share} nginx's.")
    cold = [r for _, r in rows if r[0] == "landing" and r[1] == "cold"]
    four = [r for _, r in rows if r[0] == "landing" and r[1] == "four"]
    if cold:
        text = (f"- A first burst of 32 keep-alive connections on a fresh 2-worker server landed 16/16 on "
                f"{sum(exact(r[3]) for r in cold)} of {len(cold)} servers")
        if four:
            text += f"; 4 workers, bursts of 64: {sum(exact(r[3]) for r in four)} of {len(four)} exact"
        out.append(text + ".")
    out += embed_said(rows)
    out.append(f"\nFrom `docs/figures/figures.tsv`, the runs {run_names(runs, rows)}, on "
               f"{runs[0][2] if runs else '?'} vCPU shared with the client. The full table, "
               "absolute figures and caveats: [docs/bench.md](docs/bench.md).")
    return "\n".join(out)


def splice(text, name, block, path):
    begin, end = f"<!-- figures:{name}:begin -->", f"<!-- figures:{name}:end -->"
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < i:
        raise SystemExit(f"render.py: {path} has no {begin} ... {end} block")
    return text[:i + len(begin)] + "\n" + block + "\n" + text[j:]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tsv", default=TSV)
    ap.add_argument("--root", default=ROOT)
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    runs, rows = read(args.tsv)
    blocks = {"bench": bench_block(runs, rows), "readme": readme_block(runs, rows)}
    if not (args.write or args.check):
        for name, block in blocks.items():
            print(f"<!-- figures:{name} -->\n{block}\n")
        return 0
    stale = 0
    for rel, name, required in TARGETS:
        path = os.path.join(args.root, rel)
        if not os.path.exists(path) and not required:
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        new = splice(text, name, blocks[name], rel)
        if new == text:
            continue
        if args.write:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
            print(f"render.py: wrote {rel}")
        else:
            stale += 1
            sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), new.splitlines(True), rel, rel + " (rendered)"))
    if stale:
        print(f"render.py: {stale} file(s) differ from {os.path.relpath(args.tsv, args.root)}: "
              "python3 docs/figures/render.py --write", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
