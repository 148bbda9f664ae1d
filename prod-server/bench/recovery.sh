#!/usr/bin/env bash
# Crash-respawn recovery (issue 10): a 2-worker server under wrk -t2 -c64 keep-alive, /sleep?ms=5
# (2 blocking threads); SIGKILL one worker; wrk reconnects the connections it lost; the
# supervisor respawns the worker. Per-worker open connections are sampled every 100 ms with
# `m0serve stats --pid SUP --interval-ms 100` (the page's `active`) and checked against ss
# (which process holds each socket): prints the time from the kill until both say 32/32 (+-1),
# or "never within N s". Without idle-connection rebalance nothing moves an established
# connection, so today's answer is "never": the baseline.
#
#   prod-server/bench/recovery.sh [limit_seconds=10] [rounds=1]
#
# Arms: share; and share-rboff (--rebalance off) when `m0serve --help` lists --rebalance (share then
# runs with --rebalance on). ARMS="share" to choose.
set -euo pipefail
LIMIT=${1:-10}
ROUNDS=${2:-1}
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
JAR="${M0SERVE_JAR:-$BENCH_DIR/../target/m0serve.jar}"
[ -f "$JAR" ] || { echo "$JAR missing: mvn -q -pl prod-server -am package -DskipTests" >&2; exit 1; }
command -v wrk >/dev/null || { echo "wrk missing: apt-get install -y wrk" >&2; exit 1; }
WORK=$(mktemp -d /tmp/m0-recovery.XXXXXX)
. "$BENCH_DIR/lib.sh"
SAMPLER_PIDS=()
trap 'for p in "${SAMPLER_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; bench_cleanup; rm -rf "$WORK"' EXIT

REBALANCE=$(m0serve_rebalance_flag)
if [ "$REBALANCE" = yes ]; then DEFAULT_ARMS="share share-rboff"; else DEFAULT_ARMS="share"; fi
read -r -a ARMS <<<"${ARMS:-$DEFAULT_ARMS}"
PATH_Q=${PATH_Q:-'/sleep?ms=5'}
CONNS=64
EVEN=$((CONNS / 2))

arm_args() {
  case $1 in
    share) [ "$REBALANCE" = yes ] && echo --rebalance on ;;
    share-rboff) echo --rebalance off ;;
  esac
  return 0
}

conn_total() { ss -Htn state established "( sport = :$1 )" 2>/dev/null | wc -l; }

# "a/b" -> 0 when both are within 1 of EVEN
is_even() { awk -F/ -v e="$EVEN" '{ exit !(NF == 2 && $1 >= e - 1 && $1 <= e + 1 && $2 >= e - 1 && $2 <= e + 1) }' <<<"$1"; }

# sample OUT : reads `m0serve stats --interval-ms 100` tables from stdin and writes one line per
# table, "t active0/active1 state0,state1", t from EPOCHREALTIME at the table's first line.
# Builtins only (no fork per table), so the loop keeps up and t is when the table was printed.
sample() {
  local line t="" f actives=() states=()
  set -f
  while IFS= read -r line; do
    case $line in
      "m0serve stats:"*) t=$EPOCHREALTIME; actives=(); states=() ;;
      [0-9]*)
        f=($line) # index state active pending taken sent received forwarded [busy]
        [[ ${#f[@]} -ge 8 && ${f[1]} =~ ^[A-Z] ]] || continue # busy: a 9th column since issue 11
        actives+=("${f[2]}"); states+=("${f[1]}")
        (( ${#actives[@]} == 2 )) && echo "$t ${actives[0]}/${actives[1]} ${states[0]},${states[1]}" ;;
    esac
  done >"$1"
}

echo "# recovery: 2 workers x 2 blocking threads, wrk -t2 -c$CONNS keep-alive $PATH_Q, SIGKILL one worker, limit ${LIMIT} s"
echo "# arms: ${ARMS[*]} (rebalance flag: $REBALANCE); $(date -u +%FT%TZ); $(nproc) cores; load average before: $(loadavg)"
printf "| round | arm | before: page w0/w1 / ss | killed | back to %d/%d after the kill | page w0/w1 at +1 s, +2 s, end | ss at end | load |\n|---|---|---|---|---|---|---|---|\n" "$EVEN" "$EVEN"
for r in $(seq "$ROUNDS"); do
  for arm in "${ARMS[@]}"; do
    port=$(free_port)
    # shellcheck disable=SC2046
    m0serve_start rec "$port" --workers 2 --blocking-threads 2 $(arm_args "$arm")
    sup=$BENCH_PID_rec
    # The sampler first: its JVM takes seconds to start on a loaded machine, and the kill waits
    # for its first table.
    mkfifo "$WORK/stats.fifo"
    "${M0_JAVA[@]}" -jar "$JAR" stats --pid "$sup" --interval-ms 100 >"$WORK/stats.fifo" 2>"$WORK/stats.err" &
    statspid=$!
    sample "$WORK/samples.txt" <"$WORK/stats.fifo" &
    samplepid=$!
    SAMPLER_PIDS=("$statspid" "$samplepid")
    for _ in $(seq 600); do [ -s "$WORK/samples.txt" ] && break; sleep 0.1; done
    # Bounded twice: wrk's own -d, and it is stopped once the sampling ends.
    wrk -t2 -c"$CONNS" -d"$((LIMIT + 120))s" "http://127.0.0.1:$port$PATH_Q" >"$WORK/wrk.txt" 2>&1 &
    wrkpid=$!
    for _ in $(seq 300); do [ "$(conn_total "$port")" -ge "$CONNS" ] && break; sleep 0.1; done
    sleep 1 # every connection serving
    before="$(tail -1 "$WORK/samples.txt" | cut -d' ' -f2) / $(conn_split "$port" 2)"
    # The worker JVM (index=N on its command line) holding the most connections: its clients
    # must reconnect, which is what recovery is about (killing an idle worker moves nothing).
    workers=$(pgrep -P "$sup" -f 'm0\.server\.worker\.Worker' || true)
    victim=$(ss -Htnp state established "( sport = :$port )" 2>/dev/null | grep -o 'pid=[0-9]*' \
      | sort | uniq -c | sort -rn | awk '{ sub("pid=", "", $2); print $2 }' | grep -Fxf <(echo "$workers") | head -1 || true)
    victim=${victim:-$(head -1 <<<"$workers")}
    [ -n "$victim" ] || { echo "no worker of supervisor $sup to kill" >&2; exit 1; }
    victim_index=$(tr '\0' '\n' <"/proc/$victim/cmdline" | sed -n 's/^index=//p')
    t_kill=$EPOCHREALTIME
    kill -KILL "$victim"
    sleep "$LIMIT"
    last_ss=$(conn_split "$port" 2)
    kill "$statspid" 2>/dev/null || true
    wait "$statspid" 2>/dev/null || true
    wait "$samplepid" 2>/dev/null || true
    SAMPLER_PIDS=()
    rm -f "$WORK/stats.fifo"
    kill "$wrkpid" 2>/dev/null || true
    wait "$wrkpid" 2>/dev/null || true

    # Back = the first table after the kill where both lines serve with 32 (+-1) active, once the
    # page has left the split it had before: a SIGKILLed worker's line keeps its last `active`
    # until it is reaped, so in the instant after the kill the page still reads the old split.
    # ss (which process holds each socket) is read at the end as the OS's cross-check.
    back=never; left=no; at1=-; at2=-; last_page=-
    while read -r t page states; do
      dt=$(awk -v a="$t" -v b="$t_kill" 'BEGIN { printf "%.2f", a - b }')
      [[ $dt == -* ]] && continue
      [ "$at1" = - ] && awk -v d="$dt" 'BEGIN { exit !(d >= 1) }' && at1="$page ($states)"
      [ "$at2" = - ] && awk -v d="$dt" 'BEGIN { exit !(d >= 2) }' && at2="$page ($states)"
      last_page="$page ($states)"
      serving=yes; [[ $states == *LEFT* || $states == *NOT_STARTED* ]] && serving=no
      if [ "$left" = no ]; then
        [ "$serving" = no ] || ! is_even "$page" && left=yes
      elif [ "$back" = never ] && [ "$serving" = yes ] && is_even "$page"; then
        back="$dt s"
      fi
    done <"$WORK/samples.txt"
    [ "$back" = never ] && back="never within $LIMIT s"
    bench_stop "$sup"
    printf "| %d | %s | %s | w%s | %s | %s, %s, %s | %s | %s |\n" "$r" "$arm" "$before" "$victim_index" "$back" "$at1" "$at2" "$last_page" "$last_ss" "$(loadavg)"
  done
done
echo "# load average after: $(loadavg)"
