#!/usr/bin/env python3
"""embed.sh's printed output (stdin) -> docs/figures/figures.tsv rows (stdout), so the docs'
embedding rows are the script's figures, not retyped ones:

    prod-server/bench/embed.sh ... | tee run.txt
    python3 prod-server/bench/embed-tsv.py < run.txt >> docs/figures/figures.tsv

Rows (tab-separated; p50/p99 are the median of the rounds', in ms; CPU in ms a request):
    meta        date commit cores                                  the run the rows come from
    embed       ort bt conns arm req/s cpu client p50 p99          an arm's closed-loop totals
    embed-ratio ort bt conns pair what median rounds               RATIOS' lines (what: req/s|p99)
    embed-open  ort bt pct arm offered cpu client p50 p99 errors   the open loop, per arm and rate
"""
import re
import statistics
import sys


def main(lines):
    out, rounds, opens = [], {}, {}
    ort = bt = conns = None
    for line in lines:
        f = line.split()
        if line.startswith("# embed: "):
            m = re.search(r"# embed: (\S+) .* BT=(\S+) ORT=(\d+), wrk -t1 -c(\d+) .*; (\d+) CPUs; (\S+);", line)
            commit, bt, ort, conns, cores, date = m.groups()
            out.append(["meta", date, commit, cores])
        elif f[:1] == ["round"]:  # round R ARM RPS req/s p50 X ms p99 Y ms ...
            rounds.setdefault(f[2], []).append((float(f[6]), float(f[9])))
        elif f[:1] == ["ratio"]:  # ratio PAIR WHAT median M (rounds: ...)
            out.append(["embed-ratio", ort, bt, conns, f[1], f[2], f[4],
                        " ".join(line.split("(rounds:")[1].rstrip(")\n").split())])
        elif f[:1] == ["open"] and len(f) > 3 and f[2] == "round":
            # open P% round R ARM offered N/s done D errors E p50 X ms p99 Y ms
            k = (f[1].rstrip("%"), f[4])
            o = opens.setdefault(k, {"offered": [], "p50": [], "p99": [], "errors": 0})
            o["offered"].append(float(f[6].rstrip("/s")))
            o["errors"] += int(f[10])
            o["p50"].append(float(f[12]))
            o["p99"].append(float(f[15]))
        elif f[:1] == ["open"] and "requests)" in line:  # open P% ARM CPU ms CPU/req client C ms CPU/req (N requests)
            pct, arm = f[1].rstrip("%"), f[2]
            o = opens[(pct, arm)]
            out.append(["embed-open", ort, bt, pct, arm, f"{statistics.median(o['offered']):.0f}", f[3], f[7],
                        f"{statistics.median(o['p50']):.2f}", f"{statistics.median(o['p99']):.2f}", str(o["errors"])])
        elif len(f) > 8 and f[2] == "req/s" and f[6] == "client" and f[0] in rounds:
            # ARM RPS req/s CPU ms CPU/req client C ms CPU/req x BASE: ...
            r = rounds[f[0]]
            out.append(["embed", ort, bt, conns, f[0], f[1], f[3], f[7],
                        f"{statistics.median(p for p, _ in r):.2f}", f"{statistics.median(p for _, p in r):.2f}"])
    for row in out:
        print("\t".join(row))


if __name__ == "__main__":
    main(sys.stdin)
