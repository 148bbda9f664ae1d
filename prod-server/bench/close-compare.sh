#!/usr/bin/env bash
# Connection-close hello: share / race throughput, m0serve --workers 2, built-in `/`, every
# request on a new connection (wrk -H 'Connection: close'), the two servers side by side and
# run in alternation. Each run is short and followed by a pause: a connection-close load leaves
# a TIME_WAIT socket per request, and the next run must not inherit a port shortage.
# Also server CPU per request (utime+stime of supervisor + workers, from /proc).
#
#   prod-server/bench/close-compare.sh [rounds=5] [seconds=4] [pause=10]
set -euo pipefail
ROUNDS=${1:-5}
SECS=${2:-4}
PAUSE=${3:-10}
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
JAR="${M0SERVE_JAR:-$BENCH_DIR/../target/m0serve.jar}"
[ -f "$JAR" ] || { echo "$JAR missing: mvn -q -pl prod-server package -DskipTests" >&2; exit 1; }
command -v wrk >/dev/null || { echo "wrk missing: apt-get install -y wrk" >&2; exit 1; }
WORK=$(mktemp -d /tmp/m0-close.XXXXXX)
. "$BENCH_DIR/lib.sh"
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
TICK=$(getconf CLK_TCK)

declare -A PORT
PORT[share]=$(free_port); PORT[race]=$(free_port)
m0serve_start share "${PORT[share]}" --workers 2 --blocking-threads 0
m0serve_start race "${PORT[race]}" --workers 2 --blocking-threads 0 --accept-policy race
declare -A PID=([share]=$BENCH_PID_share [race]=$BENCH_PID_race)

WRK=(wrk -t2 -c32 -H 'Connection: close')
echo "# connection-close hello, 2 workers, ${WRK[*]} -d${SECS}s, pause ${PAUSE}s; $(date -u +%FT%TZ); load average before: $(loadavg)"
for s in share race; do "${WRK[@]}" -d2s "http://127.0.0.1:${PORT[$s]}/" >/dev/null; sleep "$PAUSE"; done  # warm-up (JIT)
printf "| round | server | req/s | errors | CPU us/req | load |\n|---|---|---|---|---|---|\n"
declare -A SUM=([share]=0 [race]=0) TICKS=([share]=0 [race]=0) REQS=([share]=0 [race]=0)
for r in $(seq "$ROUNDS"); do
  # Alternate which arm goes first, so neither always follows the other's TIME_WAIT.
  if (( r % 2 )); then order=(share race); else order=(race share); fi
  for s in "${order[@]}"; do
    before=$(tree_ticks "${PID[$s]}")
    "${WRK[@]}" -d"${SECS}s" "http://127.0.0.1:${PORT[$s]}/" >"$WORK/wrk.txt"
    after=$(tree_ticks "${PID[$s]}")
    rps=$(wrk_rps "$WORK/wrk.txt"); err=$(wrk_errors "$WORK/wrk.txt")
    reqs=$(awk '/requests in/ {print $1}' "$WORK/wrk.txt")
    us=$(awk -v t=$((after - before)) -v n="$reqs" -v hz="$TICK" 'BEGIN{printf "%.1f", t/hz*1e6/n}')
    printf "| %d | %s | %s | %s | %s | %s |\n" "$r" "$s" "$rps" "$err" "$us" "$(loadavg)"
    SUM[$s]=$(awk -v a="${SUM[$s]}" -v b="$rps" 'BEGIN{print a + b}')
    TICKS[$s]=$(( TICKS[$s] + after - before )); REQS[$s]=$(( REQS[$s] + reqs ))
    sleep "$PAUSE"
  done
done
awk -v a="${SUM[share]}" -v b="${SUM[race]}" -v n="$ROUNDS" 'BEGIN{
  printf "mean req/s: share %.0f, race %.0f; share / race = %.3f (goal >= 0.97)\n", a/n, b/n, a/b }'
awk -v a="${TICKS[share]}" -v n="${REQS[share]}" -v b="${TICKS[race]}" -v m="${REQS[race]}" -v hz="$TICK" 'BEGIN{
  x = a/hz*1e6/n; y = b/hz*1e6/m;
  printf "server CPU per request: share %.1f us, race %.1f us; share / race = %.3f\n", x, y, x/y }'
echo "# load average after: $(loadavg)"
