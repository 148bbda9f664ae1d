#!/usr/bin/env bash
# ADR 0058: workers pinned one per CPU or left free. One jar, two servers (--cpu-affinity auto and
# off) beside nginx as it ships and nginx with `worker_cpu_affinity auto`, hello at W workers,
# wrk -t2 -c32, arms rotated round by round (lib.sh's rounds_vs_nginx). Each round opens fresh
# connections, so each is a fresh chance for share's swap to pair wrk's two threads with the two
# workers (ADR 0057): a paired round costs about half a crossed one, so a line's
# rounds tell how often it paired. MODE=ka (the default) keeps the connections; MODE=close sends
# Connection: close on every request.
#   prod-server/bench/pinning.sh [rounds=8] [seconds=4] [workers=2]
set -euo pipefail
ROUNDS=${1:-8}; SECS=${2:-4}; W=${3:-2}
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
JAR="${M0SERVE_JAR:-$BENCH_DIR/../target/m0serve.jar}"
WORK=$(mktemp -d /tmp/m0-pinning.XXXXXX)
. "$BENCH_DIR/lib.sh"
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
TICK=$(getconf CLK_TCK)
if [ "$(nproc)" != "$W" ]; then
  echo "# note: $(nproc) usable CPUs, $W workers: --cpu-affinity auto pins only one worker per CPU, so auto runs free here" >&2
fi
declare -A PORT PID REQ TCK
for a in auto off; do
  PORT[$a]=$(free_port)
  m0serve_start "$a" "${PORT[$a]}" --workers "$W" --blocking-threads 0 --cpu-affinity "$a"
  v="BENCH_PID_$a"; PID[$a]=${!v}
done
PORT[nginx]=$(free_port); nginx_start nginx "${PORT[nginx]}" "$W"; PID[nginx]=$BENCH_PID_nginx
PORT[nginxpin]=$(free_port); NGINX_AFFINITY=1 nginx_start nginxpin "${PORT[nginxpin]}" "$W"; PID[nginxpin]=$BENCH_PID_nginxpin
echo "# pinning: m0serve --cpu-affinity auto|off, nginx, nginx worker_cpu_affinity auto; ${MODE:-ka} hello, $W workers, wrk -t2 -c32; $(date -u +%FT%TZ); load $(loadavg)"
case ${MODE:-ka} in
  ka) rounds_vs_nginx "$ROUNDS" "$SECS" 0 auto off nginx nginxpin ;;
  close) close_rounds_vs_nginx "$ROUNDS" "$SECS" 3 auto off nginx nginxpin ;;
  *) echo "MODE=$MODE: ka or close" >&2; exit 2 ;;
esac
