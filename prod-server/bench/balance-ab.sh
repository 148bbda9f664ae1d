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

PROBE_JAR=$AFTER
# arm_start NAME ARM PORT WORKERS: that build at its defaults (lib.sh's landing functions call it)
arm_start() { JAR=${JAROF[$2]} m0serve_start "$1" "$3" --workers "$4"; }

echo "# balance before/after; $(date -u +%FT%TZ); $(nproc) cores; before $BEFORE; after $AFTER; load $(loadavg)"
echo "## 1. cold first burst, 2 workers x32, $FRESH fresh servers per jar (landed -> settled after 1 s)"
cold_first_bursts "$FRESH" before after
echo "## 2. 4 workers on $(nproc) cores, 10 bursts of 64 from the first round (landed -> settled after 1 s)"
four_worker_bursts before after
