#!/usr/bin/env bash
# Where an asking burst lands (each connection asks as it opens: the burst a TCP_DEFER_ACCEPT
# listener sees, ADR 0054), on one jar, four arms in alternation: the probe as it runs everywhere
# else (plain) or at nice 19 (niced: on this 2-vCPU VM the client then cannot preempt a worker
# inside a pass, ADR 0055), each against --defer-accept 0 (off) and 1 (on). FRESH fresh 2-worker
# servers per arm, each asked one burst of 32 right after ready; then ROUNDS 4-worker servers per
# arm, 10 bursts of 64 from the first. Cells as landing-ab.sh's: "landed -> settled 1 s later,
# slow N" (N picks passed a sibling over as inside one pass for over 2 ms).
#   prod-server/bench/asking-burst.sh [fresh=20] [rounds=1]
# ARMS (default "plain_off plain_on niced_off niced_on") picks the arms; M0SERVE_JAR the jar.
set -euo pipefail
FRESH=${1:-20}; ROUNDS=${2:-1}
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
JAR=${M0SERVE_JAR:-$BENCH_DIR/../target/m0serve.jar}
[ -f "$JAR" ] || { echo "$JAR missing: mvn -q -pl prod-server -am package -DskipTests" >&2; exit 1; }
WORK=$(mktemp -d /tmp/m0-asking-burst.XXXXXX)
. "$BENCH_DIR/lib.sh"
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
export PROBE_SHAPE=asking
ARMS=${ARMS:-plain_off plain_on niced_off niced_on}
# arm_start NAME ARM PORT WORKERS: the arm's option on its server, its niceness on the probe that
# cold_first_bursts and four_worker_bursts run next (they probe the server they just started).
arm_start() {
  local defer=0
  case $2 in *_on) defer=1 ;; esac
  case $2 in niced_*) PROBE_NICE=19 ;; *) PROBE_NICE=0 ;; esac
  m0serve_start "$1" "$3" --workers "$4" --defer-accept "$defer"
}
echo "# asking burst, $JAR; $(date -u +%FT%TZ); load $(loadavg)"
# shellcheck disable=SC2086
cold_first_bursts "$FRESH" $ARMS
# shellcheck disable=SC2086
for _ in $(seq "$ROUNDS"); do four_worker_bursts $ARMS; done
echo "# load after: $(loadavg)"
