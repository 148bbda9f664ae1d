#!/usr/bin/env bash
# Draws figures.sh's rows (its FIGURES_TSV) with gnuplot (Debian gnuplot-nox), into DIR as SVG:
#   cpu-vs-load.svg  server CPU per request against offered load (the "open" rows): a new
#                    connection per request at 20..100 % of nginx's capacity; share race fountain nginx
#   cpu-ratio.svg    CPU per request ÷ nginx's, per load and worker count (the "cpu" rows)
#   landing.svg      where each burst landed at the first ask (the "landing" rows): one bar per burst,
#                    one block per worker, 16/16 (or 16/16/16/16) is exact
#   prod-server/bench/plot.sh figures.tsv [DIR=docs/figures]
set -euo pipefail
TSV=${1:?figures.tsv (prod-server/bench/figures.sh writes it)}
DIR=${2:-docs/figures}
command -v gnuplot >/dev/null || { echo "gnuplot missing: apt-get install -y gnuplot-nox" >&2; exit 1; }
mkdir -p "$DIR"
D=$(mktemp -d /tmp/m0-plot.XXXXXX)
trap 'rm -rf "$D"' EXIT
# several runs' rows may be concatenated: each plot is titled with the stamp of the run its rows came from
# the stamp of the run a kind of rows came from: the last meta line before its first row
when_of() { awk -F'\t' -v kind="$1" '$1 == "meta" {m = $2 ", commit " $3 ", " $4 " cores"} $1 == kind {print m; exit}' "$TSV"; }
FONT='font "sans,11"'

# 1. open loop: one data block per arm (gnuplot's index), x = offered req/s, y = µs/req
ARMS="share race fountain nginx"
if grep -q '^open' "$TSV"; then
  for a in $ARMS; do
    awk -F'\t' -v a="$a" '$1 == "open" && $3 == a {print $4, $6}' "$TSV"
    printf '\n\n'
  done >"$D/open.dat"
  W=$(awk -F'\t' '$1 == "open" {print $2; exit}' "$TSV")
  gnuplot <<GP
set terminal svg size 760,420 $FONT background "white"
set output "$DIR/cpu-vs-load.svg"
set title "Server CPU per request against offered load: $W workers, a new connection per request\n{/*0.8 $(when_of open)}"
set xlabel "offered load (new connections/s, h2load rate mode)"
set ylabel "server CPU per request (µs)"
set key top right
set grid
set yrange [0:*]
plot for [i=0:3] "$D/open.dat" index i using 1:2 with linespoints lw 2 pt 7 title word("$ARMS", i + 1)
GP
fi

# 2. ratio to nginx: rows "load, W workers", one bar per arm
if grep -q '^cpu' "$TSV"; then
  arms=$(awk -F'\t' '$1 == "cpu" && $4 != "nginx" && !seen[$4]++ {printf "%s ", $4}' "$TSV")
  awk -F'\t' -v arms="$arms" 'BEGIN { n = split(arms, A, " ") }
    $1 == "cpu" { key = $2 " " $3 "w"; if (!(key in r)) order[++k] = key; r[key]; v[key, $4] = $6 }
    END { printf "scenario"; for (i = 1; i <= n; i++) printf " %s", A[i]; print "";
      for (j = 1; j <= k; j++) { printf "\"%s\"", order[j]
        for (i = 1; i <= n; i++) { x = v[order[j], A[i]]; printf " %s", (x == "" ? "-" : x) } print "" } }' \
    "$TSV" >"$D/ratio.dat"
  n=$(wc -w <<<"$arms")
  gnuplot <<GP
set terminal svg size 760,420 $FONT background "white"
set output "$DIR/cpu-ratio.svg"
set title "Server CPU per request ÷ nginx's (below 1: cheaper than nginx), hello, wrk -t2 -c32\n{/*0.8 $(when_of cpu)}"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set datafile missing "-"
set ylabel "÷ nginx"
set logscale y
set yrange [0.3:*]
set grid y
set key top left
set arrow from graph 0, first 1 to graph 1, first 1 nohead lw 2 dt 2
plot for [i=2:$((n + 1))] "$D/ratio.dat" using i:xtic(1) title columnheader(i)
GP
fi

# 3. landing: one stacked bar per burst, blocks = connections per worker (largest first)
if grep -q '^landing' "$TSV"; then
  awk -F'\t' '$1 == "landing" { split($4, c, "/");
      printf "\"%s %s\"", ($2 == "cold" ? "fresh" : "4w"), $3; for (i = 1; i <= 4; i++) printf " %s", (c[i] == "" ? 0 : c[i]); print "" }' \
    "$TSV" >"$D/landing.dat"
  cold=$(awk -F'\t' '$1 == "landing" && $2 == "cold"' "$TSV" | wc -l)
  gnuplot <<GP
set terminal svg size 900,380 $FONT background "white"
set output "$DIR/landing.svg"
set title "Where each burst landed at the first ask (share, the default): $cold fresh 2-worker servers × 32, then 4 workers × 64\n{/*0.8 $(when_of landing)}"
set style data histogram
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.8
set ylabel "connections per worker"
set xtics rotate by -60 font ",8"
set yrange [0:70]
set ytics 8
set grid y
set key off
plot for [i=2:5] "$D/landing.dat" using i:xtic(1)
GP
fi
ls -1 "$DIR"/*.svg
