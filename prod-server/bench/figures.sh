#!/usr/bin/env bash
# The current figures, the table docs/bench.md opens with: m0serve at its default (share) and its
# other policies beside nginx 1.22, Netty 4.2 (bench/'s NettyHello, native epoll) and uvicorn
# (Debian python3-uvicorn), all answering a hello, side by side in one run. Server CPU per request
# (utime+stime of each server's process tree, /proc) and its ratio to nginx's; arms rotate round
# by round (lib.sh's rounds_vs_nginx), so the machine's own load falls on every arm alike.
#
#   prod-server/bench/figures.sh [rounds=5] [seconds=4]
#
# SECTIONS (default all, in this order):
#   close    connection-close hello (wrk -t2 -c32 -H 'Connection: close', 3 s pause before each run),
#            at CLOSE_WORKERS (default "2 4"): share race fountain nginx netty uvicorn
#   ka       keep-alive hello (wrk -t2 -c32) at KA_WORKERS (default "1 2"): share nginx netty uvicorn
#   mixed    half the clients connection-close, joined 1.5 s later (the workers keep by then) by
#            as many keep-alive ones, on share at 2 workers: where the keep-alive half sits (ss,
#            each second) and what the whole costs beside race's
#   landing  cold first burst (FRESH fresh 2-worker servers, 32 keep-alive connections at once),
#            and 4 workers x 10 bursts of 64: landed at the first ask, settled 1 s later
#   open     open loop (h2load rate mode), new connection per request, at 20..100 % of nginx's
#            connection-close capacity at 2 workers: share race fountain nginx (the plot's curve)
# ARMS_CLOSE / ARMS_KA override the arms. Every row also goes to FIGURES_TSV (default
# figures.tsv in the current directory) for prod-server/bench/plot.sh and docs/figures/render.py
# (docs/bench.md's table; a close or ka run also adds a cpu-round row per arm and round: requests,
# seconds, us CPU/req, wrk's p50 and p99 in ms). WARM (default 10) seconds
# of unmeasured load per arm first (the JIT).
# Needs wrk, h2load (nghttp2-client), nginx, python3-uvicorn, java, the jar
# (mvn -q -pl prod-server -am package -DskipTests) and bench's (mvn -q -pl bench -am package -DskipTests).
set -euo pipefail
ROUNDS=${1:-5}
SECS=${2:-4}
SECTIONS=${SECTIONS:-"close ka mixed landing open"}
FRESH=${FRESH:-20}
export WARM=${WARM:-10}
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
JAR="${M0SERVE_JAR:-$BENCH_DIR/../target/m0serve.jar}"
[ -f "$JAR" ] || { echo "$JAR missing: mvn -q -pl prod-server -am package -DskipTests" >&2; exit 1; }
for t in wrk h2load python3 java ss; do command -v "$t" >/dev/null || { echo "$t missing" >&2; exit 1; }; done
TSV=$(realpath -m "${FIGURES_TSV:-figures.tsv}")
WORK=$(mktemp -d /tmp/m0-figures.XXXXXX)
. "$BENCH_DIR/lib.sh"
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
TICK=$(getconf CLK_TCK)
section() { [[ " $SECTIONS " == *" $1 "* ]]; }
has_uvicorn() { /usr/bin/python3 -c 'import uvicorn' 2>/dev/null; }
: >"$TSV"
REV=$(git -C "$BENCH_DIR" rev-parse --short HEAD 2>/dev/null || echo unknown)
echo "# figures; $(date -u +%FT%TZ); commit $REV; $(nproc) cores; load $(loadavg); rounds $ROUNDS x ${SECS}s, warm ${WARM}s"
printf "meta\t%s\t%s\t%s\n" "$(date -u +%FT%TZ)" "$REV" "$(nproc)" >>"$TSV"

# start ARM NAME PORT WORKERS: share/race/fountain are m0serve policies (no blocking pool: a hello)
start_arm() {
  case $1 in
    nginx) nginx_start "$2" "$3" "$4" ;;
    netty) netty_start "$2" "$3" "$4" ;;
    uvicorn) uvicorn_start "$2" "$3" "$4" ;;
    *) m0serve_start "$2" "$3" --workers "$4" --blocking-threads 0 --accept-policy "$1" ;;
  esac
}

# cpu_table LOAD WORKERS ARM... : start the arms, rounds_vs_nginx under the caller's WRK_ARGS, stop them
cpu_table() {
  local load=$1 w=$2 a out; shift 2
  declare -gA PORT=() PID=() REQ=() TCK=()
  for a in "$@"; do
    PORT[$a]=$(free_port)
    start_arm "$a" "${a}_$w" "${PORT[$a]}" "$w"
    local v="BENCH_PID_${a}_$w"; PID[$a]=${!v}
  done
  echo
  echo "## $load hello, $w workers: wrk -t2 -c32 ${WRK_ARGS[*]:-} -d${SECS}s x$ROUNDS ($(loadavg))"
  ROUNDS_TSV="$WORK/rounds.tsv"; : >"$ROUNDS_TSV"
  rounds_vs_nginx "$ROUNDS" "$SECS" "$PAUSE" "$@" | tee "$WORK/rounds.txt"
  out=$(cat "$WORK/rounds.txt")
  # "share  12.34 us/req  0.950 x nginx  12345 req/s" -> tsv
  awk -v l="$load" -v w="$w" '/us\/req/ {printf "cpu\t%s\t%s\t%s\t%s\t%s\t%s\n", l, w, $1, $2, $4, $7}' <<<"$out" >>"$TSV"
  # each run of each arm: the spread between rounds and wrk's p50/p99 (docs/figures/render.py)
  awk -v l="$load" -v w="$w" '{printf "cpu-round\t%s\t%s\t%s\n", l, w, $0}' "$ROUNDS_TSV" >>"$TSV"
  ROUNDS_TSV=""
  for a in "$@"; do bench_stop "${PID[$a]}"; done
}

if section close; then
  WRK_ARGS=(-H 'Connection: close'); PAUSE=3
  arms=${ARMS_CLOSE:-"share race fountain nginx netty $(has_uvicorn && echo uvicorn)"}
  for w in ${CLOSE_WORKERS:-2 4}; do cpu_table close "$w" $arms; done
fi

if section ka; then
  WRK_ARGS=(); PAUSE=""
  arms=${ARMS_KA:-"share nginx netty $(has_uvicorn && echo uvicorn)"}
  for w in ${KA_WORKERS:-1 2}; do cpu_table keep-alive "$w" $arms; done
fi

# mixed: 16 connection-close clients, then 16 keep-alive ones with them (two wrk), share and race side by side
if section mixed; then
  (( SECS >= 2 )) || { echo "mixed needs seconds >= 2 (its readings are one a second)" >&2; exit 2; }
  echo
  echo "## mixed: wrk -t1 -c16 connection-close, joined 1.5 s later by wrk -t1 -c16 keep-alive, 2 workers, x$ROUNDS (${SECS}s)"
  declare -A MP=() MPID=()
  for a in share race; do
    MP[$a]=$(free_port); start_arm "$a" "mixed_$a" "${MP[$a]}" 2
    v="BENCH_PID_mixed_$a"; MPID[$a]=${!v}
    wrk -t2 -c32 -H 'Connection: close' -d"${WARM}s" "http://127.0.0.1:${MP[$a]}/" >/dev/null; sleep 2
  done
  for r in $(seq "$ROUNDS"); do
    for a in share race; do
      sleep 3
      b=$(tree_ticks "${MPID[$a]}")
      # The close half first, so that the workers keep (ADR 0041) before the keep-alive half
      # connects: it lands as the race would land it, and what evens it is ADR 0059's look.
      wrk -t1 -c16 -H 'Connection: close' -d"$(( SECS + 2 ))s" "http://127.0.0.1:${MP[$a]}/" >"$WORK/cl.txt" &
      cp=$!
      sleep 1.5
      wrk -t1 -c16 -d"${SECS}s" "http://127.0.0.1:${MP[$a]}/" >"$WORK/ka.txt" &
      kp=$!
      spread=""  # the 16 keep-alive plus whatever close ones are open, each second while both run
      for k in $(seq $(( SECS - 1 ))); do sleep 1; spread="$spread${spread:+ }$(conn_split "${MP[$a]}" 2)"; done
      wait "$kp" "$cp"
      t=$(( $(tree_ticks "${MPID[$a]}") - b ))
      kreq=$(awk '/requests in/ {print $1}' "$WORK/ka.txt"); creq=$(awk '/requests in/ {print $1}' "$WORK/cl.txt")
      us=$(awk -v t="$t" -v q="$((kreq + creq))" -v hz="$TICK" 'BEGIN{printf "%.2f", t/hz*1e6/q}')
      printf "round %d %-6s keep-alive %8d req, close %7d req, %6s us CPU/req, connections each second %s\n" \
        "$r" "$a" "$kreq" "$creq" "$us" "$spread"
      printf "mixed\t%s\t%s\t%s\t%s\t%s\t%s\n" "$a" "$r" "$kreq" "$creq" "$us" "$spread" >>"$TSV"
    done
  done
  # where the keep-alive half sits when the close half has gone: 16 connections, exact is 8/8
  # (the close half first again, so that they landed while the workers kept)
  for a in share race; do
    wrk -t1 -c16 -H 'Connection: close' -d"${SECS}s" "http://127.0.0.1:${MP[$a]}/" >/dev/null &
    cp=$!
    sleep 1.5
    wrk -t1 -c16 -d"$(( SECS + 2 ))s" "http://127.0.0.1:${MP[$a]}/" >/dev/null &
    kp=$!
    wait "$cp"
    sleep 1
    echo "$a: the keep-alive 16 once the close clients stopped: $(conn_split "${MP[$a]}" 2)"
    printf "mixed-ka\t%s\t%s\n" "$a" "$(conn_split "${MP[$a]}" 2)" >>"$TSV"
    wait "$kp"
  done
  for a in share race; do bench_stop "${MPID[$a]}"; done
fi

if section landing; then
  arm_start() { m0serve_start "$1" "$3" --workers "$4"; }  # the defaults: share, --rebalance on
  echo
  echo "## landing: cold first burst, 2 workers x32, $FRESH fresh servers (landed -> settled after 1 s)"
  cold_first_bursts "$FRESH" share | tee "$WORK/cold.txt"
  awk -F'|' '/^\| [0-9]+ \|/ {split($3, x, " -> "); sub(/,.*/, "", x[2]); gsub(/ /, "", x[1]); gsub(/ /, "", x[2]);
    printf "landing\tcold\t%d\t%s\t%s\n", $2, x[1], x[2]}' "$WORK/cold.txt" >>"$TSV"
  echo "## landing: 4 workers on $(nproc) cores, 10 bursts of 64 from the first round"
  four_worker_bursts share
  i=0
  while read -r settled landed; do
    i=$((i + 1)); printf "landing\tfour\t%d\t%s\t%s\n" "$i" "$landed" "$settled" >>"$TSV"
  done <"$WORK/four_share.txt"
fi

if section open; then
  echo
  W=${OPEN_WORKERS:-2}
  declare -A OP=() OPID=()
  for a in share race fountain nginx; do
    OP[$a]=$(free_port); start_arm "$a" "open_$a" "${OP[$a]}" "$W"
    v="BENCH_PID_open_$a"; OPID[$a]=${!v}
    wrk -t2 -c32 -H 'Connection: close' -d"${WARM}s" "http://127.0.0.1:${OP[$a]}/" >/dev/null; sleep 3
  done
  wrk -t2 -c32 -H 'Connection: close' -d"${SECS}s" "http://127.0.0.1:${OP[nginx]}/" >"$WORK/cap.txt"
  CAP=$(wrk_rps "$WORK/cap.txt" | awk '{printf "%.0f", $1}')
  echo "## open loop, $W workers, new connection per request; nginx's connection-close capacity $CAP req/s"
  arms=(share race fountain nginx)
  for pct in 20 40 60 80 100; do
    rate=$(( (CAP * pct / 100 + 500) / 1000 * 1000 )); (( rate < 1000 )) && rate=1000
    declare -A OREQ=() OTCK=()
    for r in $(seq "$ROUNDS"); do
      for k in "${!arms[@]}"; do
        a=${arms[$(( (k + r - 1) % ${#arms[@]} ))]}
        sleep 3
        read -r n t got e < <(openloop "${OP[$a]}" "${OPID[$a]}" "$rate" "$WORK/log")
        OREQ[$a]=$(( ${OREQ[$a]:-0} + n )); OTCK[$a]=$(( ${OTCK[$a]:-0} + t ))
      done
    done
    line="offered $rate/s ($pct %):"
    for a in "${arms[@]}"; do
      us=$(awk -v t="${OTCK[$a]}" -v q="${OREQ[$a]}" -v hz="$TICK" 'BEGIN{ if (q > 0) printf "%.2f", t/hz*1e6/q; else print "-" }')
      line="$line $a $us"
      printf "open\t%s\t%s\t%s\t%s\t%s\n" "$W" "$a" "$rate" "$pct" "$us" >>"$TSV"
    done
    echo "$line us CPU/req ($(loadavg))"
    unset OREQ OTCK
  done
  for a in "${arms[@]}"; do bench_stop "${OPID[$a]}"; done
fi
echo
echo "# done; load $(loadavg); rows in $TSV"
