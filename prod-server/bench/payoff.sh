#!/usr/bin/env bash
# The payoff: 2 workers x 2 blocking threads, /sleep?ms=5 (each request holds a pool thread
# 5 ms), wrk -t2 -c32 keep-alive --latency; share vs race side by side, in alternation.
# Under race one worker tends to accept most of wrk's 32 connections and serve them all on its
# two threads; under share each worker gets 16.
#
#   prod-server/bench/payoff.sh [rounds=3] [seconds=10]
set -euo pipefail
ROUNDS=${1:-3}
SECS=${2:-10}
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
JAR="${M0SERVE_JAR:-$BENCH_DIR/../target/m0serve.jar}"
[ -f "$JAR" ] || { echo "$JAR missing: mvn -q -pl prod-server package -DskipTests" >&2; exit 1; }
command -v wrk >/dev/null || { echo "wrk missing: apt-get install -y wrk" >&2; exit 1; }
WORK=$(mktemp -d /tmp/m0-payoff.XXXXXX)
. "$BENCH_DIR/lib.sh"
trap 'bench_cleanup; rm -rf "$WORK"' EXIT

declare -A PORT
PORT[share]=$(free_port); PORT[race]=$(free_port)
m0serve_start share "${PORT[share]}" --workers 2 --blocking-threads 2
m0serve_start race "${PORT[race]}" --workers 2 --blocking-threads 2 --accept-policy race
declare -A PID=([share]=$BENCH_PID_share [race]=$BENCH_PID_race)

WRK=(wrk -t2 -c32 --latency)
PATH_Q='/sleep?ms=5'
echo "# payoff, 2 workers x 2 blocking threads, ${WRK[*]} -d${SECS}s $PATH_Q; $(date -u +%FT%TZ); load average before: $(loadavg)"
for s in share race; do "${WRK[@]}" -d3s "http://127.0.0.1:${PORT[$s]}$PATH_Q" >/dev/null; done  # warm-up (JIT)
printf "| round | server | connections per worker | longest pass ms (share) | req/s | p50 ms | p99 ms | errors | load |\n|---|---|---|---|---|---|---|---|---|\n"
declare -A RPS=([share]=0 [race]=0) P99=([share]=0 [race]=0)
for r in $(seq "$ROUNDS"); do
  if (( r % 2 )); then order=(share race); else order=(race share); fi
  for s in "${order[@]}"; do
    # The page is sampled while wrk connects: a worker seen inside one pass for over 2 ms is
    # skipped by share's pick (marked * in the passes column).
    # Both arms get the sampler (its JVM costs CPU), so neither runs on a quieter machine.
    "${M0_JAVA[@]}" -jar "$JAR" stats --pid "${PID[$s]}" --passes-ms 2000 >"$WORK/passes.txt" &
    statspid=$!
    for _ in $(seq 100); do grep -q '^sampling' "$WORK/passes.txt" && break; sleep 0.05; done
    "${WRK[@]}" -d"${SECS}s" "http://127.0.0.1:${PORT[$s]}$PATH_Q" >"$WORK/wrk.txt" &
    wrkpid=$!
    sleep 2  # wrk's 32 connections are open by now; ss shows which worker process holds each
    spread=$(conn_spread "${PORT[$s]}")
    wait "$statspid" || true
    passes=$(sed -n 's/^longest pass ms over [0-9]* ms: //p' "$WORK/passes.txt")
    wait "$wrkpid"
    rps=$(wrk_rps "$WORK/wrk.txt"); p99=$(wrk_p99_ms "$WORK/wrk.txt")
    p50=$(awk '$1 == "50%" { v=$2; u=v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v);
      printf "%.2f", (u == "us") ? v/1000 : (u == "s") ? v*1000 : v }' "$WORK/wrk.txt")
    [ "$s" = share ] || passes="-"
    printf "| %d | %s | %s | %s | %s | %s | %s | %s | %s |\n" "$r" "$s" "$spread" "$passes" "$rps" "$p50" "$p99" "$(wrk_errors "$WORK/wrk.txt")" "$(loadavg)"
    RPS[$s]=$(awk -v a="${RPS[$s]}" -v b="$rps" 'BEGIN{print a + b}')
    P99[$s]=$(awk -v a="${P99[$s]}" -v b="$p99" 'BEGIN{print a + b}')
  done
done
awk -v a="${RPS[share]}" -v b="${RPS[race]}" -v c="${P99[share]}" -v d="${P99[race]}" -v n="$ROUNDS" 'BEGIN{
  printf "mean req/s: share %.1f, race %.1f; share / race = %.2fx (goal >= 1.9x)\n", a/n, b/n, a/b;
  printf "mean p99: share %.2f ms, race %.2f ms; share / race = %.3f (goal <= 0.2)\n", c/n, d/n, c/d }'
echo "# load average after: $(loadavg)"
