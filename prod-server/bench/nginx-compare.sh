#!/usr/bin/env bash
# Server CPU per request: m0serve (1 worker) vs nginx (1 worker, `return 200`), keep-alive hello,
# wrk -t2 -c32, alternating in one run. CPU is utime+stime from /proc/<pid>/stat summed over each
# server's processes (supervisor/master + worker), read before and after each wrk run.
#
#   prod-server/bench/nginx-compare.sh [rounds=3] [seconds=10]
#
# Needs: wrk, nginx (Debian: apt-get install -y wrk nginx) and the jar
# (mvn -q -pl prod-server package -DskipTests). Both servers share the machine's cores with wrk:
# compare CPU per request and ratios, not req/s.
set -euo pipefail
ROUNDS=${1:-3}
SECS=${2:-10}
HERE=$(cd "$(dirname "$0")/.." && pwd)
JAR="${M0SERVE_JAR:-$HERE/target/m0serve.jar}"
command -v wrk >/dev/null || { echo "wrk missing: apt-get install -y wrk" >&2; exit 1; }
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$NGINX" ] || { echo "nginx missing: apt-get install -y nginx" >&2; exit 1; }
[ -f "$JAR" ] || { echo "$JAR missing: mvn -q -pl prod-server package -DskipTests" >&2; exit 1; }
TICK=$(getconf CLK_TCK)
WORK=$(mktemp -d /tmp/m0-bench.XXXXXX)
M0PID=""; NGPID=""
cleanup() {
  [ -n "$M0PID" ] && kill -TERM "$M0PID" 2>/dev/null || true
  [ -n "$NGPID" ] && kill -QUIT "$NGPID" 2>/dev/null || true
  sleep 1
  [ -n "$M0PID" ] && kill -KILL "$M0PID" 2>/dev/null || true
  [ -n "$NGPID" ] && kill -KILL "$NGPID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# ticks of a process tree: the pid and its children
tree_ticks() {
  local total=0 p
  for p in "$1" $(pgrep -P "$1" || true); do
    [ -r "/proc/$p/stat" ] || continue
    # fields after the ")" of comm: state is 1st, utime 12th, stime 13th
    total=$(( total + $(sed 's/.*) //' "/proc/$p/stat" | awk '{print $12 + $13}') ))
  done
  echo "$total"
}

wait_http() {
  for _ in $(seq 100); do
    curl -s -o /dev/null "http://127.0.0.1:$1/" && return 0
    sleep 0.1
  done
  echo "server on port $1 did not answer" >&2; return 1
}

M0PORT=$(free_port)
java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xmx64m -jar "$JAR" --bind "127.0.0.1:$M0PORT" --workers 1 \
  --blocking-threads 0 >"$WORK/m0.out" 2>"$WORK/m0.err" &
M0PID=$!

NGPORT=$(free_port)
cat >"$WORK/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:$NGPORT;
    location / { default_type text/plain; return 200 "hello\n"; }
  }
}
CONF
"$NGINX" -p "$WORK" -c "$WORK/nginx.conf" &
NGPID=$!

wait_http "$M0PORT"; wait_http "$NGPORT"

run() { # name port pid -> prints "requests ticks"
  local before after out reqs
  before=$(tree_ticks "$3")
  out=$(wrk -t2 -c32 -d"${SECS}s" "http://127.0.0.1:$2/")
  after=$(tree_ticks "$3")
  reqs=$(echo "$out" | awk '/requests in/ {print $1}')
  echo "$reqs $(( after - before ))"
}

echo "warm-up (JIT): 5 s each"
wrk -t2 -c32 -d5s "http://127.0.0.1:$M0PORT/" >/dev/null
wrk -t2 -c32 -d5s "http://127.0.0.1:$NGPORT/" >/dev/null

printf "%-6s %-8s %12s %10s %14s %12s\n" round server requests cpu_s "us_cpu/req" "req/s"
M0SUM_R=0; M0SUM_T=0; NGSUM_R=0; NGSUM_T=0
for r in $(seq "$ROUNDS"); do
  for side in m0serve nginx; do
    if [ "$side" = m0serve ]; then read -r reqs ticks < <(run m0serve "$M0PORT" "$M0PID")
    else read -r reqs ticks < <(run nginx "$NGPORT" "$NGPID"); fi
    us=$(awk -v t="$ticks" -v n="$reqs" -v hz="$TICK" 'BEGIN{printf "%.2f", t/hz*1e6/n}')
    printf "%-6s %-8s %12s %10s %14s %12s\n" "$r" "$side" "$reqs" \
      "$(awk -v t="$ticks" -v hz="$TICK" 'BEGIN{printf "%.2f", t/hz}')" "$us" \
      "$(awk -v n="$reqs" -v s="$SECS" 'BEGIN{printf "%.0f", n/s}')"
    if [ "$side" = m0serve ]; then M0SUM_R=$((M0SUM_R+reqs)); M0SUM_T=$((M0SUM_T+ticks))
    else NGSUM_R=$((NGSUM_R+reqs)); NGSUM_T=$((NGSUM_T+ticks)); fi
  done
done
awk -v a="$M0SUM_T" -v n="$M0SUM_R" -v b="$NGSUM_T" -v m="$NGSUM_R" -v hz="$TICK" 'BEGIN{
  x=a/hz*1e6/n; y=b/hz*1e6/m;
  printf "total: m0serve %.2f us CPU/req, nginx %.2f us CPU/req, ratio m0serve/nginx %.2f (goal <= 1.00)\n", x, y, x/y }'
