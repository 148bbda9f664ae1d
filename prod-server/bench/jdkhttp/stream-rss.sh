#!/usr/bin/env bash
# Issue 26: a streamed download's cost in memory. Bench.java's /gib (sendResponseHeaders(200, 0),
# MIB MiB in 64 KiB writes of one reused buffer) served by m0serve --workers 1 --main Bench, read
# by one slow client (curl --limit-rate RATE -o /dev/null). The worker's VmRSS (/proc/PID/status)
# is sampled every second: before (idle, after a few /hello), the maximum during, and after;
# the goal is at most 16 MiB added.
# Run from the worktree root after `mvn -q -o -pl prod-server -am package -DskipTests`:
#   prod-server/bench/jdkhttp/stream-rss.sh [mib=1024] [rate=10M]
# 1024 MiB at 10M (curl's M is MiB/s) takes ~103 s. Env: M0SERVE_JAR.
set -euo pipefail
MIB=${1:-1024}; RATE=${2:-10M}
BENCH_DIR=$(cd "$(dirname "$0")/.." && pwd)
JAR=${M0SERVE_JAR:-$BENCH_DIR/../target/m0serve.jar}
[ -f "$JAR" ] || { echo "$JAR missing: mvn -q -o -pl prod-server -am package -DskipTests" >&2; exit 1; }
WORK=$(mktemp -d /tmp/m0-stream-rss.XXXXXX)
. "$BENCH_DIR/lib.sh"
. "$BENCH_DIR/jdkhttp/common.sh"
ALL_PIDS=(); CURL=""
trap '[ -z "$CURL" ] || kill "$CURL" 2>/dev/null || true; bench_cleanup; check_gone ${ALL_PIDS[@]+"${ALL_PIDS[@]}"}; rm -rf "$WORK"' EXIT
trap 'exit 143' TERM; trap 'exit 130' INT
build_app
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
mib() { awk -v k="$1" 'BEGIN{printf "%.1f", k/1024}'; }

P=$(free_port)
m0_start m0 "$P" --workers 1
SUP=$BENCH_PID_m0
W=$(pgrep -P "$SUP")
ALL_PIDS=("$SUP" "$W")
[ "$(wc -w <<<"$W")" = 1 ] || { echo "expected one worker under $SUP, got: $W" >&2; exit 1; }
echo "# m0serve --workers 1 --main Bench, supervisor $SUP, worker $W; GET /gib?mib=$MIB at curl --limit-rate $RATE; $(date -u +%FT%TZ); load $(loadavg)"
for _ in $(seq 20); do curl -s -o /dev/null "http://127.0.0.1:$P/hello"; done
sleep 3
BEFORE=$(rss_kib "$W")
echo "before: VmRSS $(mib "$BEFORE") MiB"
LIMIT=$(( MIB * 2 / 10 + 120 ))  # twice the time at 10 MiB/s, and two minutes
curl -s --limit-rate "$RATE" -m "$LIMIT" -o /dev/null -w '%{http_code} %{size_download} %{time_total}\n' \
  "http://127.0.0.1:$P/gib?mib=$MIB" >"$WORK/curl.txt" &
CURL=$!
MAX=$BEFORE; i=0
while kill -0 "$CURL" 2>/dev/null; do
  sleep 1; i=$((i + 1))
  r=$(rss_kib "$W") || break
  (( r > MAX )) && MAX=$r
  echo "$i $r" >>"$WORK/samples.txt"
  if (( i % 10 == 0 )); then echo "t=${i}s VmRSS $(mib "$r") MiB (max so far $(mib "$MAX"))"; fi
done
wait "$CURL" || true
CURL=""
read -r code size secs <"$WORK/curl.txt" || true
echo "curl: HTTP ${code:-?}, ${size:-?} bytes in ${secs:-?} s (expected $((MIB * 1048576)) bytes)"
sleep 5
AFTER=$(rss_kib "$W")
echo "| worker VmRSS | MiB |"
echo "|---|---|"
echo "| before | $(mib "$BEFORE") |"
echo "| max during ($i samples, 1 s apart) | $(mib "$MAX") |"
echo "| after (5 s) | $(mib "$AFTER") |"
echo "| added (max − before) | $(mib $((MAX - BEFORE))) |"
awk -v a=$((MAX - BEFORE)) 'BEGIN{ printf "# goal <= 16 MiB added: %s\n", (a <= 16384 ? "met" : "NOT met") }'
echo "# load after: $(loadavg)"
