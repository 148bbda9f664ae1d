#!/usr/bin/env bash
# The spread table: 2 workers, probe shapes burst / ramp / bursts8 of 32 keep-alive connections,
# ROUNDS rounds each, against four servers started side by side and probed in alternation
# (round r of a shape runs on every server before round r+1):
#   share   m0serve --workers 2                       (accept sharing, the default)
#   race    m0serve --workers 2 --accept-policy race  (the knob off: the bare accept race)
#   nginx   Debian nginx, worker_processes 2, return 200 "$pid\n"
#   uvicorn Debian python3-uvicorn --workers 2, bench/pid_app.py answering its pid
# nginx and uvicorn are counted by pid (probe --by-pid). Every server gets one unreported
# warm-up round per shape first. share's rounds are watched (probe --watch-pid): a count marked
# * had a worker seen inside one pass for over 2 ms (descheduled on a busy machine), which
# pick skips by design. SPREAD_LOG=file keeps every probe line.
#
#   prod-server/bench/spread-compare.sh [rounds=3] [connections=32]
#
# Needs nginx and python3-uvicorn (apt-get install -y nginx python3-uvicorn)
# and the jar (mvn -q -pl prod-server package -DskipTests; or M0SERVE_JAR=...).
set -euo pipefail
ROUNDS=${1:-3}
CONNS=${2:-32}
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
JAR="${M0SERVE_JAR:-$BENCH_DIR/../target/m0serve.jar}"
[ -f "$JAR" ] || { echo "$JAR missing: mvn -q -pl prod-server package -DskipTests" >&2; exit 1; }
WORK=$(mktemp -d /tmp/m0-spread.XXXXXX)
. "$BENCH_DIR/lib.sh"
trap 'bench_cleanup; rm -rf "$WORK"' EXIT

SERVERS=(share race nginx uvicorn)
declare -A PORT
for s in "${SERVERS[@]}"; do PORT[$s]=$(free_port); done
m0serve_start share "${PORT[share]}" --workers 2
m0serve_start race "${PORT[race]}" --workers 2 --accept-policy race
nginx_start nginx "${PORT[nginx]}" 2
uvicorn_start uvicorn "${PORT[uvicorn]}" 2

# server shape extra-args... -> prints the counts ("16/16"; "23/9*" when the page showed a worker
# inside one pass for over 2 ms during the round: share's pick skips such a worker by design).
# Every probe line goes to $LOG as well.
LOG=${SPREAD_LOG:-/dev/null}
probe() {
  local s=$1 shape=$2; shift 2
  local by=()
  case $s in
    nginx|uvicorn) by=(--by-pid) ;;
    share) by=(--watch-pid "$BENCH_PID_share") ;;
  esac
  "${M0_JAVA[@]}" -jar "$JAR" probe --target "127.0.0.1:${PORT[$s]}" --workers 2 --connections "$CONNS" \
    --shape "$shape" --pause-ms 100 "${by[@]}" "$@" | sed "s/^/$s /" | tee -a "$LOG" \
    | awk '$2 !~ /^(warm-up|pids)/ {print $4 (index($0, "*") ? "*" : "")}' | paste -sd' '
}

echo "# spread, 2 workers, $CONNS connections per round; $(date -u +%FT%TZ); load average before: $(loadavg)"
for shape in burst ramp bursts8; do
  for s in "${SERVERS[@]}"; do probe "$s" "$shape" --rounds 0 --warmup 1 >/dev/null; done
  declare -A ROW=()
  for r in $(seq "$ROUNDS"); do
    for s in "${SERVERS[@]}"; do
      ROW[$s]="${ROW[$s]:-}$(probe "$s" "$shape" --rounds 1) "
    done
  done
  for s in "${SERVERS[@]}"; do
    printf "| %-8s | %-8s | %s|\n" "$shape" "$s" "${ROW[$s]}"
  done
done
echo "# load average after: $(loadavg)"
