#!/usr/bin/env bash
# What --metrics-bind and --access-log cost a request: keep-alive hello CPU per request of three
# servers started side by side from one jar (1 worker, --blocking-threads 0): off, metrics on,
# access log on (to a file in a temp dir), measured in alternating rounds of wrk -t2 -c32 so that
# the machine's load falls on every arm alike. Quote the ratios, not the microseconds.
#
#   prod-server/bench/operator-cost.sh [rounds=4] [seconds=5]
#
# Needs wrk, python3 and the jar (mvn -q -pl prod-server -am package -DskipTests).
set -euo pipefail
ROUNDS=${1:-4}
SECS=${2:-5}
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
HERE=$(cd "$BENCH_DIR/.." && pwd)
JAR="${M0SERVE_JAR:-$HERE/target/m0serve.jar}"
command -v wrk >/dev/null || { echo "wrk missing: apt-get install -y wrk" >&2; exit 1; }
[ -f "$JAR" ] || { echo "$JAR missing" >&2; exit 1; }
TICK=$(getconf CLK_TCK)
WORK=$(mktemp -d /tmp/m0-opcost.XXXXXX)
source "$BENCH_DIR/lib.sh"
export M0SERVE_WORKER_HEAP="${M0SERVE_WORKER_HEAP:-64m}" # the workers' default options (serial GC) stay
trap 'bench_cleanup; rm -rf "$WORK"' EXIT

OFF=$(free_port); m0serve_start off "$OFF" --workers 1 --blocking-threads 0
MET=$(free_port); m0serve_start metrics "$MET" --workers 1 --blocking-threads 0 --metrics-bind 127.0.0.1:0
LOG=$(free_port); m0serve_start log "$LOG" --workers 1 --blocking-threads 0 --access-log "$WORK/access.log"
SIDES=(off:"$OFF":"$BENCH_PID_off" metrics:"$MET":"$BENCH_PID_metrics" log:"$LOG":"$BENCH_PID_log")
MURL=$(grep -o 'http://[0-9.:]*/metrics' "$WORK/metrics.out")
for s in "${SIDES[@]}"; do IFS=: read -r n p _ <<<"$s"; wrk -t2 -c32 -d10s "http://127.0.0.1:$p/" >/dev/null; done # warm-up: JIT
declare -A REQ TCK
echo "keep-alive hello, wrk -t2 -c32, ${ROUNDS}x${SECS}s alternating; load $(loadavg)"
# A scrape per round, as Prometheus would (every 15 s or so).
ROUND_HOOK='curl -s "$MURL" >/dev/null'
cpu_rounds "$ROUNDS" "$SECS" "${SIDES[@]}"
for n in metrics log; do
  awk -v a="${TCK[$n]}" -v x="${REQ[$n]}" -v b="${TCK[off]}" -v y="${REQ[off]}" -v n="$n" \
    'BEGIN{ printf "ratio %s/off CPU per request: %.3f\n", n, (a/x)/(b/y) }'
done
echo "access log lines: $(wc -l <"$WORK/access.log")"
