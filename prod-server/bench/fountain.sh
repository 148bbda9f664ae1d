#!/usr/bin/env bash
# Issue 11, the server half: --accept-policy fountain against share and race, and the herd
# (EPOLLEXCLUSIVE) against nginx. docs/adr/0022; results in docs/bench.md.
#
#   1. Open loop, a new connection per request (the case fountain is for): share's
#      connection-close capacity is measured first (wrk -t2 -c32 -H 'Connection: close'), then a
#      constant-rate generator (h2load --h1 in rate mode, or GEN=java for bench/OpenLoop.java)
#      opens new connections, one request on each, at 25, 50 and 75 % of it, for fountain,
#      share, race and share-herd; server CPU per request (utime+stime of the server's process
#      tree from /proc), p50 and p99 of the request times.
#   2. Closed loop, 64 keep-alive connections (wrk -t2 -c64), `/` and `/sleep?ms=5`: fountain
#      over share throughput, and how the 64 landed.
#   3. Wake-ups that accepted nothing per accepted connection, per policy (the workers'
#      counters, m0serve stats --json, over section 1's runs), and fountain's looks.
#   4. The herd: wrk -t2 -c32 -H 'Connection: close', server CPU per request for share, race,
#      share without EPOLLEXCLUSIVE (--dev-listen-exclusive off: the herd as it was) and nginx 1.22.
# At 2 and 4 workers; arms alternate within each round and the order rotates between rounds.
# Every row carries the load average: this machine is shared, only side-by-side ratios count.
#
#   prod-server/bench/fountain.sh [rounds=3] [seconds=5] [workers="2 4"] [pause=3]
#
# SECTIONS="open closed herd" (default: all; section 3 comes with "open"); PATHS (section 2's
# paths, default "/ /sleep?ms=5": PATHS="/sleep?ms=5" runs the pool's row alone); WARM=5 seconds of
# unmeasured load per server first (the JIT). share-herd is share with --dev-listen-exclusive off.
# Needs wrk, h2load (Debian nghttp2-client), nginx, python3, java and the jar
# (mvn -q -pl prod-server package -DskipTests; or M0SERVE_JAR=...).
set -euo pipefail
ROUNDS=${1:-3}
SECS=${2:-5}
WORKER_COUNTS=${3:-"2 4"}
PAUSE=${4:-3}
WARM=${WARM:-5}
SECTIONS=${SECTIONS:-"open closed herd"}
PATHS=${PATHS:-"/ /sleep?ms=5"}
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
JAR="${M0SERVE_JAR:-$BENCH_DIR/../target/m0serve.jar}"
[ -f "$JAR" ] || { echo "$JAR missing: mvn -q -pl prod-server package -DskipTests" >&2; exit 1; }
for t in wrk h2load python3 java; do command -v "$t" >/dev/null || { echo "$t missing" >&2; exit 1; }; done
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
WORK=$(mktemp -d /tmp/m0-fountain.XXXXXX)
. "$BENCH_DIR/lib.sh"
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
TICK=$(getconf CLK_TCK)
javac -d "$WORK/cls" "$BENCH_DIR/OpenLoop.java"
section() { [[ " $SECTIONS " == *" $1 "* ]]; }

# counters PID -> "accepted empty looks busy_s wakeups", summed over the live workers
counters() {
  "${M0_JAVA[@]}" -jar "$JAR" stats --pid "$1" --json | python3 -c '
import json, sys
w = json.loads(sys.stdin.readline())["workers"]
print(sum(x.get("accepted", 0) for x in w), sum(x.get("empty_wakeups", 0) for x in w),
      sum(x.get("looks", 0) for x in w), round(sum(x.get("busy_s", 0) for x in w), 3),
      sum(x.get("wakeups", 0) for x in w))'
}

# ratio A B [FORMAT] -> A / B, "-" when B is 0
ratio() { awk -v a="$1" -v b="$2" -v f="${3:-%.3f}" 'BEGIN{ if (b > 0) printf f, a / b; else print "-" }'; }

# openloop, percentiles, offered: lib.sh (GEN=h2load or java; needs $WORK/cls/OpenLoop.class for java)

us_per_req() { awk -v t="$1" -v n="$2" -v hz="$TICK" 'BEGIN{ if (n > 0) printf "%.1f", t/hz*1e6/n; else print "-" }'; }

echo "# fountain bench; $(date -u +%FT%TZ); $(nproc) cores; open-loop generator ${GEN:-h2load}; load average before: $(loadavg)"
echo "# rounds $ROUNDS, ${SECS}s per run, pause ${PAUSE}s, workers: $WORKER_COUNTS"

for W in $WORKER_COUNTS; do
  declare -A PORT=() PID=()
  ARMS=(fountain share race share-herd)
  for a in "${ARMS[@]}"; do
    PORT[$a]=$(free_port)
    name=${a/-/_}$W
    if [ "$a" = share-herd ]; then
      m0serve_start "$name" "${PORT[$a]}" --workers "$W" --blocking-threads 2 --dev-listen-exclusive off
    else
      m0serve_start "$name" "${PORT[$a]}" --workers "$W" --blocking-threads 2 --accept-policy "$a"
    fi
    PID[$a]=$(eval echo "\$BENCH_PID_$name")
  done
  echo
  echo "## $W workers"
  for a in "${ARMS[@]}"; do  # warm-up (JIT), unmeasured
    wrk -t2 -c32 -d"${WARM}s" -H 'Connection: close' "http://127.0.0.1:${PORT[$a]}/" >/dev/null; sleep "$PAUSE"
    wrk -t2 -c64 -d"${WARM}s" "http://127.0.0.1:${PORT[$a]}/" >/dev/null
  done
  sleep "$PAUSE"

  if section open; then
    wrk -t2 -c32 -d"${SECS}s" -H 'Connection: close' "http://127.0.0.1:${PORT[share]}/" >"$WORK/cap.txt"
    CAP=$(wrk_rps "$WORK/cap.txt" | awk '{printf "%.0f", $1}')
    [ "${CAP:-0}" -gt 0 ] || { echo "share's capacity run measured nothing: $(cat "$WORK/cap.txt")" >&2; exit 1; }
    echo
    echo "### 1. open loop, a new connection per request; share's connection-close capacity $CAP req/s ($(loadavg))"
    sleep "$PAUSE"
    declare -A REQ=() TCK=() EMPTY=() ACC=() LOOKS=() RATEOK=() ERR=() WAKE=()
    for r in $(seq "$ROUNDS"); do
      for pct in 25 50 75; do
        rate=$(offered "$pct")
        for k in "${!ARMS[@]}"; do
          a=${ARMS[$(( (k + r - 1) % ${#ARMS[@]} ))]}
          read -r acc0 emp0 lk0 _ wk0 < <(counters "${PID[$a]}")
          read -r n t got e < <(openloop "${PORT[$a]}" "${PID[$a]}" "$rate" "$WORK/log-$a-$pct-$r")
          read -r acc1 emp1 lk1 _ wk1 < <(counters "${PID[$a]}")
          key="$a:$pct"
          REQ[$key]=$(( ${REQ[$key]:-0} + n )); TCK[$key]=$(( ${TCK[$key]:-0} + t ))
          ACC[$key]=$(( ${ACC[$key]:-0} + acc1 - acc0 )); EMPTY[$key]=$(( ${EMPTY[$key]:-0} + emp1 - emp0 ))
          LOOKS[$key]=$(( ${LOOKS[$key]:-0} + lk1 - lk0 )); ERR[$key]=$(( ${ERR[$key]:-0} + e ))
          WAKE[$key]=$(( ${WAKE[$key]:-0} + wk1 - wk0 ))
          RATEOK[$key]="${RATEOK[$key]:-}${RATEOK[$key]:+,}$got"
          printf "round %d %3d%% (%5d/s) %-8s %7d req %6s us CPU/req, p50/p99 %s ms, achieved %s/s, errors %s; load %s\n" \
            "$r" "$pct" "$rate" "$a" "$n" "$(us_per_req "$t" "$n")" "$(percentiles "$WORK/log-$a-$pct-$r" | tr ' ' /)" \
            "$got" "$e" "$(loadavg)"
          sleep "$PAUSE"
        done
      done
    done
    echo
    echo "| workers | load | rate | policy | CPU µs/req | ÷ share | p50 ms | p99 ms | p99 ÷ share | achieved/s (rounds) | errors |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
    for pct in 25 50 75; do
      rate=$(offered "$pct")
      read -r sp50 sp99 < <(percentiles "$WORK"/log-share-$pct-*)
      scpu=$(us_per_req "${TCK[share:$pct]}" "${REQ[share:$pct]}")
      for a in "${ARMS[@]}"; do
        read -r p50 p99 < <(percentiles "$WORK"/log-$a-$pct-*)
        cpu=$(us_per_req "${TCK[$a:$pct]}" "${REQ[$a:$pct]}")
        printf "| %d | %d %% | %d/s | %s | %s | %s | %s | %s | %s | %s | %s |\n" "$W" "$pct" "$rate" "$a" "$cpu" \
          "$(awk -v x="$cpu" -v y="$scpu" 'BEGIN{printf "%.3f", x/y}')" "$p50" "$p99" \
          "$(awk -v x="$p99" -v y="$sp99" 'BEGIN{ if (y > 0) printf "%.2f", x/y; else print "-" }')" \
          "${RATEOK[$a:$pct]}" "${ERR[$a:$pct]}"
      done
    done
    echo
    echo "### 3. wake-ups that accepted nothing per accepted connection ($W workers, section 1's runs)"
    echo
    echo "| workers | rate | policy | accepted | empty wake-ups | per accepted | fountain's looks | per accepted | all wake-ups per accepted |"
    echo "|---|---|---|---|---|---|---|---|---|"
    for pct in 25 50 75; do
      for a in "${ARMS[@]}"; do
        key="$a:$pct"
        printf "| %d | %d %% | %s | %d | %d | %s | %d | %s | %s |\n" "$W" "$pct" "$a" "${ACC[$key]}" "${EMPTY[$key]}" \
          "$(ratio "${EMPTY[$key]}" "${ACC[$key]}")" "${LOOKS[$key]}" "$(ratio "${LOOKS[$key]}" "${ACC[$key]}" %.2f)" \
          "$(ratio "${WAKE[$key]}" "${ACC[$key]}" %.2f)"
      done
    done
    # The price of leaving the listener: a later worker looks every 1 ms, idle or not.
    read -r _ _ lk0 b0 < <(counters "${PID[fountain]}")
    t0=$(tree_ticks "${PID[fountain]}"); s0=$(tree_ticks "${PID[share]}")
    sleep "$SECS"
    read -r _ _ lk1 b1 < <(counters "${PID[fountain]}")
    t1=$(tree_ticks "${PID[fountain]}"); s1=$(tree_ticks "${PID[share]}")
    echo
    echo "idle ${SECS}s: fountain's looks $(( (lk1 - lk0) / SECS ))/s, its loops busy $(awk -v a="$b0" -v b="$b1" -v s="$SECS" 'BEGIN{printf "%.2f", (b-a)/s*100}') % of one core;" \
      "server CPU idle: fountain $(( t1 - t0 )) ticks, share $(( s1 - s0 )) ticks (CLK_TCK $TICK); load $(loadavg)"
    unset REQ TCK EMPTY ACC LOOKS RATEOK ERR WAKE
  fi

  if section closed; then
    echo
    echo "### 2. closed loop, wrk -t2 -c64 keep-alive, fountain ÷ share throughput ($W workers)"
    echo
    declare -A RPS=()
    for path in $PATHS; do
      for r in $(seq "$ROUNDS"); do
        if (( r % 2 )); then order=(fountain share); else order=(share fountain); fi
        for a in "${order[@]}"; do
          ( sleep 1; conn_split "${PORT[$a]}" "$W" >"$WORK/split-$a" ) &
          split=$!
          wrk -t2 -c64 -d"${SECS}s" "http://127.0.0.1:${PORT[$a]}$path" >"$WORK/wrk.txt"
          wait "$split"  # this one only: the servers are children of this shell too
          rps=$(wrk_rps "$WORK/wrk.txt")
          RPS[$a:$path]="${RPS[$a:$path]:-}${RPS[$a:$path]:+ }$rps"
          printf "round %d %-12s %-8s %10s req/s, connections %s; load %s\n" "$r" "$path" "$a" "$rps" \
            "$(cat "$WORK/split-$a")" "$(loadavg)"
        done
      done
    done
    echo
    echo "| workers | path | fountain req/s (rounds) | share req/s (rounds) | fountain ÷ share |"
    echo "|---|---|---|---|---|"
    for path in $PATHS; do
      printf "| %d | %s | %s | %s | %s |\n" "$W" "$path" "${RPS[fountain:$path]}" "${RPS[share:$path]}" \
        "$(awk -v f="${RPS[fountain:$path]}" -v s="${RPS[share:$path]}" 'BEGIN{
          n = split(f, a, " "); split(s, b, " "); x = 0; y = 0; for (i = 1; i <= n; i++) { x += a[i]; y += b[i] }
          printf "%.3f", x / y }')"
    done
    unset RPS
  fi

  for a in "${ARMS[@]}"; do bench_stop "${PID[$a]}"; done

  if section herd; then
    declare -A HP=() HPID=()
    HP[share]=$(free_port); m0serve_start "hs$W" "${HP[share]}" --workers "$W" --blocking-threads 0
    HP[race]=$(free_port); m0serve_start "hr$W" "${HP[race]}" --workers "$W" --blocking-threads 0 --accept-policy race
    HP[share-herd]=$(free_port)
    m0serve_start "hh$W" "${HP[share-herd]}" --workers "$W" --blocking-threads 0 --dev-listen-exclusive off
    HPID[share]=$(eval echo "\$BENCH_PID_hs$W"); HPID[race]=$(eval echo "\$BENCH_PID_hr$W")
    HPID[share-herd]=$(eval echo "\$BENCH_PID_hh$W")
    HP[nginx]=$(free_port); nginx_start "ng$W" "${HP[nginx]}" "$W"; HPID[nginx]=$(eval echo "\$BENCH_PID_ng$W")
    HARMS=(share race share-herd nginx)
    WRK=(wrk -t2 -c32 -H 'Connection: close')
    for a in "${HARMS[@]}"; do "${WRK[@]}" -d"${WARM}s" "http://127.0.0.1:${HP[$a]}/" >/dev/null; sleep "$PAUSE"; done
    echo
    echo "### 4. the herd: ${WRK[*]}, server CPU per request ($W workers)"
    echo
    declare -A HREQ=() HTCK=() HRPS=() HACC=() HEMP=() HWAKE=()
    for r in $(seq "$ROUNDS"); do
      for k in "${!HARMS[@]}"; do
        a=${HARMS[$(( (k + r - 1) % ${#HARMS[@]} ))]}
        acc0=0; emp0=0; wk0=0; acc1=0; emp1=0; wk1=0
        [ "$a" = nginx ] || read -r acc0 emp0 _ _ wk0 < <(counters "${HPID[$a]}")
        b=$(tree_ticks "${HPID[$a]}")
        "${WRK[@]}" -d"${SECS}s" "http://127.0.0.1:${HP[$a]}/" >"$WORK/wrk.txt"
        t=$(( $(tree_ticks "${HPID[$a]}") - b ))
        [ "$a" = nginx ] || read -r acc1 emp1 _ _ wk1 < <(counters "${HPID[$a]}")
        HACC[$a]=$(( ${HACC[$a]:-0} + acc1 - acc0 )); HEMP[$a]=$(( ${HEMP[$a]:-0} + emp1 - emp0 ))
        HWAKE[$a]=$(( ${HWAKE[$a]:-0} + wk1 - wk0 ))
        n=$(awk '/requests in/ {print $1}' "$WORK/wrk.txt")
        HREQ[$a]=$(( ${HREQ[$a]:-0} + n )); HTCK[$a]=$(( ${HTCK[$a]:-0} + t ))
        HRPS[$a]="${HRPS[$a]:-}${HRPS[$a]:+ }$(wrk_rps "$WORK/wrk.txt")"
        printf "round %d %-10s %8s req/s %6s us CPU/req, errors %s; load %s\n" "$r" "$a" "$(wrk_rps "$WORK/wrk.txt")" \
          "$(us_per_req "$t" "$n")" "$(wrk_errors "$WORK/wrk.txt")" "$(loadavg)"
        sleep "$PAUSE"
      done
    done
    echo
    echo "| workers | server | CPU µs/req | ÷ nginx | req/s (rounds) | empty wake-ups per accepted | wake-ups per accepted |"
    echo "|---|---|---|---|---|---|---|"
    ng=$(us_per_req "${HTCK[nginx]}" "${HREQ[nginx]}")
    for a in "${HARMS[@]}"; do
      cpu=$(us_per_req "${HTCK[$a]}" "${HREQ[$a]}")
      printf "| %d | %s | %s | %s | %s | %s | %s |\n" "$W" "$a" "$cpu" "$(ratio "$cpu" "$ng" %.2f)" "${HRPS[$a]}" \
        "$(ratio "${HEMP[$a]}" "${HACC[$a]}")" "$(ratio "${HWAKE[$a]}" "${HACC[$a]}" %.2f)"
    done
    for a in "${HARMS[@]}"; do bench_stop "${HPID[$a]}"; done
    unset HP HPID HREQ HTCK HRPS HACC HEMP HWAKE
  fi
  unset PORT PID
done
echo
echo "# load average after: $(loadavg)"
