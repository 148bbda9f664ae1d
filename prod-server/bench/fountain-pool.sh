#!/usr/bin/env bash
# docs/adr/0029: does fountain see its blocking pool? A closed loop of 64 clients, each request
# on a new connection (Connection: close) to /sleep?ms=5, which holds a pool thread 5 ms:
# fountain over share throughput and each worker's accepts. With the pool ignored worker 0's
# loop reads idle while its pool is saturated, so it takes nearly every connection.
#
#   prod-server/bench/fountain-pool.sh [rounds=3] [seconds=5] [workers=4]
#
# M0SERVE_JAR (default target/m0serve.jar): the arms "pool-*"; BASE_JAR (optional, e.g. a jar
# built from a commit before ADR 0029): adds "base-*" arms, alternated with them in one run.
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d /tmp/m0-close-sleep.XXXXXX)
. "$BENCH_DIR/lib.sh"
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
ROUNDS=${1:-3}; SECS=${2:-5}; W=${3:-4}
for t in wrk python3 java; do command -v "$t" >/dev/null || { echo "$t missing" >&2; exit 1; }; done
declare -A JARS=([pool]="${M0SERVE_JAR:-$BENCH_DIR/../target/m0serve.jar}")
KINDS=(pool)
if [ -n "${BASE_JAR:-}" ]; then JARS[base]=$BASE_JAR; KINDS=(base pool); fi
for j in "${KINDS[@]}"; do
  [ -f "${JARS[$j]}" ] || { echo "${JARS[$j]} missing: mvn -q -pl prod-server -am package -DskipTests" >&2; exit 1; }
done
declare -A PORT=() PID=() RPS=()
ARMS=()
for j in "${KINDS[@]}"; do ARMS+=("$j-fountain" "$j-share"); done
for a in "${ARMS[@]}"; do
  JAR=${JARS[${a%%-*}]}; PORT[$a]=$(free_port); n=${a/-/_}
  m0serve_start "$n" "${PORT[$a]}" --workers "$W" --blocking-threads 2 --accept-policy "${a#*-}"
  PID[$a]=$(eval echo "\$BENCH_PID_$n")
done
accepted() { JAR=${JARS[${1%%-*}]}; "${M0_JAVA[@]}" -jar "$JAR" stats --pid "${PID[$1]}" --json | python3 -c '
import json, sys
print(" ".join(str(x.get("accepted", 0)) for x in json.loads(sys.stdin.readline())["workers"]))'; }
for a in "${ARMS[@]}"; do wrk -t2 -c64 -d2s -H 'Connection: close' "http://127.0.0.1:${PORT[$a]}/sleep?ms=5" >/dev/null; done
echo "# $(date -u +%FT%TZ) wrk -t2 -c64 -H 'Connection: close' /sleep?ms=5, $W workers x 2 blocking threads, ${SECS}s, load $(loadavg)"
for r in $(seq "$ROUNDS"); do
  order=("${ARMS[@]}")
  if (( r % 2 == 0 )); then order=(); for (( i=${#ARMS[@]}-1; i>=0; i-- )); do order+=("${ARMS[$i]}"); done; fi
  for a in "${order[@]}"; do
    before=$(accepted "$a")
    wrk -t2 -c64 -d"${SECS}s" -H 'Connection: close' "http://127.0.0.1:${PORT[$a]}/sleep?ms=5" >"$WORK/wrk.txt"
    after=$(accepted "$a")
    split=$(python3 -c 'import sys; b=sys.argv[1].split(); a=sys.argv[2].split(); print("/".join(str(int(y)-int(x)) for x,y in zip(b,a)))' "$before" "$after")
    rps=$(wrk_rps "$WORK/wrk.txt"); RPS[$a]="${RPS[$a]:-}${RPS[$a]:+ }$rps"
    printf "round %d %-14s %9s req/s  accepted per worker %s  load %s\n" "$r" "$a" "$rps" "$split" "$(loadavg)"
  done
done
for j in "${KINDS[@]}"; do
  printf "%s: fountain %s | share %s | fountain / share %s\n" "$j" "${RPS[$j-fountain]}" "${RPS[$j-share]}" \
    "$(awk -v f="${RPS[$j-fountain]}" -v s="${RPS[$j-share]}" 'BEGIN{n=split(f,a," ");split(s,b," ");x=0;y=0;for(i=1;i<=n;i++){x+=a[i];y+=b[i]};printf "%.3f", x/y}')"
done
for a in "${ARMS[@]}"; do bench_stop "${PID[$a]}"; done
