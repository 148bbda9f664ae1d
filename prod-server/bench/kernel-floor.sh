#!/usr/bin/env bash
# Where is the floor of a keep-alive request's CPU, and does io_uring move it (ADR 0042, 0048)?
# Starts every arm side by side at W workers (threads for the JVM arms), warms each, then runs the
# same wrk -t2 -c32 keep-alive hello on each in turn, ROUNDS times. Per request, for each
# server's process tree: user and system CPU (/proc utime, stime; io_uring's io-wq workers are
# threads of the server and count in it) and the system calls its threads make (perf's
# raw_syscalls:sys_enter, counted in the kernel). The machine column is all CPUs' busy time
# (/proc/stat: all but idle and iowait) per request, wrk and softirqs included: it shows whether
# a saving is real or only charged to someone else.
#   prod-server/bench/kernel-floor.sh [workers=1] [seconds=6] [rounds=3]
# ARMS, default "nginx c-epoll c-uring-rw c-uring-read c-uring java-uring netty netty-uring m0":
#   c-MODE       floor/hello.c, a prefork hello in C with no parser and no JVM, the least a server
#                pays with each interface; MODE is epoll, epoll-batched, epoll-ringsend, uring, uring-poll,
#                uring-read or uring-rw (see hello.c); c-uring-plain is c-uring without DEFER_TASKRUN
#   java-uring   bench/'s UringHello: c-uring's loop in Java, through jffi
#   netty, netty-uring   bench/'s NettyHello on Netty's native epoll or io_uring transport
#   m0, nginx    m0serve (M0SERVE_JAR) and nginx 1.22
#   ARM-even     a C arm whose workers stop accepting at 32/W connections each (HELLO_CAP), so they
#                split 32 connections as exactly as m0's share does; without it the kernel's
#                wake-ups decide, and one worker often takes them all (ADR 0051)
#   ARM-cpu      a C arm whose connections go to worker (the CPU their SYN arrived on) mod W
#                (HELLO_CPU): on loopback, a wrk thread's connections meet one worker, or all
#                land on one when both threads connect from one CPU
#                (-even and -cpu take a plain MODE: c-uring-plain-even or c-epoll-even-cpu are not arms)
#   nginx-reuseport   nginx with a listener per worker: the kernel's hash spreads, about evenly
#   m0-race, m0-fountain   m0serve under another --accept-policy
# Each keep-alive round prints how the 32 connections sat across the arm's processes halfway through
# it (conn_split, largest first; "-" for the JVM arms, whose workers are threads). It says how many
# each worker held, not which wrk thread's they were: crossing.sh shows that (ADR 0051).
# SYSCALLS=0: no perf attached (its tracepoint taxes every system call; the column reads -).
# CLOSE=1: a connection-close hello instead. WARM: seconds of load per arm before the rounds (10).
# Needs perf (Debian linux-perf; not with SYSCALLS=0), wrk, nginx, ss, gcc and liburing-dev,
# the jar and bench/'s jar (mvn -q -pl bench -am package -DskipTests); run as root (or
# perf_event_paranoid <= 1).
set -euo pipefail
W=${1:-1}; SECS=${2:-6}; ROUNDS=${3:-3}
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
JAR="${M0SERVE_JAR:-$BENCH_DIR/../target/m0serve.jar}"
TOOLS=(wrk nginx ss); [ "${SYSCALLS:-1}" = 0 ] || TOOLS+=(perf)
unset HELLO_CAP HELLO_CPU  # each C arm sets its own
for t in "${TOOLS[@]}"; do command -v "$t" >/dev/null || { echo "$t missing" >&2; exit 1; }; done
WORK=$(mktemp -d /tmp/m0-floor.XXXXXX)
. "$BENCH_DIR/lib.sh"
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
TICK=$(getconf CLK_TCK)
ARMS=(${ARMS:-nginx c-epoll c-uring-rw c-uring-read c-uring java-uring netty netty-uring m0})
case " ${ARMS[*]} " in *" c-"*) gcc -O2 -o "$WORK/hello" "$BENCH_DIR/floor/hello.c" -luring ;; esac
# c NAME PORT WORKERS epoll|uring : floor/hello.c
c_start() {
  "$WORK/hello" "$2" "$3" "$4" >"$WORK/$1.out" 2>"$WORK/$1.err" &
  BENCH_PIDS+=("$!")
  printf -v "BENCH_PID_$1" '%s' "$!"
  wait_children "$!" "$3" || { cat "$WORK/$1.err" >&2; exit 1; }
  wait_http "$2"
}
# java_uring NAME PORT THREADS : bench/'s UringHello
java_uring_start() {
  java -XX:+UseSerialGC -Xmx512m -XX:-UsePerfData -cp "${NETTY_JAR:-$BENCH_DIR/../../bench/target/benchmarks.jar}" \
    m0.bench.UringHello "127.0.0.1:$2" "$3" >"$WORK/$1.out" 2>"$WORK/$1.err" &
  BENCH_PIDS+=("$!")
  printf -v "BENCH_PID_$1" '%s' "$!"
  wait_http "$2"
}
WRK_ARGS=(); PAUSE=0; SHAPE=keep-alive
if [ -n "${CLOSE:-}" ]; then WRK_ARGS=(-H 'Connection: close'); PAUSE=2; SHAPE=connection-close; fi

declare -A PORT=() PID=() REQ=() US=() SY=() SC=() MB=()
busy() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; }
for a in "${ARMS[@]}"; do
  PORT[$a]=$(free_port)
  case $a in
    nginx) nginx_start nginx "${PORT[$a]}" "$W" ;;
    nginx-reuseport) NGINX_REUSEPORT=1 nginx_start nginx_reuseport "${PORT[$a]}" "$W" ;;
    c-uring-plain) HELLO_PLAIN=1 c_start c_uring_plain "${PORT[$a]}" "$W" uring ;;
    c-uring-plain-*|c-*-even-cpu|c-*-cpu-even) echo "unknown arm $a (-even and -cpu take a plain MODE)" >&2; exit 2 ;;
    c-*-even) a0=${a%-even}; HELLO_CAP=$(( (32 + W - 1) / W )) c_start "${a//-/_}" "${PORT[$a]}" "$W" "${a0#c-}" ;;
    c-*-cpu) a0=${a%-cpu}; HELLO_CPU=1 c_start "${a//-/_}" "${PORT[$a]}" "$W" "${a0#c-}" ;;
    c-*) c_start "${a//-/_}" "${PORT[$a]}" "$W" "${a#c-}" ;;
    netty) netty_start netty "${PORT[$a]}" "$W" epoll ;;
    java-uring) java_uring_start java_uring "${PORT[$a]}" "$W" ;;
    netty-uring) netty_start netty_uring "${PORT[$a]}" "$W" io_uring ;;
    m0) m0serve_start m0 "${PORT[$a]}" --workers "$W" --blocking-threads 0 ;;
    m0-race|m0-fountain) m0serve_start "${a//-/_}" "${PORT[$a]}" --workers "$W" --blocking-threads 0 --accept-policy "${a#m0-}" ;;
    *) echo "unknown arm $a" >&2; exit 2 ;;
  esac
  v=BENCH_PID_${a//-/_}; PID[$a]=${!v}
done
echo "# the kernel's floor, $SHAPE hello; $W workers; wrk -t2 -c32 -d${SECS}s x$ROUNDS; arms ${ARMS[*]}; $(date -u +%FT%TZ); load $(loadavg)"
for a in "${ARMS[@]}"; do wrk -t2 -c32 -d"${WARM:-10}s" "${WRK_ARGS[@]}" "http://127.0.0.1:${PORT[$a]}/" >/dev/null; done
for r in $(seq "$ROUNDS"); do
  for a in "${ARMS[@]}"; do
    sleep "$PAUSE"
    pids=$(tree_pids "${PID[$a]}")
    read -r u0 s0 < <(tree_split "${PID[$a]}")
    if [ "${SYSCALLS:-1}" = 0 ]; then
      sleep "$((SECS + 1))" &
    else
      perf stat -x, -e raw_syscalls:sys_enter -p "$pids" -o "$WORK/stat" -- sleep "$((SECS + 1))" &
    fi
    sp=$!
    sleep 0.5
    b0=$(busy)
    # The split means something only for processes, under keep-alive: a JVM arm's workers are threads
    if [[ -n ${CLOSE:-} || $a == java-* || $a == netty* ]]; then
      echo - >"$WORK/split"; sq=""
    else
      split_midway "$SECS" "${PORT[$a]}" "$W" >"$WORK/split" &
      sq=$!
    fi
    n=$(wrk -t2 -c32 -d"${SECS}s" "${WRK_ARGS[@]}" "http://127.0.0.1:${PORT[$a]}/" | awk '/requests in/ {print $1}')
    b1=$(busy)
    if [ -n "$sq" ]; then wait "$sq"; fi
    wait "$sp"
    read -r u1 s1 < <(tree_split "${PID[$a]}")
    if [ "${SYSCALLS:-1}" = 0 ]; then sc=0; else sc=$(awk -F, '$3 == "raw_syscalls:sys_enter" {print $1}' "$WORK/stat"); fi
    REQ[$a]=$(( ${REQ[$a]:-0} + n )); US[$a]=$(( ${US[$a]:-0} + u1 - u0 )); SY[$a]=$(( ${SY[$a]:-0} + s1 - s0 ))
    SC[$a]=$(( ${SC[$a]:-0} + sc )); MB[$a]=$(( ${MB[$a]:-0} + b1 - b0 ))
    printf "round %d %-11s %9d req  %6.2f µs/req  syscalls/req %s  split %s\n" "$r" "$a" "$n" \
      "$(awk -v t="$((u1 - u0 + s1 - s0))" -v n="$n" -v hz="$TICK" 'BEGIN{print t/hz*1e6/n}')" \
      "$(awk -v a="$sc" -v b="$n" -v on="${SYSCALLS:-1}" 'BEGIN{if (on == 0) print "-"; else printf "%.2f", a/b}')" "$(cat "$WORK/split")"
  done
done
echo
echo "| server | user µs/req | system µs/req | all µs/req | ÷ nginx | system ÷ nginx's all | syscalls/req | machine µs/req |"
echo "|---|---|---|---|---|---|---|---|"
ng=$(awk -v u="${US[nginx]:-0}" -v s="${SY[nginx]:-0}" -v n="${REQ[nginx]:-1}" -v hz="$TICK" 'BEGIN{print (u+s)/hz*1e6/n}')
for a in "${ARMS[@]}"; do
  awk -v a="$a" -v u="${US[$a]}" -v s="${SY[$a]}" -v n="${REQ[$a]}" -v hz="$TICK" -v ng="$ng" -v sc="${SC[$a]}" -v mb="${MB[$a]}" \
    -v on="${SYSCALLS:-1}" \
    'BEGIN{printf "| %s | %.2f | %.2f | %.2f | %.3f | %.3f | %s | %.2f |\n", a, u/hz*1e6/n, s/hz*1e6/n, (u+s)/hz*1e6/n, (u+s)/hz*1e6/n/ng, s/hz*1e6/n/ng, (on == 0 ? "-" : sprintf("%.2f", sc/n)), mb/hz*1e6/n}'
done
