#!/usr/bin/env bash
# Hostile clients, m0serve (1 worker) beside nginx (1 worker), with wrk -c64 keep-alive on / running
# beside each: worker RSS growth during a non-reading pipelined flood, LF-trickling connections
# closed by the header timeout (how many, and when), wrk errors. Then keep-alive hello CPU per
# request, this jar vs M0SERVE_BASE_JAR (if given) vs nginx, alternating in one run (cpu_rounds=0
# skips it). Workers run with M0SERVE_WORKER_HEAP (default below: 64m) beside their default options, and
# RSS0 is read after a 10 s wrk warm-up, so that the growth is the flood's, not the JIT's.
#
#   prod-server/bench/hostile.sh [flood_seconds=30] [trickles=200] [cpu_rounds=3] [cpu_seconds=10]
#   (flood_seconds=0: only the CPU comparison)
#
# Needs wrk, nginx, python3 and the jar (mvn -q -pl prod-server -am package -DskipTests).
set -euo pipefail
FLOOD_SECS=${1:-30}
TRICKLES=${2:-200}
ROUNDS=${3:-3}
SECS=${4:-10}
HEADER_S=10
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
HERE=$(cd "$BENCH_DIR/.." && pwd)
JAR="${M0SERVE_JAR:-$HERE/target/m0serve.jar}"
BASE_JAR="${M0SERVE_BASE_JAR:-}"
command -v wrk >/dev/null || { echo "wrk missing: apt-get install -y wrk" >&2; exit 1; }
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$NGINX" ] || { echo "nginx missing: apt-get install -y nginx-light" >&2; exit 1; }
[ -f "$JAR" ] || { echo "$JAR missing" >&2; exit 1; }
TICK=$(getconf CLK_TCK)
WORK=$(mktemp -d /tmp/m0-hostile.XXXXXX)
source "$BENCH_DIR/lib.sh"
export M0SERVE_WORKER_HEAP="${M0SERVE_WORKER_HEAP:-64m}" # the workers' default options (serial GC) stay
trap 'bench_cleanup; rm -rf "$WORK"' EXIT

rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
worker_of() { pgrep -P "$1" | head -1; }

# NAME PORT WORKER_PID : the hostile run against one server; one table row
hostile() {
  local name=$1 port=$2 worker=$3 before max=0 r mib closed open first last
  wrk -t1 -c64 -d10s "http://127.0.0.1:$port/" >/dev/null # warm-up: JIT, heap, buffers
  before=$(rss_kib "$worker")
  wrk -t1 -c64 -d"$((FLOOD_SECS + 2))s" "http://127.0.0.1:$port/" >"$WORK/$name.wrk" 2>&1 &
  local wrk_pid=$!
  python3 "$BENCH_DIR/hostile.py" flood "$port" "$FLOOD_SECS" >"$WORK/$name.flood" 2>&1 &
  local flood_pid=$!
  python3 "$BENCH_DIR/hostile.py" trickle "$port" "$TRICKLES" "$((HEADER_S * 2 + 5))" >"$WORK/$name.trickle" 2>&1 &
  local trickle_pid=$!
  for _ in $(seq "$FLOOD_SECS"); do
    r=$(rss_kib "$worker"); [ "$r" -gt "$max" ] && max=$r
    sleep 1
  done
  wait "$flood_pid" "$trickle_pid" "$wrk_pid" || true
  mib=$(tail -1 "$WORK/$name.flood")
  closed=$(grep -cv '^open' "$WORK/$name.trickle" || true)
  open=$(awk '/^open/ {print $2}' "$WORK/$name.trickle")
  first=$(grep -v '^open' "$WORK/$name.trickle" | head -1); last=$(grep -v '^open' "$WORK/$name.trickle" | tail -1)
  printf "| %-8s | %9s | %12s | %10s | %8s | %16s | %6s | %10s |\n" "$name" "$((before / 1024))" \
    "$(( (max - before) / 1024 ))" "$mib" "$closed/$TRICKLES" "${first:--}..${last:--} s" "${open:-?}" \
    "$(wrk_errors "$WORK/$name.wrk") / $(awk '/requests in/ {print $1}' "$WORK/$name.wrk")"
}

M0PORT=$(free_port)
m0serve_start m0 "$M0PORT" --workers 1 --blocking-threads 0 --header-timeout-ms $((HEADER_S * 1000))
NGPORT=$(free_port)
mkdir -p "$WORK/ng"
cat >"$WORK/ng/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $WORK/ng/nginx.pid;
error_log $WORK/ng/error.log crit;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 1000000;
  client_header_timeout ${HEADER_S}s;
  server {
    listen 127.0.0.1:$NGPORT backlog=4096;
    location / { default_type text/plain; return 200 "hello\n"; }
  }
}
CONF
"$NGINX" -p "$WORK/ng" -c "$WORK/ng/nginx.conf" &
BENCH_PIDS+=("$!"); NGPID=$!
wait_children "$NGPID" 1 && wait_http "$NGPORT"

if [ "$FLOOD_SECS" -gt 0 ]; then
echo "hostile: ${FLOOD_SECS}s flood + $TRICKLES LF trickles (header timeout ${HEADER_S}s) beside wrk -t1 -c64; load $(loadavg)"
printf "| %-8s | %9s | %12s | %10s | %8s | %16s | %6s | %10s |\n" server "RSS0 MiB" "RSS grow MiB" "flood MiB" closed "closed after" "open" "wrk err/req"
printf "|%s|\n" "----------|-----------|--------------|------------|----------|------------------|--------|------------"
hostile m0serve "$M0PORT" "$(worker_of "$BENCH_PID_m0")"
hostile nginx "$NGPORT" "$(worker_of "$NGPID")"
fi

# ---- keep-alive hello CPU per request, side by side in one run ----
SIDES=(m0serve:"$M0PORT":"$BENCH_PID_m0")
if [ -n "$BASE_JAR" ]; then
  BASEPORT=$(free_port)
  JAR="$BASE_JAR" m0serve_start base "$BASEPORT" --workers 1 --blocking-threads 0
  SIDES+=(base:"$BASEPORT":"$BENCH_PID_base")
fi
SIDES+=(nginx:"$NGPORT":"$NGPID")
[ "$ROUNDS" -gt 0 ] || exit 0
for s in "${SIDES[@]}"; do IFS=: read -r n p _ <<<"$s"; wrk -t2 -c32 -d5s "http://127.0.0.1:$p/" >/dev/null; done
declare -A REQ TCK
echo
echo "keep-alive hello, wrk -t2 -c32, ${ROUNDS}x${SECS}s alternating; load $(loadavg)"
cpu_rounds "$ROUNDS" "$SECS" "${SIDES[@]}"
for s in "${SIDES[@]}"; do
  IFS=: read -r n _ _ <<<"$s"
  printf "total %-8s %8s us CPU/req\n" "$n" "$(awk -v t="${TCK[$n]}" -v q="${REQ[$n]}" -v hz="$TICK" 'BEGIN{printf "%.3f", t/hz*1e6/q}')"
done
if [ -n "$BASE_JAR" ]; then
  awk -v a="${TCK[m0serve]}" -v n="${REQ[m0serve]}" -v b="${TCK[base]}" -v m="${REQ[base]}" \
    'BEGIN{ printf "ratio this/base CPU per request: %.3f (goal <= 1.03)\n", (a/n)/(b/m) }'
fi
