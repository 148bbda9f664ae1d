#!/usr/bin/env bash
# Connection-close hello: the first read at once (--dev-eager-read on) against the default (left
# to epoll, ADR 0033), race and share, beside nginx 1.22; server CPU per request, arms rotated.
#   [WARM=15] prod-server/bench/eager-read.sh [rounds=3] [seconds=4] [workers=2] [pause=4]
set -euo pipefail
ROUNDS=${1:-3}; SECS=${2:-4}; W=${3:-2}; PAUSE=${4:-4}
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
JAR=${M0SERVE_JAR:-$BENCH_DIR/../target/m0serve.jar}
WORK=$(mktemp -d /tmp/m0-eager.XXXXXX)
. "$BENCH_DIR/lib.sh"
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
TICK=$(getconf CLK_TCK)
declare -A PORT PID REQ TCK
ARMS="race_eager race_lazy share_eager share_lazy nginx"
for a in $ARMS; do PORT[$a]=$(free_port); done
m0serve_start race_eager ${PORT[race_eager]} --workers $W --blocking-threads 0 --accept-policy race --dev-eager-read on
m0serve_start race_lazy ${PORT[race_lazy]} --workers $W --blocking-threads 0 --accept-policy race
m0serve_start share_eager ${PORT[share_eager]} --workers $W --blocking-threads 0 --dev-eager-read on
m0serve_start share_lazy ${PORT[share_lazy]} --workers $W --blocking-threads 0
nginx_start nginx ${PORT[nginx]} $W
for a in $ARMS; do v=BENCH_PID_$a; PID[$a]=${!v}; done
echo "# close hello, $W workers, wrk -t2 -c32 -H Connection: close -d${SECS}s x$ROUNDS; $(date -u +%FT%TZ); load $(loadavg)"
close_rounds_vs_nginx "$ROUNDS" "$SECS" "$PAUSE" $ARMS
echo "# load after: $(loadavg)"
