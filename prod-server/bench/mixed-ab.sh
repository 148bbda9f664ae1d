#!/usr/bin/env bash
# A mixed load, two builds side by side (ADR 0059): share from the jar before a change
# (BEFORE_JAR) and after it (the current build, or M0SERVE_JAR), and race from the after jar, at
# 2 workers, rounds alternated. Each round: 16 connection-close clients (wrk -t1 -c16), joined
# LATE seconds later (default 1.5: the workers keep by then, ADR 0041) by 16 keep-alive ones
# (wrk -t1 -c16); LATE=0 starts both at once. Prints where the connections sit (ss) four times a
# round, server CPU per request, and each worker's rebalanced count (cumulative).
#   BEFORE_JAR=/tmp/before.jar prod-server/bench/mixed-ab.sh [rounds=5] [seconds=4]
# Make the before jar with: git worktree add /tmp/before REV && mvn -q -f /tmp/before -pl prod-server -am package -DskipTests
set -euo pipefail
ROUNDS=${1:-5}; SECS=${2:-4}; WARM=${WARM:-10}; LATE=${LATE:-1.5}
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
AFTER=${M0SERVE_JAR:-$BENCH_DIR/../target/m0serve.jar}
BEFORE=${BEFORE_JAR:?BEFORE_JAR: the jar built before the change}
for j in "$AFTER" "$BEFORE"; do [ -f "$j" ] || { echo "$j missing" >&2; exit 1; }; done
(( SECS >= 4 )) || { echo "seconds >= 4: four readings 0.7 s apart while the keep-alive half runs" >&2; exit 2; }
JAR=$AFTER
WORK=$(mktemp -d /tmp/m0-mixed-ab.XXXXXX)
. "$BENCH_DIR/lib.sh"
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
TICK=$(getconf CLK_TCK)
ARMS="before after race"
declare -A MP=() MPID=()
for a in $ARMS; do
  MP[$a]=$(free_port)
  case $a in
    before) JAR=$BEFORE m0serve_start "$a" "${MP[$a]}" --workers 2 --blocking-threads 0 ;;
    after) m0serve_start "$a" "${MP[$a]}" --workers 2 --blocking-threads 0 ;;
    race) m0serve_start "$a" "${MP[$a]}" --workers 2 --blocking-threads 0 --accept-policy race ;;
  esac
  v="BENCH_PID_$a"; MPID[$a]=${!v}
  wrk -t2 -c32 -H 'Connection: close' -d"${WARM}s" "http://127.0.0.1:${MP[$a]}/" >/dev/null; sleep 2
done
echo "# mixed-ab LATE=$LATE $(date -u +%FT%TZ) load $(loadavg) before=$BEFORE after=$AFTER"
for r in $(seq "$ROUNDS"); do
  for a in $ARMS; do
    sleep 3
    b=$(tree_ticks "${MPID[$a]}")
    wrk -t1 -c16 -H 'Connection: close' -d"$(awk -v s="$SECS" -v l="$LATE" 'BEGIN{print int(s + l + 0.999)}')s" \
      "http://127.0.0.1:${MP[$a]}/" >"$WORK/cl.txt" &
    cp=$!
    sleep "$LATE"
    wrk -t1 -c16 -d"${SECS}s" "http://127.0.0.1:${MP[$a]}/" >"$WORK/ka.txt" &
    kp=$!
    splits=""; for k in 1 2 3 4; do sleep 0.7; splits="$splits $(conn_split "${MP[$a]}" 2)"; done
    wait "$kp" "$cp"
    t=$(( $(tree_ticks "${MPID[$a]}") - b ))
    kreq=$(awk '/requests in/ {print $1}' "$WORK/ka.txt"); creq=$(awk '/requests in/ {print $1}' "$WORK/cl.txt")
    us=$(awk -v t="$t" -v q="$((kreq + creq))" -v hz="$TICK" 'BEGIN{printf "%.2f", t/hz*1e6/q}')
    printf "round %d %-6s keep-alive %8d req, close %7d req, %6s us CPU/req; connections:%s; %s\n" \
      "$r" "$a" "$kreq" "$creq" "$us" "$splits" \
      "$("${M0_JAVA[@]}" -jar "$AFTER" stats --pid "${MPID[$a]}" | grep -i '^rebalanced' | tr -s ' ')"
  done
done
