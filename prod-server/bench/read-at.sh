#!/usr/bin/env bash
# ADR 0057: where m0serve reads a connection's affinity. The same jar under --dev-pair-at N for each N in
# READS (default "2 64 0"; 0: no reading, no swap; N/R: read first at N, then again every R
# requests, R=0 never: --dev-pair-reread) beside nginx, keep-alive hello, 2 workers, wrk -t2 -c32,
# arms rotated round by round. A round at about 0.6x a crossed one was paired.
#   READS="64 256 1024" prod-server/bench/read-at.sh [rounds=6] [seconds=4]
#   READS="256/0 256/256 256/1024" prod-server/bench/read-at.sh 8 3   # ADR 0057's re-read
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
JAR="${M0SERVE_JAR:-$BENCH_DIR/../target/m0serve.jar}"
WORK=$(mktemp -d /tmp/m0-readat.XXXXXX)
. "$BENCH_DIR/lib.sh"
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
TICK=$(getconf CLK_TCK)
declare -A PORT PID REQ TCK
for spec in ${READS:-2 64 0}; do
  at=${spec%%/*}; name=p${spec//\//r}
  PORT[$name]=$(free_port)
  dev=(--dev-pair-at "$at")
  if [[ $spec == */* ]]; then dev+=(--dev-pair-reread "${spec#*/}"); fi
  m0serve_start "$name" "${PORT[$name]}" --workers 2 --blocking-threads 0 "${dev[@]}"
  v="BENCH_PID_$name"; PID[$name]=${!v}
done
PORT[nginx]=$(free_port); nginx_start nginx "${PORT[nginx]}" 2; PID[nginx]=$BENCH_PID_nginx
echo "# read-at: --dev-pair-at ${READS:-2 64 0} beside nginx, keep-alive hello, 2 workers, wrk -t2 -c32; $(date -u +%FT%TZ); load $(loadavg)"
arms=(); for spec in ${READS:-2 64 0}; do arms+=("p${spec//\//r}"); done
rounds_vs_nginx "${1:-6}" "${2:-4}" 0 "${arms[@]}" nginx
