#!/usr/bin/env bash
# Where a keep-alive request's CPU goes, m0serve beside nginx (issue 27, item 3): both started
# at W workers, warmed, then under the same wrk -t2 -c32 keep-alive hello in turn; per request,
# for each server's process tree: user and system CPU (/proc utime, stime), system calls
# (perf's raw_syscalls:sys_enter over its workers, counted in the kernel) and epoll_wait calls
# among them. With PROFILE=1, then a perf record of one m0serve worker (-g, the JIT's symbols
# from -XX:+DumpPerfMapAtExit, written when the worker leaves) and its top frames.
#   prod-server/bench/where-cpu-goes.sh [workers=1] [seconds=8] [rounds=3]
# CLOSE=1: a connection-close hello instead (wrk -H 'Connection: close', 2 s before each run for
# the last run's TIME_WAIT sockets); POLICY=share|race|fountain: m0serve's --accept-policy.
# Needs perf (Debian linux-perf), wrk, nginx and the jar; run as root (or perf_event_paranoid <= 1).
set -euo pipefail
W=${1:-1}; SECS=${2:-8}; ROUNDS=${3:-3}
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
JAR="${M0SERVE_JAR:-$BENCH_DIR/../target/m0serve.jar}"
for t in perf wrk; do command -v "$t" >/dev/null || { echo "$t missing" >&2; exit 1; }; done
WORK=$(mktemp -d /tmp/m0-cpu.XXXXXX)
. "$BENCH_DIR/lib.sh"
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
TICK=$(getconf CLK_TCK)

M0_PORT=$(free_port); NG_PORT=$(free_port)
if [ -n "${PROFILE:-}" ]; then
  # Added to the workers' defaults (JavaCommand.DEFAULT_OPTS, docs/settings.md): the JIT's symbols
  export M0SERVE_WORKER_JAVA_OPTS="-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -XX:+PreserveFramePointer"
fi
WRK_ARGS=(); PAUSE=0; SHAPE=keep-alive
if [ -n "${CLOSE:-}" ]; then WRK_ARGS=(-H 'Connection: close'); PAUSE=2; SHAPE=connection-close; fi
m0serve_start m0 "$M0_PORT" --workers "$W" --blocking-threads 0 --accept-policy "${POLICY:-share}"
nginx_start nginx "$NG_PORT" "$W"
declare -A PORT=([m0]=$M0_PORT [nginx]=$NG_PORT) PID=([m0]=$BENCH_PID_m0 [nginx]=$BENCH_PID_nginx)
echo "# where a $SHAPE request's CPU goes; $W workers, m0 ${POLICY:-share}; wrk -t2 -c32 -d${SECS}s x$ROUNDS; $(date -u +%FT%TZ); load $(loadavg)"
for a in m0 nginx; do wrk -t2 -c32 -d"${WARM:-15}s" "${WRK_ARGS[@]}" "http://127.0.0.1:${PORT[$a]}/" >/dev/null; done
declare -A REQ=() US=() SY=() SC=() EP=()
for r in $(seq "$ROUNDS"); do
  for a in m0 nginx; do
    sleep "$PAUSE"
    pids=$(pgrep -P "${PID[$a]}" | paste -sd,)
    read -r u0 s0 < <(tree_split "${PID[$a]}")
    perf stat -x, -e raw_syscalls:sys_enter,syscalls:sys_enter_epoll_wait -p "$pids" -o "$WORK/stat" -- sleep "$((SECS + 1))" &
    sp=$!
    sleep 0.5
    n=$(wrk -t2 -c32 -d"${SECS}s" "${WRK_ARGS[@]}" "http://127.0.0.1:${PORT[$a]}/" | awk '/requests in/ {print $1}')
    wait "$sp"
    read -r u1 s1 < <(tree_split "${PID[$a]}")
    sc=$(awk -F, '$3 == "raw_syscalls:sys_enter" {print $1}' "$WORK/stat")
    ep=$(awk -F, '$3 == "syscalls:sys_enter_epoll_wait" {print $1}' "$WORK/stat")
    REQ[$a]=$(( ${REQ[$a]:-0} + n )); US[$a]=$(( ${US[$a]:-0} + u1 - u0 )); SY[$a]=$(( ${SY[$a]:-0} + s1 - s0 ))
    SC[$a]=$(( ${SC[$a]:-0} + sc )); EP[$a]=$(( ${EP[$a]:-0} + ep ))
    printf "round %d %-6s %9d req  syscalls/req %.2f  epoll_wait/req %.3f\n" "$r" "$a" "$n" \
      "$(awk -v a="$sc" -v b="$n" 'BEGIN{print a/b}')" "$(awk -v a="$ep" -v b="$n" 'BEGIN{print a/b}')"
  done
done
echo
echo "| server | user µs/req | system µs/req | all µs/req | ÷ nginx | syscalls/req | epoll_wait/req |"
echo "|---|---|---|---|---|---|---|"
ng=$(awk -v u="${US[nginx]}" -v s="${SY[nginx]}" -v n="${REQ[nginx]}" -v hz="$TICK" 'BEGIN{print (u+s)/hz*1e6/n}')
for a in m0 nginx; do
  awk -v a="$a" -v u="${US[$a]}" -v s="${SY[$a]}" -v n="${REQ[$a]}" -v hz="$TICK" -v ng="$ng" -v sc="${SC[$a]}" -v ep="${EP[$a]}" \
    'BEGIN{printf "| %s | %.2f | %.2f | %.2f | %.3f | %.2f | %.3f |\n", a, u/hz*1e6/n, s/hz*1e6/n, (u+s)/hz*1e6/n, (u+s)/hz*1e6/n/ng, sc/n, ep/n}'
done
if [ -n "${PROFILE:-}" ]; then
  wpid=$(pgrep -P "${PID[m0]}" | head -1)
  wrk -t2 -c32 -d"$((SECS + 2))s" "${WRK_ARGS[@]}" "http://127.0.0.1:${PORT[m0]}/" >/dev/null &
  wp=$!
  sleep 1
  perf record -F 1999 -g -p "$wpid" -o "$WORK/perf.data" -- sleep "$SECS" 2>/dev/null
  wait "$wp"  # wrk only: a bare wait would wait for the servers too
  bench_stop "${PID[m0]}"  # the worker leaves and writes /tmp/perf-<pid>.map
  echo
  echo "## perf record of worker $wpid: top frames (self), then by caller"
  perf report -i "$WORK/perf.data" --no-children --sort sym --stdio -g none 2>/dev/null | grep '%' | head -"${TOP:-45}" || true
  [ -n "${PERF_OUT:-}" ] && cp "$WORK/perf.data" "$PERF_OUT"
fi
