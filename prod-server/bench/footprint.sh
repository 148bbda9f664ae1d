#!/usr/bin/env bash
# What a worker costs (issue 15, docs/adr/0011): m0serve with its default options and class-data
# archive ("new", through the launcher) against the same jar with the options it had before
# ("old": no archive, a default-sized worker heap), uvicorn and nginx, in one run:
#   1. PSS (/proc/PID/smaps_rollup) of the supervisor/master and of each worker, 2 workers each,
#      right after 5 s of wrk -t2 -c32 keep-alive hello on that server, then after IDLE s idle
#      (all four running side by side, loaded one after another).
#   2. Launch to ready (the "ready:" line on stdout, timed outside) with 2 and 4 workers,
#      ROUNDS rounds alternating new/old; the supervisor's own figure beside it.
#   3. SIGKILL of a worker to its replacement's start (the supervisor's "started" line for the
#      new pid, timed outside; its spawn-to-PARKED figure beside it), ROUNDS rounds alternating.
#   4. Keep-alive hello, 2 workers, new and old running side by side, ROUNDS x 10 s alternating:
#      server CPU per request (utime+stime of supervisor and workers) and requests per second.
# The machine's 2 cores are shared with wrk and with whatever else runs: every absolute time is
# printed with the load average; compare the ratios, and the CPU figures (utime + stime), which the
# load moves far less than wall time.
#
#   prod-server/bench/footprint.sh [rounds=3] [idle-seconds=60]
#
# M0SERVE_BASE=/path/to/other/prod-server/target/m0serve puts another build (main, say: its own
# defaults and archive) in the "old" column as "base", side by side with this one (docs/adr/0027).
# FOOTPRINT_PARTS="pss start kill cpu" (the default: all) picks the parts to run.
#
# Needs: wrk, nginx, python3-uvicorn (Debian: apt-get install -y wrk nginx-light python3-uvicorn),
# and the build (mvn -q -pl prod-server -am package -DskipTests: target/m0serve, the jar, the archive).
set -euo pipefail
ROUNDS=${1:-3}
IDLE=${2:-60}
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
LAUNCHER="${M0SERVE:-$BENCH_DIR/../target/m0serve}"
JAR="$(dirname "$LAUNCHER")/m0serve.jar"
[ -x "$LAUNCHER" ] && [ -f "$JAR" ] || { echo "$LAUNCHER missing: mvn -q -pl prod-server -am package -DskipTests" >&2; exit 1; }
command -v wrk >/dev/null || { echo "wrk missing: apt-get install -y wrk" >&2; exit 1; }
WORK=$(mktemp -d /tmp/m0-footprint.XXXXXX)
. "$BENCH_DIR/lib.sh"
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
trap 'echo "footprint.sh: a command failed at line $LINENO" >&2' ERR
TICK=$(getconf CLK_TCK)

# The options m0serve had before issue 15 (bin/m0serve and JavaCommand at 43e7569).
OLD_SUP="-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xmx64m -XX:-UsePerfData"
OLD_WORKER="-XX:+UseSerialGC -Xss512k -XX:-UsePerfData -Xmx512m"
BASE_LAUNCHER=${M0SERVE_BASE:-}
if [ -n "$BASE_LAUNCHER" ]; then
  [ -x "$BASE_LAUNCHER" ] || { echo "M0SERVE_BASE=$BASE_LAUNCHER is not a launcher" >&2; exit 1; }
  OLD=base
else
  OLD=old
fi
PARTS=${FOOTPRINT_PARTS:-pss start kill cpu}
part() { case " $PARTS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# stamp PATTERN FILE: copies stdin to stdout, appending the time (ns) it reads each line matching
# PATTERN to FILE
stamp() { awk -W interactive -v p="$1" -v f="$2" '{ print; fflush() } $0 ~ p { system("date +%s%N >> " f) }'; }
# nap SECONDS: a sleep that forks nothing (a read that times out on a FIFO nobody writes)
mkfifo "$WORK/nap"; exec {NAP_FD}<>"$WORK/nap"
nap() { read -r -t "$1" -u "$NAP_FD" _ || true; }
pss_mib() { awk '/^Pss:/ {printf "%.1f", $2 / 1024}' "/proc/$1/smaps_rollup" 2>/dev/null || echo "-"; }

# m0 NAME PORT new|old|base ARGS... : starts through the launcher; pid in BENCH_PID_<NAME>; waits for
# "ready:"; READY_CPU_MS, READY_SUP_MS and READY_WORKERS_MS (each worker's, '+'-joined) are the CPU
# time spent until then
m0_start() {
  local name=$1 port=$2 kind=$3; shift 3
  local launcher=$LAUNCHER
  [ "$kind" = base ] && launcher=$BASE_LAUNCHER
  rm -f "$WORK/$name.ready" "$WORK/$name.started"
  # stdout and stderr pass through an awk that stamps the time it reads the ready line (and each
  # "started" line) into a file: the waits below read those stamps, so neither the polling nor the
  # CPU reads after it are counted in the figure, and polling forks nothing (nap) while JVMs start.
  # (through FIFOs, so that the two awks are this script's children, not the supervisor's)
  rm -f "$WORK/$name.out.fifo" "$WORK/$name.err.fifo"
  mkfifo "$WORK/$name.out.fifo" "$WORK/$name.err.fifo"
  stamp "m0serve: ready:" "$WORK/$name.ready" <"$WORK/$name.out.fifo" >"$WORK/$name.out" &
  stamp " started .* ms after its spawn" "$WORK/$name.started" <"$WORK/$name.err.fifo" >"$WORK/$name.err" &
  if [ "$kind" = old ]; then
    # An older build (M0SERVE_BASE): it reads M0_WORKER_JAVA_OPTS, which replaced its workers' defaults.
    M0_CDS=0 M0_JAVA_OPTS="$OLD_SUP" M0_WORKER_JAVA_OPTS="$OLD_WORKER" \
      "$launcher" --bind "127.0.0.1:$port" "$@" >"$WORK/$name.out.fifo" 2>"$WORK/$name.err.fifo" &
  else
    env -u M0_CDS -u M0_JAVA_OPTS -u M0_WORKER_JAVA_OPTS \
      "$launcher" --bind "127.0.0.1:$port" "$@" >"$WORK/$name.out.fifo" 2>"$WORK/$name.err.fifo" &
  fi
  local pid=$!
  BENCH_PIDS+=("$pid")
  printf -v "BENCH_PID_$name" '%s' "$pid"
  for _ in $(seq 6000); do # 60 s in 10 ms naps
    if [ -s "$WORK/$name.ready" ]; then
      READY_AT_MS=$(( $(head -1 "$WORK/$name.ready") / 1000000 ))
      READY_CPU_MS=$(( $(tree_ticks "$pid") * 1000 / TICK )) # start-up CPU of supervisor + workers
      READY_SUP_MS=$(( $(pid_ticks "$pid") * 1000 / TICK ))
      local c; READY_WORKERS_MS=""
      for c in $(pgrep -P "$pid" | sort -n); do READY_WORKERS_MS+="+$(( $(pid_ticks "$c") * 1000 / TICK ))"; done
      READY_WORKERS_MS=${READY_WORKERS_MS#+}
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || { sleep 0.2; cat "$WORK/$name.err" >&2; return 1; }
    nap 0.01
  done
  echo "$name: no ready line within 60 s" >&2; return 1
}

# SIGTERM to a supervisor (it stops its workers), bounded wait, then SIGKILL what is left
m0_stop() {
  local pid=$1 c
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  for c in $(pgrep -P "$pid" || true); do kill -KILL "$c" 2>/dev/null || true; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  # Forget it: bench_cleanup must never signal a pid that may since have been reused.
  local keep=() p
  for p in "${BENCH_PIDS[@]}"; do [ "$p" = "$pid" ] || keep+=("$p"); done
  BENCH_PIDS=("${keep[@]}")
}

pid_ticks() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{print $12 + $13}' || echo 0; }
median() { sort -n | awk '{a[NR]=$1} END {if (NR == 0) print "-"; else if (NR % 2) print a[(NR+1)/2]; else printf "%.0f\n", (a[NR/2]+a[NR/2+1])/2}'; }

echo "footprint: rounds $ROUNDS, idle $IDLE s, $(nproc) cores, load $(loadavg) at start ($(date -u +%H:%M:%SZ))"

# ---- 1. PSS after load, after idle --------------------------------------------------------------
if part pss; then
declare -A PORT
for s in new $OLD uvicorn nginx; do PORT[$s]=$(free_port); done
m0_start new "${PORT[new]}" new --workers 2
m0_start $OLD "${PORT[$OLD]}" $OLD --workers 2
uvicorn_start uvicorn "${PORT[uvicorn]}" 2
nginx_start nginx "${PORT[nginx]}" 2

# name -> "master w1 w2 total" in MiB
pss_row() {
  local pid=$1 total c line
  total=$(pss_mib "$pid"); line="$total"
  for c in $(pgrep -P "$pid" | sort -n); do
    line="$line $(pss_mib "$c")"; total=$(awk -v a="$total" -v b="$(pss_mib "$c")" 'BEGIN{print a+b}')
  done
  echo "$line | total $total"
}
declare -A AFTER_LOAD
for s in new $OLD uvicorn nginx; do
  wrk -t2 -c32 -d5s "http://127.0.0.1:${PORT[$s]}/" >"$WORK/wrk-$s.txt"
  pid_var="BENCH_PID_$s"; AFTER_LOAD[$s]=$(pss_row "${!pid_var}")
done
echo
echo "PSS MiB, 2 workers: supervisor/master, each worker | total   (load $(loadavg))"
printf "%-8s %-46s %s\n" server "after 5 s of wrk -t2 -c32" "after $IDLE s idle"
sleep "$IDLE"
for s in new $OLD uvicorn nginx; do
  pid_var="BENCH_PID_$s"
  printf "%-8s %-46s %s\n" "$s" "${AFTER_LOAD[$s]}" "$(pss_row "${!pid_var}")"
done
for s in new $OLD; do pid_var="BENCH_PID_$s"; m0_stop "${!pid_var}"; done
bench_cleanup; BENCH_PIDS=()
fi

# ---- 2. launch to ready ---------------------------------------------------------------------------
if part start; then
echo
echo "launch to ready, ms (median of $ROUNDS; the supervisor's own figures in brackets), and the CPU"
echo "time supervisor + workers spent until then (median; the supervisor's and each worker's, every"
echo "round, in brackets): less sensitive to the machine's load"
for n in 2 4; do
  declare -A OUTSIDE=() INSIDE=() CPU=() PER=()
  for r in $(seq "$ROUNDS"); do
    for kind in new $OLD; do
      port=$(free_port); t0=$(now_ms)
      m0_start "l$kind" "$port" "$kind" --workers "$n"
      OUTSIDE[$kind]+="$((READY_AT_MS - t0)) "
      CPU[$kind]+="$READY_CPU_MS "
      PER[$kind]+="$READY_SUP_MS/$READY_WORKERS_MS "
      INSIDE[$kind]+="$(sed -n 's/.*m0serve: ready \([0-9]*\) ms after launch.*/\1/p' "$WORK/l$kind.err" | head -1) "
      pid_var="BENCH_PID_l$kind"; m0_stop "${!pid_var}"
    done
  done
  for kind in new $OLD; do
    printf "  %d workers %-4s %6s ms  [%s]   CPU %5s ms  [%s]   load %s\n" "$n" "$kind" \
      "$(echo "${OUTSIDE[$kind]}" | tr ' ' '\n' | grep . | median)" \
      "$(echo "${INSIDE[$kind]}" | xargs)" "$(echo "${CPU[$kind]}" | tr ' ' '\n' | grep . | median)" \
      "$(echo "${PER[$kind]}" | xargs)" "$(loadavg)"
  done
done
fi

# ---- 3. SIGKILL of a worker to its replacement started ----------------------------------------------
if part kill; then
echo
echo "SIGKILL of the highest-pid worker to its replacement PARKED, ms (median of $ROUNDS; spawn to PARKED"
echo "in brackets), and the replacement's CPU until then (median)"
declare -A KILLED=() SPAWNED=() RCPU=()
for r in $(seq "$ROUNDS"); do
  for kind in new $OLD; do
    port=$(free_port)
    m0_start "k$kind" "$port" "$kind" --workers 2
    pid_var="BENCH_PID_k$kind"; sup=${!pid_var}
    victim=$(pgrep -P "$sup" | sort -n | tail -1 || true)
    if [ -z "$victim" ]; then
      echo "  $kind: no worker under pid $sup to kill" >&2; m0_stop "$sup"; continue
    fi
    nap 0.1 # the stamps of the first workers' lines are written
    mapfile -t st < "$WORK/k$kind.started"; before=${#st[@]}
    t0=$(now_ms); kill -KILL "$victim"
    line=""
    for _ in $(seq 6000); do
      mapfile -t st < "$WORK/k$kind.started"
      if [ "${#st[@]}" -gt "$before" ]; then
        line=$(grep " started .* ms after its spawn" "$WORK/k$kind.err" | sed -n "$((before + 1))p" || true)
        [ -n "$line" ] && break
      fi
      nap 0.01
    done
    t1=$(( $(sed -n "$((before + 1))p" "$WORK/k$kind.started") / 1000000 ))
    fresh=$(echo "$line" | sed -n 's/.*(pid \([0-9]*\)) started.*/\1/p')
    KILLED[$kind]+="$((t1 - t0)) "
    SPAWNED[$kind]+="$(echo "$line" | sed -n 's/.*started \([0-9]*\) ms after its spawn.*/\1/p') "
    [ -n "$fresh" ] && RCPU[$kind]+="$(( $(pid_ticks "$fresh") * 1000 / TICK )) "
    m0_stop "$sup"
  done
done
for kind in new $OLD; do
  printf "  %-4s %6s ms  [%s]   CPU %5s ms   load %s\n" "$kind" "$(echo "${KILLED[$kind]}" | tr ' ' '\n' | grep . | median)" \
    "$(echo "${SPAWNED[$kind]}" | xargs)" "$(echo "${RCPU[$kind]}" | tr ' ' '\n' | grep . | median)" "$(loadavg)"
done
fi

# ---- 4. CPU per request, requests per second --------------------------------------------------------
if part cpu; then
echo
PN=$(free_port); PO=$(free_port)
m0_start cnew "$PN" new --workers 2
m0_start cold "$PO" $OLD --workers 2
wrk -t2 -c32 -d5s "http://127.0.0.1:$PN/" >/dev/null # warm-up (JIT)
wrk -t2 -c32 -d5s "http://127.0.0.1:$PO/" >/dev/null
echo "keep-alive hello, 2 workers, wrk -t2 -c32, $ROUNDS x 10 s alternating (load $(loadavg))"
printf "  %-6s %-5s %12s %10s %12s\n" round kind requests "us CPU/req" "req/s"
declare -A REQS=([new]=0 [$OLD]=0) TICKS=([new]=0 [$OLD]=0)
for r in $(seq "$ROUNDS"); do
  for kind in new $OLD; do
    if [ "$kind" = new ]; then port=$PN; pid=$BENCH_PID_cnew; else port=$PO; pid=$BENCH_PID_cold; fi
    before=$(tree_ticks "$pid")
    wrk -t2 -c32 -d10s "http://127.0.0.1:$port/" >"$WORK/wrk.txt"
    after=$(tree_ticks "$pid")
    reqs=$(awk '/requests in/ {print $1}' "$WORK/wrk.txt")
    REQS[$kind]=$(( ${REQS[$kind]} + reqs )); TICKS[$kind]=$(( ${TICKS[$kind]} + after - before ))
    printf "  %-6s %-5s %12s %10s %12s\n" "$r" "$kind" "$reqs" \
      "$(awk -v t=$((after - before)) -v n="$reqs" -v hz="$TICK" 'BEGIN{printf "%.2f", t/hz*1e6/n}')" "$(wrk_rps "$WORK/wrk.txt")"
  done
done
awk -v rn="${REQS[new]}" -v tn="${TICKS[new]}" -v ro="${REQS[$OLD]}" -v to="${TICKS[$OLD]}" -v hz="$TICK" -v o="$OLD" 'BEGIN{
  cn = tn/hz*1e6/rn; co = to/hz*1e6/ro;
  printf "  total: new %.2f, %s %.2f us CPU/req: ratio new/%s %.3f; req/s ratio new/%s %.3f\n", cn, o, co, o, cn/co, o, rn/ro }'
fi
echo "load $(loadavg) at the end ($(date -u +%H:%M:%SZ))"
