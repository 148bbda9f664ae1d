#!/usr/bin/env bash
# Issue 10, balance that holds when it matters: what rebalance buys and what it costs.
#   1. Cold first burst: FRESH fresh 2-worker servers per arm (--rebalance on / off, started in
#      alternation); on each, right after every worker serves, 32 keep-alive connections at
#      once, /pid asked on each ("landed"), then again on the same connections 1 s later
#      ("settled"). Count the exact 16/16.
#   2. 4 workers (on this 2-core machine), 10 bursts of 64 from the first round, per arm:
#      landed and settled (1 s), count the exact 16/16/16/16.
#   3. Keep-alive hello CPU per request, rebalance on vs off: two servers side by side, the same
#      jar, wrk -t2 -c32 in alternation, utime+stime of each tree per request (goal <= +1 %).
#   4. Connection-close share / race req/s: bench/close-compare.sh, unchanged (goal >= 0.97).
# Every row carries the load average: this machine is shared, only side-by-side ratios count.
#
#   prod-server/bench/rebalance.sh [fresh=20] [keepalive-rounds=6] [seconds=4]
#
# Needs wrk and the jar (mvn -q -pl prod-server package -DskipTests; or M0SERVE_JAR=...).
set -euo pipefail
FRESH=${1:-20}
KA_ROUNDS=${2:-6}
SECS=${3:-4}
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
JAR="${M0SERVE_JAR:-$BENCH_DIR/../target/m0serve.jar}"
[ -f "$JAR" ] || { echo "$JAR missing: mvn -q -pl prod-server package -DskipTests" >&2; exit 1; }
command -v wrk >/dev/null || { echo "wrk missing: apt-get install -y wrk" >&2; exit 1; }
WORK=$(mktemp -d /tmp/m0-rebalance.XXXXXX)
. "$BENCH_DIR/lib.sh"
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
TICK=$(getconf CLK_TCK)

# arm_start NAME ARM PORT WORKERS: the jar with --rebalance ARM (lib.sh's landing functions call it)
arm_start() { m0serve_start "$1" "$3" --workers "$4" --rebalance "$2"; }

echo "# rebalance bench; $(date -u +%FT%TZ); $(nproc) cores; load average before: $(loadavg)"

echo "## 1. cold first burst, 2 workers x32, $FRESH fresh servers per arm (landed -> settled after 1 s)"
cold_first_bursts "$FRESH" on off
echo "# load average: $(loadavg)"

echo "## 2. 4 workers on $(nproc) cores, 10 bursts of 64 from the first round (landed -> settled after 1 s)"
four_worker_bursts on off

echo "## 3. keep-alive hello, 2 workers, wrk -t2 -c32 -d${SECS}s, $KA_ROUNDS rounds in alternation: server CPU per request"
declare -A PORT PID TICKS=([on]=0 [off]=0) REQS=([on]=0 [off]=0)
for arm in on off; do
  PORT[$arm]=$(free_port)
  m0serve_start "ka_$arm" "${PORT[$arm]}" --workers 2 --blocking-threads 0 --rebalance "$arm"
  PID[$arm]=$(eval echo "\$BENCH_PID_ka_$arm")
  wrk -t2 -c32 -d2s "http://127.0.0.1:${PORT[$arm]}/" >/dev/null  # warm-up (JIT)
done
printf "| round | arm | req/s | CPU us/req | load |\n|---|---|---|---|---|\n"
for r in $(seq "$KA_ROUNDS"); do
  if (( r % 2 )); then order=(on off); else order=(off on); fi
  for arm in "${order[@]}"; do
    before=$(tree_ticks "${PID[$arm]}")
    wrk -t2 -c32 -d"${SECS}s" "http://127.0.0.1:${PORT[$arm]}/" >"$WORK/wrk.txt"
    after=$(tree_ticks "${PID[$arm]}")
    reqs=$(awk '/requests in/ {print $1}' "$WORK/wrk.txt")
    us=$(awk -v t=$((after - before)) -v n="$reqs" -v hz="$TICK" 'BEGIN{printf "%.2f", t/hz*1e6/n}')
    printf "| %d | %s | %s | %s | %s |\n" "$r" "$arm" "$(wrk_rps "$WORK/wrk.txt")" "$us" "$(loadavg)"
    TICKS[$arm]=$(( TICKS[$arm] + after - before )); REQS[$arm]=$(( REQS[$arm] + reqs ))
  done
done
awk -v a="${TICKS[on]}" -v n="${REQS[on]}" -v b="${TICKS[off]}" -v m="${REQS[off]}" -v hz="$TICK" 'BEGIN{
  x = a/hz*1e6/n; y = b/hz*1e6/m;
  printf "keep-alive CPU per request: on %.2f us, off %.2f us; on / off = %.3f (goal <= 1.01)\n", x, y, x/y }'
bench_stop "$BENCH_PID_ka_on"; bench_stop "$BENCH_PID_ka_off"

echo "## 4. connection-close, share / race (bench/close-compare.sh 3 4 5)"
M0SERVE_JAR="$JAR" "$BENCH_DIR/close-compare.sh" 3 4 5
echo "# load average after: $(loadavg)"
