#!/usr/bin/env bash
# Balance before and after a change, in alternation: the jar before it (BEFORE_JAR) against the
# current build (or M0SERVE_JAR), both at their defaults (share, --rebalance on):
#   1. cold first burst: FRESH fresh 2-worker servers per jar, started in alternation; right after
#      every worker serves, 32 keep-alive connections at once, /pid on each ("landed"), again 1 s
#      later on the same connections ("settled"); the exact 16/16 counted;
#   2. 4 workers on this machine's cores, 10 bursts of 64 from the first round: exact 16/16/16/16.
# The rebalance after a crash is bench/recovery.sh, run once per jar (M0SERVE_JAR=...).
#   BEFORE_JAR=/tmp/before.jar prod-server/bench/balance-ab.sh [fresh=10]
set -euo pipefail
FRESH=${1:-10}
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
AFTER=${M0SERVE_JAR:-$BENCH_DIR/../target/m0serve.jar}
BEFORE=${BEFORE_JAR:?BEFORE_JAR: the jar built before the change}
WORK=$(mktemp -d /tmp/m0-balance-ab.XXXXXX)
. "$BENCH_DIR/lib.sh"
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
declare -A JAROF=([before]=$BEFORE [after]=$AFTER)

probe_settle() {
  "${M0_JAVA[@]}" -jar "$AFTER" probe --target "127.0.0.1:$1" --workers "$2" --connections "$3" \
    --shape burst --rounds "$4" --pause-ms 300 --settle-ms 1000 | awk '{print $3, $NF}'
}
exact() { awk -v c="$1" -v w="$2" -v n="$3" 'BEGIN{ k = split(c, a, "/"); ok = (k == w);
  for (i = 1; i <= k; i++) if (a[i] != n / w) ok = 0; print ok }'; }
stop_arm() { local v="BENCH_PID_$1"; bench_stop "${!v}"; }

echo "# balance before/after; $(date -u +%FT%TZ); $(nproc) cores; before $BEFORE; after $AFTER; load $(loadavg)"
echo "## 1. cold first burst, 2 workers x32, $FRESH fresh servers per jar (landed -> settled after 1 s)"
declare -A LANDED_OK=([before]=0 [after]=0) SETTLED_OK=([before]=0 [after]=0)
printf "| server | before | after | load |\n|---|---|---|---|\n"
for i in $(seq "$FRESH"); do
  declare -A CELL=()
  for arm in before after; do
    port=$(free_port)
    JAR=${JAROF[$arm]} m0serve_start "cold_$arm" "$port" --workers 2
    read -r settled landed < <(probe_settle "$port" 2 32 1)
    stop_arm "cold_$arm"
    LANDED_OK[$arm]=$(( LANDED_OK[$arm] + $(exact "$landed" 2 32) ))
    SETTLED_OK[$arm]=$(( SETTLED_OK[$arm] + $(exact "$settled" 2 32) ))
    CELL[$arm]="$landed -> $settled"
  done
  printf "| %d | %s | %s | %s |\n" "$i" "${CELL[before]}" "${CELL[after]}" "$(loadavg)"
done
for arm in before after; do
  printf "cold first burst, %s: landed exact in %d of %d, settled exact in %d of %d\n" "$arm" \
    "${LANDED_OK[$arm]}" "$FRESH" "${SETTLED_OK[$arm]}" "$FRESH"
done
echo "## 2. 4 workers on $(nproc) cores, 10 bursts of 64 from the first round (landed -> settled after 1 s)"
for arm in before after; do
  port=$(free_port)
  JAR=${JAROF[$arm]} m0serve_start "four_$arm" "$port" --workers 4
  probe_settle "$port" 4 64 10 >"$WORK/four_$arm.txt"
  stop_arm "four_$arm"
  landed_ok=0; settled_ok=0; row=""
  while read -r settled landed; do
    landed_ok=$(( landed_ok + $(exact "$landed" 4 64) )); settled_ok=$(( settled_ok + $(exact "$settled" 4 64) ))
    row="$row$landed->$settled "
  done <"$WORK/four_$arm.txt"
  printf "| %-6s | landed exact %2d/10 | settled exact %2d/10 | %s| load %s |\n" "$arm" "$landed_ok" \
    "$settled_ok" "$row" "$(loadavg)"
done
