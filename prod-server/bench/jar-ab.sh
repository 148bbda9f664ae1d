#!/usr/bin/env bash
# Two builds side by side under a connection-close hello: share and race from the jar before a
# change (BEFORE_JAR) and after it (the current build, or M0SERVE_JAR), beside nginx 1.22;
# server CPU per request, arms rotated round by round (lib.sh's close_rounds_vs_nginx).
#   BEFORE_JAR=/tmp/before.jar prod-server/bench/jar-ab.sh [rounds=3] [seconds=4] [workers=2] [pause=3]
# WARM=15 seconds of unmeasured load per arm first (the JIT). Make the before jar with: git worktree add /tmp/before REV && mvn -q -f /tmp/before -pl prod-server -am package -DskipTests
set -euo pipefail
ROUNDS=${1:-3}; SECS=${2:-4}; W=${3:-2}; PAUSE=${4:-3}
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
AFTER=${M0SERVE_JAR:-$BENCH_DIR/../target/m0serve.jar}
BEFORE=${BEFORE_JAR:?BEFORE_JAR: the jar built before the change}
for j in "$AFTER" "$BEFORE"; do [ -f "$j" ] || { echo "$j missing" >&2; exit 1; }; done
WORK=$(mktemp -d /tmp/m0-jar-ab.XXXXXX)
. "$BENCH_DIR/lib.sh"
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
TICK=$(getconf CLK_TCK)
declare -A PORT PID REQ TCK
ARMS="share_before share_after race_before race_after nginx"
for a in $ARMS; do PORT[$a]=$(free_port); done
for a in share_before share_after race_before race_after; do
  if [[ $a == *_before ]]; then JAR=$BEFORE; else JAR=$AFTER; fi
  m0serve_start "$a" "${PORT[$a]}" --workers "$W" --blocking-threads 0 --accept-policy "${a%_*}"
done
nginx_start nginx "${PORT[nginx]}" "$W"
for a in $ARMS; do v=BENCH_PID_$a; PID[$a]=${!v}; done
echo "# close hello, $W workers, wrk -t2 -c32 -H Connection: close -d${SECS}s x$ROUNDS; before $BEFORE; $(date -u +%FT%TZ); load $(loadavg)"
close_rounds_vs_nginx "$ROUNDS" "$SECS" "$PAUSE" $ARMS
echo "# load after: $(loadavg)"
