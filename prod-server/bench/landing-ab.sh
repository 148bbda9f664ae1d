#!/usr/bin/env bash
# Where bursts land, two builds in alternation: the jar before a change (BEFORE_JAR) and after it
# (the current build, or M0SERVE_JAR). FRESH fresh 2-worker servers per jar, started in turn, each
# asked a burst of 32 keep-alive connections at once right after ready ("landed -> settled 1 s
# later, slow N": N picks passed a sibling over as inside one pass for over 2 ms); then ROUNDS
# 4-worker servers per jar, 10 bursts of 64 from the first. Default policy and flags.
#   BEFORE_JAR=/tmp/before.jar prod-server/bench/landing-ab.sh [fresh=20] [rounds=1]
set -euo pipefail
FRESH=${1:-20}; ROUNDS=${2:-1}
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
AFTER=${M0SERVE_JAR:-$BENCH_DIR/../target/m0serve.jar}
BEFORE=${BEFORE_JAR:?BEFORE_JAR: the jar built before the change}
for j in "$AFTER" "$BEFORE"; do [ -f "$j" ] || { echo "$j missing" >&2; exit 1; }; done
WORK=$(mktemp -d /tmp/m0-landing-ab.XXXXXX)
. "$BENCH_DIR/lib.sh"
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
declare -A JARS=([before]=$BEFORE [after]=$AFTER)
# cold_first_bursts and four_worker_bursts call arm_start NAME ARM PORT WORKERS; the stats and the
# probe they run use JAR, so it names the arm's jar from its start to its stop.
arm_start() { JAR=${JARS[$2]}; m0serve_start "$1" "$3" --workers "$4"; }
JAR=$BEFORE
echo "# landing, before $BEFORE, after $AFTER; $(date -u +%FT%TZ); load $(loadavg)"
cold_first_bursts "$FRESH" before after
for _ in $(seq "$ROUNDS"); do four_worker_bursts before after; done
echo "# load after: $(loadavg)"
