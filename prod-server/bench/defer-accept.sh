#!/usr/bin/env bash
# --defer-accept (ADR 0054, 0056) side by side under a connection-close hello: one jar with the
# option off, auto (the default: deferred while every worker keeps), at 1, and at 1 with
# --dev-eager-read on (a new connection read at once, as nginx with `deferred` does), beside nginx
# 1.22 with and without `listen ... deferred`; server CPU per
# request and its ratio to plain nginx, arms rotated round by round (lib.sh's rounds_vs_nginx).
#   prod-server/bench/defer-accept.sh [rounds=4] [seconds=4] [workers=2] [pause=3]
# WARM (default 10) seconds of unmeasured load per arm first; M0SERVE_JAR picks the jar.
set -euo pipefail
ROUNDS=${1:-4}; SECS=${2:-4}; W=${3:-2}; PAUSE=${4:-3}
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
JAR=${M0SERVE_JAR:-$BENCH_DIR/../target/m0serve.jar}
[ -f "$JAR" ] || { echo "$JAR missing: mvn -q -pl prod-server -am package -DskipTests" >&2; exit 1; }
WORK=$(mktemp -d /tmp/m0-defer-accept.XXXXXX)
. "$BENCH_DIR/lib.sh"
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
TICK=$(getconf CLK_TCK)
export WARM=${WARM:-10}
declare -A PORT PID REQ TCK
ARMS="off auto defer1 defer1_eager nginx nginx_deferred"
for a in $ARMS; do PORT[$a]=$(free_port); done
m0serve_start off "${PORT[off]}" --workers "$W" --blocking-threads 0 --defer-accept 0
m0serve_start auto "${PORT[auto]}" --workers "$W" --blocking-threads 0
m0serve_start defer1 "${PORT[defer1]}" --workers "$W" --blocking-threads 0 --defer-accept 1
m0serve_start defer1_eager "${PORT[defer1_eager]}" --workers "$W" --blocking-threads 0 \
  --defer-accept 1 --dev-eager-read on
nginx_start nginx "${PORT[nginx]}" "$W"
NGINX_DEFERRED=1 nginx_start nginx_deferred "${PORT[nginx_deferred]}" "$W"
for a in $ARMS; do v=BENCH_PID_$a; PID[$a]=${!v}; done
echo "# close hello, $W workers, wrk -t2 -c32 -H 'Connection: close' -d${SECS}s x$ROUNDS; $JAR; $(date -u +%FT%TZ); load $(loadavg)"
WRK_ARGS=(-H 'Connection: close')
rounds_vs_nginx "$ROUNDS" "$SECS" "$PAUSE" $ARMS
echo "# load after: $(loadavg)"
