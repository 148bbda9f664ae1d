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

if "${M0_JAVA[@]}" -jar "$JAR" --help 2>&1 | grep -q -- '--rebalance'; then REBALANCE=yes; else REBALANCE=no; fi
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

# "a/b" -> 0 when both are within 1 of EVEN
is_even() { awk -F/ -v e="$EVEN" '{ exit !(NF == 2 && $1 >= e - 1 && $1 <= e + 1 && $2 >= e - 1 && $2 <= e + 1) }' <<<"$1"; }

# ss's view, per worker process, largest first, padded to 2 ("64/0")
ss_split() { local s; s=$(conn_spread "$1"); case $s in "") echo 0/0 ;; */*) echo "$s" ;; *) echo "$s/0" ;; esac; }

# sample SUP PORT OUT : reads `m0serve stats --interval-ms 100` tables from stdin; per table one
# line "t active0/active1 state0,state1 ss-split", t from EPOCHREALTIME at the table's first line
sample() {
  local line t="" idx state active rest actives=() states=()
  while IFS= read -r line; do
    case $line in
      "m0serve stats:"*) t=$EPOCHREALTIME; actives=(); states=() ;;
      [0-9]*)
        read -r idx state active rest <<<"$line"
        [[ $state =~ ^[A-Z] && $active =~ ^[0-9]+$ ]] || continue
        actives+=("$active"); states+=("$state")
        if (( ${#actives[@]} == 2 )); then
          echo "$t ${actives[0]}/${actives[1]} ${states[0]},${states[1]} $(ss_split "$2")"
        fi ;;
    esac
  done >"$3"
}

echo "# recovery: 2 workers x 2 blocking threads, wrk -t2 -c$CONNS keep-alive $PATH_Q, SIGKILL one worker, limit ${LIMIT} s"
echo "# arms: ${ARMS[*]} (rebalance flag: $REBALANCE); $(date -u +%FT%TZ); $(nproc) cores; load average before: $(loadavg)"
printf "| round | arm | before (page / ss) | back to %d/%d after | page at +1 s, +2 s, end | ss at end | load |\n|---|---|---|---|---|---|---|\n" "$EVEN" "$EVEN"
for r in $(seq "$ROUNDS"); do
  for arm in "${ARMS[@]}"; do
    port=$(free_port)
    # shellcheck disable=SC2046
    m0serve_start rec "$port" --workers 2 --blocking-threads 2 $(arm_args "$arm")
    sup=$BENCH_PID_rec
    wrk -t2 -c"$CONNS" -d"$((LIMIT + 30))s" "http://127.0.0.1:$port$PATH_Q" >"$WORK/wrk.txt" 2>&1 &
    wrkpid=$!
    sleep 3 # every connection open and serving
    before="$("${M0_JAVA[@]}" -jar "$JAR" stats --pid "$sup" \
      | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[A-Z]/ { s = s (s ? "/" : "") $3 } END { print s }') / $(ss_split "$port")"

    mkfifo "$WORK/stats.fifo"
    "${M0_JAVA[@]}" -jar "$JAR" stats --pid "$sup" --interval-ms 100 >"$WORK/stats.fifo" 2>"$WORK/stats.err" &
    statspid=$!
    sample "$sup" "$port" "$WORK/samples.txt" <"$WORK/stats.fifo" &
    samplepid=$!
    SAMPLER_PIDS=("$statspid" "$samplepid")
    for _ in $(seq 300); do [ -s "$WORK/samples.txt" ] && break; sleep 0.1; done # the sampler's JVM is up
    victim=$(pgrep -P "$sup" | head -1)
    t_kill=$EPOCHREALTIME
    kill -KILL "$victim"
    sleep "$LIMIT"
    kill "$statspid" 2>/dev/null || true
    wait "$statspid" 2>/dev/null || true
    wait "$samplepid" 2>/dev/null || true
    SAMPLER_PIDS=()
    rm -f "$WORK/stats.fifo"
    kill "$wrkpid" 2>/dev/null || true
    wait "$wrkpid" 2>/dev/null || true

    # Even = the page says 32/32 (+-1) with both lines serving, AND ss agrees: a SIGKILLed
    # worker's line keeps its last `active` until its replacement starts, so the page alone
    # would read 32/32 in the instant after the kill.
    back=never; at1=-; at2=-; last_page=-; last_ss=-
    while read -r t page states ss; do
      dt=$(awk -v a="$t" -v b="$t_kill" 'BEGIN { printf "%.2f", a - b }')
      awk -v d="$dt" 'BEGIN { exit !(d >= 0) }' || continue
      [ "$at1" = - ] && awk -v d="$dt" 'BEGIN { exit !(d >= 1) }' && at1=$page
      [ "$at2" = - ] && awk -v d="$dt" 'BEGIN { exit !(d >= 2) }' && at2=$page
      last_page=$page; last_ss=$ss
      if [ "$back" = never ] && is_even "$page" && is_even "$ss" && [[ $states != *LEFT* && $states != *NOT_STARTED* ]]; then
        back="$dt s"
      fi
    done <"$WORK/samples.txt"
    [ "$back" = never ] && back="never within $LIMIT s"
    bench_stop "$sup"
    printf "| %d | %s | %s | %s | %s, %s, %s | %s | %s |\n" "$r" "$arm" "$before" "$back" "$at1" "$at2" "$last_page" "$last_ss" "$(loadavg)"
  done
done
echo "# load average after: $(loadavg)"
