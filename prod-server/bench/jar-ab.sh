#!/usr/bin/env bash
# Two builds side by side under a hello: share and fountain from the jar before a change
# (BEFORE_JAR) and after it (the current build, or M0SERVE_JAR), beside nginx 1.22; server CPU per
# request, arms rotated round by round (lib.sh's rounds_vs_nginx). MODE=close (the default) sends
# Connection: close on every request; MODE=ka keeps the connections (wrk -c32 reuses them).
#   BEFORE_JAR=/tmp/before.jar [MODE=ka] prod-server/bench/jar-ab.sh [rounds=3] [seconds=4] [workers=2] [pause=3]
# WARM=15 seconds of unmeasured load per arm first (the JIT). POLICIES="share fountain" picks the
# arms. Make the before jar with: git worktree add /tmp/before REV && mvn -q -f /tmp/before -pl prod-server -am package -DskipTests
set -euo pipefail
ROUNDS=${1:-3}; SECS=${2:-4}; W=${3:-2}; PAUSE=${4:-3}
MODE=${MODE:-close}
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
AFTER=${M0SERVE_JAR:-$BENCH_DIR/../target/m0serve.jar}
BEFORE=${BEFORE_JAR:?BEFORE_JAR: the jar built before the change}
for j in "$AFTER" "$BEFORE"; do [ -f "$j" ] || { echo "$j missing" >&2; exit 1; }; done
case $MODE in
  close) WRK_ARGS=(-H 'Connection: close') ;;
  ka) WRK_ARGS=(); PAUSE=0 ;;
  *) echo "MODE=$MODE: close or ka" >&2; exit 2 ;;
esac
WORK=$(mktemp -d /tmp/m0-jar-ab.XXXXXX)
. "$BENCH_DIR/lib.sh"
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
TICK=$(getconf CLK_TCK)
declare -A PORT PID REQ TCK
ARMS=""
for p in ${POLICIES:-share fountain}; do ARMS="$ARMS ${p}_before ${p}_after"; done
ARMS="$ARMS nginx"
# NGINX_DEFERRED_ARM=1: nginx with `listen ... deferred` too (its TCP_DEFER_ACCEPT, ADR 0054)
if [ -n "${NGINX_DEFERRED_ARM:-}" ]; then ARMS="$ARMS nginx_deferred"; fi
for a in $ARMS; do PORT[$a]=$(free_port); done
for a in $ARMS; do
  [[ $a == nginx* ]] && continue
  if [[ $a == *_before ]]; then JAR=$BEFORE; else JAR=$AFTER; fi
  m0serve_start "$a" "${PORT[$a]}" --workers "$W" --blocking-threads 0 --accept-policy "${a%_*}"
done
nginx_start nginx "${PORT[nginx]}" "$W"
if [ -n "${NGINX_DEFERRED_ARM:-}" ]; then NGINX_DEFERRED=1 nginx_start nginx_deferred "${PORT[nginx_deferred]}" "$W"; fi
for a in $ARMS; do v=BENCH_PID_$a; PID[$a]=${!v}; done
echo "# $MODE hello, $W workers, wrk -t2 -c32 ${WRK_ARGS[*]} -d${SECS}s x$ROUNDS; before $BEFORE; $(date -u +%FT%TZ); load $(loadavg)"
if [ "$PAUSE" = 0 ]; then PAUSE=""; fi
rounds_vs_nginx "$ROUNDS" "$SECS" "$PAUSE" $ARMS
echo "# load after: $(loadavg)"
