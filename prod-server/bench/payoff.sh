#!/usr/bin/env bash
# The payoff under real clients (issue 10): 2 workers x 2 blocking threads, /sleep?ms=5 (each
# request holds a pool thread 5 ms: the ceiling is 2 x 2 x 200 = 800 req/s), a FRESH server for
# every round and arm, because the first connections after a start decide the split and
# keep-alive clients keep it.
#
# Client shapes, each 32 keep-alive connections:
#   wrk-t1, wrk-t2, wrk-t4  wrk -tN -c32 --latency
#   nginx                   wrk -t2 -c32 -> nginx (1 worker, upstream keepalive 32) -> server
#   java                    HttpClientLoad.java: 32 threads sharing one java.net.http.HttpClient
# Arms: share, race, share-rboff (share with --rebalance off; only when `m0serve --help` lists
# --rebalance, and then share runs with --rebalance on and race with it off), share-nodefer (share
# with --defer-accept 0, the listener as before ADR 0056), share-nopair (share under --dev-pair-at 0, no
# rebalance swap, ADR 0057), share-free (share with --cpu-affinity off, workers unpinned, ADR 0058;
# ask for these three in ARMS), uvicorn
# (sleep_app.py, --workers 2, 2 pool threads per worker).
#
#   prod-server/bench/payoff.sh [rounds=10] [seconds=10]
#   SHAPES="wrk-t2 java" ARMS="share race" prod-server/bench/payoff.sh 3 5   # a subset
#
# Rounds are the outer loop; within a round every shape runs every arm, the arms' order rotated
# per round, so a load spike on this shared machine lands on all arms alike. Prints one row per
# run (connections per worker seen with ss once all 32 are open = where they landed, and at the
# end),
# then per shape x arm the median and the WORST round: lowest req/s, highest p99.
set -euo pipefail
ROUNDS=${1:-10}
SECS=${2:-10}
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
JAR="${M0SERVE_JAR:-$BENCH_DIR/../target/m0serve.jar}"
[ -f "$JAR" ] || { echo "$JAR missing: mvn -q -pl prod-server -am package -DskipTests" >&2; exit 1; }
for tool in wrk "${NGINX:-/usr/sbin/nginx}" javac ss; do
  command -v "$tool" >/dev/null || { echo "$tool missing (apt-get install -y wrk nginx-light iproute2)" >&2; exit 1; }
done
/usr/bin/python3 -c 'import uvicorn' 2>/dev/null || { echo "uvicorn missing: apt-get install -y python3-uvicorn" >&2; exit 1; }
WORK=$(mktemp -d /tmp/m0-payoff.XXXXXX)
. "$BENCH_DIR/lib.sh"
cpid=
trap '[ -n "$cpid" ] && kill "$cpid" 2>/dev/null; bench_cleanup; rm -rf "$WORK"' EXIT

javac -d "$WORK/client" "$BENCH_DIR/HttpClientLoad.java"
CLIENT_JAVA=(java -XX:+UseSerialGC -Xmx256m -XX:-UsePerfData -cp "$WORK/client" HttpClientLoad)
# The Java client's own warm-up (JVM start, HttpClient's classes, JIT), not counted; its split is
# read that much later. Its connections still open at its start, against the same fresh server.
JAVA_WARMUP=${JAVA_WARMUP:-3}

REBALANCE=$(m0serve_rebalance_flag)
if [ "$REBALANCE" = yes ]; then DEFAULT_ARMS="share share-rboff race uvicorn"; else DEFAULT_ARMS="share race uvicorn"; fi
read -r -a ARMS <<<"${ARMS:-$DEFAULT_ARMS}"
read -r -a SHAPES <<<"${SHAPES:-wrk-t1 wrk-t2 wrk-t4 nginx java}"
PATH_Q='/sleep?ms=5'
WORKERS=2

# m0serve's command line per arm; --rebalance is named only where the binary has it.
m0serve_args() {
  local args=(--workers "$WORKERS" --blocking-threads 2)
  case $1 in
    share) args+=(--accept-policy share); [ "$REBALANCE" = yes ] && args+=(--rebalance on) ;;
    share-rboff) args+=(--accept-policy share --rebalance off) ;;
    share-nodefer) args+=(--accept-policy share --defer-accept 0); [ "$REBALANCE" = yes ] && args+=(--rebalance on) ;;
    share-nopair) args+=(--accept-policy share); [ "$REBALANCE" = yes ] && args+=(--rebalance on) ;;
    share-free) args+=(--accept-policy share --cpu-affinity off); [ "$REBALANCE" = yes ] && args+=(--rebalance on) ;;
    race) args+=(--accept-policy race); [ "$REBALANCE" = yes ] && args+=(--rebalance off) ;;
  esac
  echo "${args[@]}"
}

# start_arm ARM PORT: a fresh server; its pid in SERVER_PID
start_arm() {
  local arm=$1 port=$2 name=${1//-/_}
  if [ "$arm" = uvicorn ]; then
    uvicorn_start "$name" "$port" "$WORKERS" sleep_app:app
  else
    # share-nopair: no affinity read, so no swap (--dev-pair-at 0, ADR 0057's A/B arm)
    local dev=(); if [ "$arm" = share-nopair ]; then dev=(--dev-pair-at 0); fi
    # shellcheck disable=SC2046
    m0serve_start "$name" "$port" $(m0serve_args "$arm") "${dev[@]}"
  fi
  local var="BENCH_PID_$name"
  SERVER_PID=${!var}
}

# run_client SHAPE URL OUT : SECS seconds (java: plus its warm-up); run it with & (it execs the
# client, so $! is the client's pid)
run_client() {
  case $1 in
    wrk-t*) exec wrk "-t${1#wrk-t}" -c32 -d"${SECS}s" --latency "$2" >"$3" ;;
    nginx) exec wrk -t2 -c32 -d"${SECS}s" --latency "$2" >"$3" ;;
    java) exec "${CLIENT_JAVA[@]}" "$2" 32 "$SECS" "$JAVA_WARMUP" >"$3" ;;
  esac
}

# parse_client SHAPE OUT -> "req/s p99_ms errors"
parse_client() {
  if [ "$1" = java ]; then
    awk '/^requests/ { print $8, $12, $4 }' "$2"
  else
    echo "$(wrk_rps "$2") $(wrk_p99_ms "$2") $(wrk_errors "$2")"
  fi
}

ROWS="$WORK/rows.tsv"
: >"$ROWS"
echo "# payoff: $WORKERS workers x 2 blocking threads, $PATH_Q, 32 connections, ${ROUNDS} rounds x ${SECS} s, a fresh server per run"
echo "# arms: ${ARMS[*]} (rebalance flag: $REBALANCE); shapes: ${SHAPES[*]}; $(date -u +%FT%TZ); $(nproc) cores; load average before: $(loadavg)"
printf "| round | shape | arm | connections per worker (landed / end) | req/s | p99 ms | errors | load |\n|---|---|---|---|---|---|---|---|\n"
STARTED=$SECONDS
RUNS=0
for r in $(seq "$ROUNDS"); do
  for shape in "${SHAPES[@]}"; do
    narms=${#ARMS[@]}
    for k in $(seq 0 $((narms - 1))); do
      arm=${ARMS[$(( (k + r - 1) % narms ))]}
      sport=$(free_port)
      start_arm "$arm" "$sport"
      url="http://127.0.0.1:$sport$PATH_Q"
      proxy_pid=
      if [ "$shape" = nginx ]; then
        pport=$(free_port)
        nginx_proxy_start "proxy" "$pport" "$sport"
        proxy_pid=$BENCH_PID_proxy
        url="http://127.0.0.1:$pport$PATH_Q"
      fi
      run_client "$shape" "$url" "$WORK/client.txt" &
      cpid=$!
      # Landed: the split once all 32 are open (a cold JVM client on a loaded machine takes
      # seconds to open them; short of 32, the most seen). End: the sample taken 0.5-1 s before the
      # client ended (the last one may catch it closing). ss every 0.5 s costs next to nothing.
      landed=; first=; ended=0/0; last=0/0; most=0
      while pid_alive "$cpid"; do
        split=$(conn_split "$sport" "$WORKERS")
        open=$(( ${split//\// + } ))
        if [ -z "$landed" ] && (( open > most )); then
          most=$open; first=$split
          (( open >= 32 )) && landed=$split
        fi
        ended=$last; last=$split
        sleep 0.5
      done
      landed=${landed:-${first:-0/0}}
      wait "$cpid"
      cpid=
      read -r rps p99 errors <<<"$(parse_client "$shape" "$WORK/client.txt")"
      load=$(loadavg)
      [ -n "$proxy_pid" ] && bench_stop "$proxy_pid"
      bench_stop "$SERVER_PID"
      RUNS=$((RUNS + 1))
      printf "| %d | %s | %s | %s / %s | %s | %s | %s | %s |\n" "$r" "$shape" "$arm" "$landed" "$ended" "$rps" "$p99" "$errors" "$load"
      printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n" "$r" "$shape" "$arm" "$landed" "$rps" "$p99" "$errors" >>"$ROWS"
    done
  done
done
ELAPSED=$((SECONDS - STARTED))
echo
echo "# per shape x arm over $ROUNDS rounds: median and worst (lowest req/s, highest p99); ceiling 800 req/s"
/usr/bin/python3 - "$ROWS" <<'PY'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
cells = {}
for r, shape, arm, landed, rps, p99, errors in rows:
    cells.setdefault((shape, arm), []).append((float(rps), float(p99), int(errors), landed))
print("| shape | arm | req/s median | req/s worst | worst / 800 | p99 ms median | p99 ms worst | errors | splits (landed) |")
print("|---|---|---|---|---|---|---|---|---|")
for (shape, arm), v in cells.items():
    rps = [x[0] for x in v]; p99 = [x[1] for x in v]
    print(f"| {shape} | {arm} | {statistics.median(rps):.1f} | {min(rps):.1f} | {min(rps) / 800:.2f} | "
          f"{statistics.median(p99):.1f} | {max(p99):.1f} | {sum(x[2] for x in v)} | {' '.join(x[3] for x in v)} |")
PY
echo "# load average after: $(loadavg)"
awk -v e="$ELAPSED" -v n="$RUNS" -v s="$SECS" -v k="$(( ${#SHAPES[@]} * ${#ARMS[@]} ))" 'BEGIN {
  o = e / n - s
  printf "# took %d s for %d runs (%.1f s each beyond the %d s of load); 10 rounds x 10 s of these shapes and arms: about %.0f min\n",
    e, n, o, s, 10 * k * (10 + o) / 60 }'
