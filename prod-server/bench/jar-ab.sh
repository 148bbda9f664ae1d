#!/usr/bin/env bash
# Two builds side by side under a connection-close hello: share and race from the jar before a
# change (BEFORE_JAR) and after it (the current build, or M0SERVE_JAR), beside nginx 1.22;
# server CPU per request, arms rotated round by round (lib.sh's cpu_rounds).
#   BEFORE_JAR=/tmp/before.jar prod-server/bench/jar-ab.sh [rounds=3] [seconds=4] [workers=2] [pause=3]
# Make the before jar with: git worktree add /tmp/before REV && mvn -q -f /tmp/before -pl prod-server -am package -DskipTests
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
for a in $ARMS; do wrk -t2 -c32 -H 'Connection: close' -d3s "http://127.0.0.1:${PORT[$a]}/" >/dev/null; sleep 2; done
WRK_ARGS=(-H 'Connection: close'); RUN_PAUSE=$PAUSE
sides=(); for a in $ARMS; do sides+=("$a:${PORT[$a]}:${PID[$a]}"); done
cpu_rounds "$ROUNDS" "$SECS" "${sides[@]}"
n=$(awk -v t="${TCK[nginx]}" -v q="${REQ[nginx]}" -v hz="$TICK" 'BEGIN{print t/hz*1e6/q}')
for a in $ARMS; do
  awk -v a="$a" -v t="${TCK[$a]}" -v q="${REQ[$a]}" -v hz="$TICK" -v n="$n" -v s="$SECS" -v r="$ROUNDS" \
    'BEGIN{u=t/hz*1e6/q; printf "%-13s %7.2f us/req  %.3f x nginx  %.0f req/s\n", a, u, u/n, q/s/r}'
done
echo "# load after: $(loadavg)"
