# Shared by the bench scripts: ports, starting and stopping the servers, readiness, CPU ticks.
# Source it; it needs JAR, WORK and a cleanup trap in the caller (bench_cleanup does the stopping).

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

M0_JAVA=(java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xmx64m -XX:-UsePerfData)
BENCH_PIDS=()

# m0serve NAME PORT ARGS... : starts a supervisor; its pid in BENCH_PID_<NAME>
m0serve_start() {
  local name=$1 port=$2; shift 2
  # A NAME's earlier run left "listening on" in its .out; the new one truncates it only once forked,
  # so without this the wait below can read the old line and ask stats about a JVM not yet up.
  rm -f "$WORK/$name.out"
  "${M0_JAVA[@]}" -jar "$JAR" --bind "127.0.0.1:$port" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
  local pid=$!
  BENCH_PIDS+=("$pid")
  printf -v "BENCH_PID_$name" '%s' "$pid"
  for _ in $(seq 300); do
    grep -q "listening on" "$WORK/$name.out" 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || { cat "$WORK/$name.err" >&2; return 1; }
    sleep 0.1
  done
  # Every worker serving: its epoll set watches the listener (and under share, it has started).
  "${M0_JAVA[@]}" -jar "$JAR" stats --pid "$pid" --wait-ready-ms 60000 >/dev/null
}

# yes when the binary has --rebalance (idle-connection rebalance, issue 10), else no: the
# scripts add their rebalance-off arm only where the flag exists
m0serve_rebalance_flag() {
  if "${M0_JAVA[@]}" -jar "$JAR" --help 2>&1 | grep -q -- '--rebalance'; then echo yes; else echo no; fi
}

# nginx NAME PORT WORKERS : `return 200 "$pid\n"` on every path. NGINX_DEFERRED=1: `listen ... deferred`
# (TCP_DEFER_ACCEPT, as m0serve's --defer-accept; ADR 0054). NGINX_REUSEPORT=1: a listener per
# worker (`listen ... reuseport`), so the kernel's hash spreads connections instead of its wake-ups.
# NGINX_AFFINITY=1: `worker_cpu_affinity auto` (each worker pinned to a CPU, as m0serve's
# --cpu-affinity; ADR 0058)
nginx_start() {
  local name=$1 port=$2 workers=$3 pid
  nginx_run "$name" "$workers" "listen 127.0.0.1:$port backlog=4096${NGINX_REUSEPORT:+ reuseport}${NGINX_DEFERRED:+ deferred};
    location / { default_type text/plain; return 200 \"\$pid\\n\"; }"
  pid=BENCH_PID_$name
  wait_children "${!pid}" "$workers" && wait_http "$port"
}

# nginx_run NAME WORKERS SERVER : writes $WORK/NAME/nginx.conf, one server block whose inside is
# SERVER, and starts nginx on it (pid in BENCH_PID_<NAME>); the caller waits for it to answer
nginx_run() {
  local name=$1 workers=$2 server=$3
  mkdir -p "$WORK/$name"
  cat >"$WORK/$name/nginx.conf" <<CONF
worker_processes $workers;
${NGINX_AFFINITY:+worker_cpu_affinity auto;}
daemon off;
pid $WORK/$name/nginx.pid;
error_log $WORK/$name/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 1000000;
  keepalive_timeout 60s;
  server {
    $server
  }
}
CONF
  "${NGINX:-/usr/sbin/nginx}" -p "$WORK/$name" -c "$WORK/$name/nginx.conf" &
  local pid=$!
  BENCH_PIDS+=("$pid")
  printf -v "BENCH_PID_$name" '%s' "$pid"
}

# uvicorn NAME PORT WORKERS [APP] : APP defaults to bench/pid_app.py's (Debian python3-uvicorn,
# /usr/bin/python3)
uvicorn_start() {
  local name=$1 port=$2 workers=$3 app=${4:-pid_app:app}
  /usr/bin/python3 -m uvicorn --app-dir "$BENCH_DIR" "$app" --host 127.0.0.1 --port "$port" \
    --workers "$workers" --lifespan off --no-access-log --log-level warning \
    >"$WORK/$name.out" 2>"$WORK/$name.err" &
  local pid=$!
  BENCH_PIDS+=("$pid")
  printf -v "BENCH_PID_$name" '%s' "$pid"
  # one worker: uvicorn serves in its own process, no children
  if [ "$workers" -gt 1 ]; then wait_children "$pid" "$workers"; fi
  wait_http "$port"
}

# netty NAME PORT THREADS [TRANSPORT=epoll|io_uring] : bench/'s NettyHello (Netty 4.2, native epoll
# or io_uring, one event loop per thread; mvn -q -pl bench -am package -DskipTests), the same answer
# as nginx's; NETTY_JAR overrides
netty_start() {
  local name=$1 port=$2 threads=$3 transport=${4:-epoll} jar=${NETTY_JAR:-$BENCH_DIR/../../bench/target/benchmarks.jar}
  [ -f "$jar" ] || { echo "$jar missing: mvn -q -pl bench -am package -DskipTests" >&2; return 1; }
  java -XX:+UseSerialGC -Xmx512m -XX:-UsePerfData -cp "$jar" m0.bench.NettyHello "127.0.0.1:$port" "$threads" "$transport" \
    >"$WORK/$name.out" 2>"$WORK/$name.err" &
  local pid=$!
  BENCH_PIDS+=("$pid")
  printf -v "BENCH_PID_$name" '%s' "$pid"
  wait_http "$port"
}

# nginx_proxy NAME PORT UPSTREAM_PORT : one nginx worker as a reverse proxy to 127.0.0.1:UPSTREAM_PORT
# through an upstream keep-alive pool of 32 (HTTP/1.1, Connection cleared: the pool reuses its
# connections, so which server worker holds each of them is decided once, when nginx opens it).
# Private prefix under WORK; when run as root it drops to nobody, as a deployment would run it.
nginx_proxy_start() {
  local name=$1 port=$2 upstream=$3 dir="$WORK/$1"
  mkdir -p "$dir/tmp"
  cat >"$dir/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $dir/tmp/body; proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi; uwsgi_temp_path $dir/tmp/uwsgi; scgi_temp_path $dir/tmp/scgi;
  keepalive_requests 1000000;
  keepalive_timeout 60s;
  upstream app {
    server 127.0.0.1:$upstream;
    keepalive 32;
    keepalive_requests 1000000;
    keepalive_timeout 60s;
  }
  server {
    listen 127.0.0.1:$port;
    location / {
      proxy_pass http://app;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}
CONF
  local as=()
  if [ "$(id -u)" = 0 ]; then
    chown -R nobody "$dir"
    chmod o+x "$WORK"  # mktemp -d made it 0700
    as=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
  fi
  "${as[@]}" "${NGINX:-/usr/sbin/nginx}" -p "$dir" -e "$dir/error.log" -c "$dir/nginx.conf" &
  local pid=$!
  BENCH_PIDS+=("$pid")
  printf -v "BENCH_PID_$name" '%s' "$pid"
  wait_children "$pid" 1 && wait_http "$port"
}

# at least N children of PID (bounded)
wait_children() {
  for _ in $(seq 300); do
    [ "$(pgrep -P "$1" | wc -l)" -ge "$2" ] && return 0
    sleep 0.1
  done
  echo "pid $1 has not started $2 workers" >&2; return 1
}

wait_http() {
  for _ in $(seq 300); do
    curl -s -o /dev/null "http://127.0.0.1:$1/" && return 0
    sleep 0.1
  done
  echo "nothing answers on port $1" >&2; return 1
}

# a process and its children, comma-separated: perf's -p list
tree_pids() { (echo "$1"; pgrep -P "$1" || true) | paste -sd,; }

# user and system ticks of a process and its children: "utime stime"
tree_split() {
  local u=0 s=0 p a b
  for p in "$1" $(pgrep -P "$1" || true); do
    [ -r "/proc/$p/stat" ] || continue
    read -r a b < <(sed 's/.*) //' "/proc/$p/stat" | awk '{print $12, $13}')
    u=$((u + a)); s=$((s + b))
  done
  echo "$u $s"
}

# ticks (utime+stime) of a process and its children
tree_ticks() {
  local u s
  read -r u s < <(tree_split "$1")
  echo $((u + s))
}

# alive and not a zombie (kill -0 succeeds on a zombie)
pid_alive() {
  local st
  st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
  [ -n "$st" ] && [ "$st" != Z ]
}

# bench_stop PID : one server tree, stopped before the next starts (SIGTERM, up to 5 s, then
# SIGKILL), reaped and dropped from BENCH_PIDS so bench_cleanup never signals a reused pid.
bench_stop() {
  local p=$1 c kids i
  kids=$(pgrep -P "$p" || true)
  for c in $kids; do kill -TERM "$c" 2>/dev/null || true; done
  kill -TERM "$p" 2>/dev/null || true
  for i in $(seq 50); do
    pid_alive "$p" || break
    sleep 0.1
  done
  for c in $kids $(pgrep -P "$p" || true); do kill -KILL "$c" 2>/dev/null || true; done
  kill -KILL "$p" 2>/dev/null || true
  wait "$p" 2>/dev/null || true
  for i in "${!BENCH_PIDS[@]}"; do [ "${BENCH_PIDS[$i]}" = "$p" ] && unset "BENCH_PIDS[$i]"; done
  BENCH_PIDS=("${BENCH_PIDS[@]}")
}

# cpu_rounds ROUNDS SECS NAME:PORT:PID... : keep-alive hello CPU per request, wrk -t2 -c32 (WRK_CONNS,
# default 32) against each server in turn, ROUNDS times (alternating and rotating the order, so the
# machine's load falls on every arm alike); BENCH_SCHEME (default http) and BENCH_PATH (default /) make the URL
# (tls.sh: https, /1m.bin);
# adds to the caller's REQ[NAME] and TCK[NAME] (declare -A REQ TCK first) and prints a line per run.
# ROUND_HOOK, when set, is run after each round. ROUNDS_TSV, when set, is a file each run adds a
# row to (arm, round, requests, seconds, us CPU/req, wrk's p50 and p99 in ms: figures.sh's cpu-round). Needs TICK (getconf CLK_TCK). WRK_ARGS (an array,
# e.g. (-H 'Connection: close')) is added to wrk's arguments; RUN_PAUSE seconds are slept before
# each run (a connection-close run leaves TIME_WAIT sockets the next must not inherit).
# Under keep-alive (no WRK_ARGS) a line ends with "split 16/16": the connections per process
# halfway through the run, largest first ("32": all in one; "-" for Netty, whose workers are
# threads; split_midway, padded with /0 to SPLIT_WORKERS, default 1; needs WORK).
cpu_rounds() {
  local rounds=$1 secs=$2 r k s n p pid b reqs t split sp out us
  shift 2
  local sides=("$@")
  for r in $(seq "$rounds"); do
    for k in "${!sides[@]}"; do
      # Each round starts one arm later: no arm always runs first (or last) after the others.
      s=${sides[$(( (k + r - 1) % ${#sides[@]} ))]}
      IFS=: read -r n p pid <<<"$s"
      if [ -n "${RUN_PAUSE:-}" ]; then sleep "$RUN_PAUSE"; fi
      b=$(tree_ticks "$pid")
      # Keep-alive: where the 32 connections sat halfway; cost moves with it (ADR 0051)
      split=""; sp=""
      if [[ -z ${WRK_ARGS[*]:-} && $n == netty* ]]; then
        split=" split -" # one process, its workers are threads
      elif [ -z "${WRK_ARGS[*]:-}" ]; then
        split_midway "$secs" "$p" "${SPLIT_WORKERS:-1}" >"$WORK/cpu_rounds.split" &
        sp=$!
      fi
      # --latency only prints the percentiles wrk records anyway: it costs the run nothing
      out=$(wrk --latency -t2 -c"${WRK_CONNS:-32}" ${WRK_ARGS[@]+"${WRK_ARGS[@]}"} -d"${secs}s" "${BENCH_SCHEME:-http}://127.0.0.1:$p${BENCH_PATH:-/}")
      t=$(( $(tree_ticks "$pid") - b ))
      reqs=$(awk '/requests in/ {print $1}' <<<"$out")
      if [ -n "$sp" ]; then wait "$sp"; split=" split $(cat "$WORK/cpu_rounds.split")"; fi
      REQ[$n]=$(( ${REQ[$n]:-0} + reqs )); TCK[$n]=$(( ${TCK[$n]:-0} + t ))
      us=$(awk -v t="$t" -v q="$reqs" -v hz="$TICK" 'BEGIN{printf "%.2f", t/hz*1e6/q}')
      printf "round %s %-8s %10s req %8s us CPU/req%s\n" "$r" "$n" "$reqs" "$us" "$split"
      if [ -n "${ROUNDS_TSV:-}" ]; then # one row a run: arm round requests seconds us/req p50 p99 (ms)
        printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n" "$n" "$r" "$reqs" "$secs" "$us" \
          "$(wrk_pct_ms 50 <<<"$out")" "$(wrk_pct_ms 99 <<<"$out")" >>"$ROUNDS_TSV"
      fi
    done
    if [ -n "${ROUND_HOOK:-}" ]; then eval "$ROUND_HOOK"; fi
  done
}

# close_rounds_vs_nginx ROUNDS SECS PAUSE ARM... : cpu_rounds under a connection-close hello
# (wrk -H 'Connection: close', PAUSE s before each run) over the ARMs, named in the caller's PORT
# and PID with nginx among them, after a 3 s warm-up of each (the JIT); then each arm's CPU per
# request and its ratio to nginx's. Needs REQ and TCK declared (declare -A) and TICK.
close_rounds_vs_nginx() {
  local -a WRK_ARGS=(-H 'Connection: close')
  rounds_vs_nginx "$@"
}

# rounds_vs_nginx ROUNDS SECS PAUSE ARM... : close_rounds_vs_nginx under the caller's WRK_ARGS
# (none: a keep-alive hello)
rounds_vs_nginx() {
  local rounds=$1 secs=$2 a n sides=()
  local RUN_PAUSE=$3
  shift 3
  # C2 compiles for ~15 s of this load (ADR 0035): warm past it, or the first rounds pay for it.
  for a in "$@"; do
    wrk -t2 -c32 ${WRK_ARGS[@]+"${WRK_ARGS[@]}"} -d"${WARM:-15}s" "${BENCH_SCHEME:-http}://127.0.0.1:${PORT[$a]}${BENCH_PATH:-/}" >/dev/null
    sleep 2
  done
  for a in "$@"; do sides+=("$a:${PORT[$a]}:${PID[$a]}"); done
  cpu_rounds "$rounds" "$secs" "${sides[@]}"
  n=$(awk -v t="${TCK[nginx]}" -v q="${REQ[nginx]:-0}" -v hz="$TICK" 'BEGIN{print (q > 0 ? t/hz*1e6/q : 0)}')
  for a in "$@"; do
    awk -v a="$a" -v t="${TCK[$a]}" -v q="${REQ[$a]:-0}" -v hz="$TICK" -v n="$n" -v s="$secs" -v r="$rounds" 'BEGIN{
      if (q == 0 || n == 0) { printf "%-13s no requests counted\n", a; exit }
      u = t/hz*1e6/q; printf "%-13s %7.2f us/req  %.3f x nginx  %.0f req/s\n", a, u, u/n, q/s/r }'
  done
}

# SIGTERM (nginx: QUIT) every server started here, then SIGKILL what is left of each tree, by pid
bench_cleanup() {
  local p c
  for p in "${BENCH_PIDS[@]}"; do
    for c in $(pgrep -P "$p" || true); do kill -TERM "$c" 2>/dev/null || true; done
    kill -TERM "$p" 2>/dev/null || true
  done
  sleep 2
  for p in "${BENCH_PIDS[@]}"; do
    for c in $(pgrep -P "$p" || true); do kill -KILL "$c" 2>/dev/null || true; done
    kill -KILL "$p" 2>/dev/null || true
  done
}

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# wrk output (in a file) -> requests/s; p99 in ms (needs --latency); socket errors + non-2xx, summed
wrk_rps() { awk '/^Requests\/sec:/ {print $2}' "$1"; }
wrk_p99_ms() { wrk_pct_ms 99 <"$1"; }
# wrk --latency output on stdin -> its PCT percentile (50, 75, 90, 99) in ms
wrk_pct_ms() {
  awk -v p="$1%" '$1 == p { v=$2; u=v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v);
    m = (u == "us") ? v/1000 : (u == "s") ? v*1000 : (u == "m") ? v*60000 : v; printf "%.2f", m }'
}
wrk_errors() {
  awk '/Socket errors:/ { gsub(/,/, ""); n += $4 + $6 + $8 + $10 } /Non-2xx/ { n += $NF } END { print n + 0 }' "$1"
}

# connections established to PORT, counted per owning pid, largest first ("17/15"): who serves what
conn_spread() {
  ss -Htnp state established "( sport = :$1 )" 2>/dev/null \
    | { grep -o 'pid=[0-9]*' || true; } | sort | uniq -c | awk '{print $1}' | sort -rn | paste -sd/
}

# split_midway SECS PORT N : conn_split halfway through a SECS-second run (start it in the
# background beside the run, and wait for it)
split_midway() { sleep "$(awk -v s="$1" 'BEGIN{print s / 2}')"; conn_split "$2" "$3"; }

# conn_split PORT N : conn_spread padded with /0 to N workers ("32/0", not "32"; "0/0" for none)
conn_split() {
  local s n
  s=$(conn_spread "$1")
  if [ -z "$s" ]; then s=0; n=1; else n=$(( $(tr -cd / <<<"$s" | wc -c) + 1 )); fi
  while (( n < $2 )); do s="$s/0"; n=$((n + 1)); done
  echo "$s"
}

# Landing: where a burst lands at the first ask and where it settles 1 s later, per arm. The
# caller defines arm_start NAME ARM PORT WORKERS (starts that arm's server as NAME; its pid in
# BENCH_PID_NAME) and sets WORK; PROBE_JAR (default JAR) runs the probe. PROBE_SHAPE (default
# burst, the seed's: all open, then asked) picks the probe's shape; asking is the burst a
# TCP_DEFER_ACCEPT listener sees (ADR 0054). PROBE_NICE (default 0) runs the probe at that nice
# value: the client shares this VM's two vCPUs with the workers, and at 19 it cannot preempt a
# worker inside a pass (ADR 0055).

# probe_settle PORT WORKERS CONNS ROUNDS -> one line per round: "settled landed"
probe_settle() {
  nice -n "${PROBE_NICE:-0}" "${M0_JAVA[@]}" -jar "${PROBE_JAR:-$JAR}" probe --target "127.0.0.1:$1" \
    --workers "$2" --connections "$3" --shape "${PROBE_SHAPE:-burst}" --rounds "$4" --pause-ms 300 \
    --settle-ms 1000 | awk '{print $3, $NF}'
}

# passed_over_slow SUPERVISOR_PID -> the siblings its workers' picks passed over as inside one pass
# for over 2 ms, summed ("?" when the stats say nothing of picks)
passed_over_slow() {
  "${M0_JAVA[@]}" -jar "$JAR" stats --pid "$1" 2>/dev/null | awk '/^picks/ { for (i = 1; i <= NF; i++)
    if ($i ~ /^w[0-9]+=[0-9]+\//) { split($i, a, /[=\/]/); n += a[2]; seen = 1 } }
    END { print seen ? n : "?" }'
}

# exact COUNTS WORKERS CONNS -> 1 when every worker has CONNS/WORKERS
exact() { awk -v c="$1" -v w="$2" -v n="$3" 'BEGIN{ k = split(c, a, "/"); ok = (k == w);
  for (i = 1; i <= k; i++) if (a[i] != n / w) ok = 0; print ok }'; }

# cold_first_bursts FRESH ARM... : FRESH fresh 2-worker servers per arm, started in alternation; on
# each, 32 keep-alive connections at once right after it serves; a table and the exact counts. Each
# cell is "landed -> settled, slow N": N is how many siblings the server's picks passed over for
# being inside one pass for over 2 ms (m0serve stats' picks line, summed over the workers; "?"
# where the build has no such counter), the seed's rule that an inexact landing comes from.
cold_first_bursts() {
  local fresh=$1 i arm port settled landed row slow; shift
  local -A landed_ok=() settled_ok=()
  printf "| server |%s load |\n|---|%s---|\n" "$(printf ' %s |' "$@")" "$(printf -- '---|%.0s' "$@")"
  for i in $(seq "$fresh"); do
    row=""
    for arm in "$@"; do
      port=$(free_port)
      arm_start "cold_$arm" "$arm" "$port" 2
      read -r settled landed < <(probe_settle "$port" 2 32 1)
      local v="BENCH_PID_cold_$arm"
      slow=$(passed_over_slow "${!v}")
      bench_stop "${!v}"
      landed_ok[$arm]=$(( ${landed_ok[$arm]:-0} + $(exact "$landed" 2 32) ))
      settled_ok[$arm]=$(( ${settled_ok[$arm]:-0} + $(exact "$settled" 2 32) ))
      row="$row $landed -> $settled, slow $slow |"
    done
    printf "| %d |%s %s |\n" "$i" "$row" "$(loadavg)"
  done
  for arm in "$@"; do
    printf "cold first burst, %s: landed exact in %d of %d, settled exact in %d of %d\n" "$arm" \
      "${landed_ok[$arm]}" "$fresh" "${settled_ok[$arm]}" "$fresh"
  done
}

# four_worker_bursts ARM... : per arm, a 4-worker server, 10 bursts of 64 from the first round
four_worker_bursts() {
  local arm port settled landed landed_ok settled_ok row
  for arm in "$@"; do
    port=$(free_port)
    arm_start "four_$arm" "$arm" "$port" 4
    probe_settle "$port" 4 64 10 >"$WORK/four_$arm.txt"
    local v="BENCH_PID_four_$arm"; bench_stop "${!v}"
    landed_ok=0; settled_ok=0; row=""
    while read -r settled landed; do
      landed_ok=$(( landed_ok + $(exact "$landed" 4 64) )); settled_ok=$(( settled_ok + $(exact "$settled" 4 64) ))
      row="$row$landed->$settled "
    done <"$WORK/four_$arm.txt"
    printf "| %-6s | landed exact %2d/10 | settled exact %2d/10 | %s| load %s |\n" "$arm" "$landed_ok" \
      "$settled_ok" "$row" "$(loadavg)"
  done
}

# openloop PORT PID RATE LOG -> "requests ticks achieved_rate errors": new connections (one
# request each) at RATE a second for SECS s; the request times go to LOG (µs, 3rd column).
# GEN=h2load (default): h2load --h1 in rate mode, RATE/1000 new connections every 1 ms (10 ms
# periods gave bursts of RATE/100 at once: at 24 000/s a mean request time of 5 ms against
# 0.42 ms, the queue of each burst, not the server; its timer restarts after each period's work,
# so the achieved column says what it really offered, within 1 % here). GEN=java:
# bench/OpenLoop.java, one connection due every 1/RATE s on an absolute schedule, latency from
# the due time, the server's ticks over the measured window only; one thread, so it cannot
# offer much above 12 000/s, and its own lag (printed as "late") counts as latency. Both ask
# with Connection: close, so the server closes first and the TIME_WAIT is its own: a client
# that closes first spends its connect() searching ports past its own TIME_WAIT sockets, and
# that kernel time capped h2load near 14 000 connections/s on a 2-core machine whatever the
# server (nginx too) or the number of h2load processes; asking close, it offers 35 000/s.
openloop() {
  local port=$1 pid=$2 rate=$3 log=$4 n b t out
  if [ "${GEN:-h2load}" = java ]; then
    out=$(OPENLOOP_LOG="$log" java -XX:+UseSerialGC -Xmx256m -cp "$WORK/cls" OpenLoop "127.0.0.1:$port" "$rate" "$SECS" 1 / "$pid")
    echo "  OpenLoop: $out" >&2
    awk '{print $4, $19, $8, $6}' <<<"$out" | sed 's#/s##'
    return
  fi
  n=$(( rate * SECS ))
  b=$(tree_ticks "$pid")
  out=$(h2load --h1 -H 'Connection: close' -t1 -c "$n" -n "$n" -r "$(( rate / 1000 ))" --rate-period 1ms --log-file "$log" \
        "http://127.0.0.1:$port/" 2>&1 || true)
  t=$(( $(tree_ticks "$pid") - b ))
  local done_ errs secs
  done_=$(awk '/^requests:/ {print $8}' <<<"$out")
  errs=$(awk '/^requests:/ {print $10 + $12}' <<<"$out")
  secs=$(awk '/^finished in/ {v=$3; sub(/,$/, "", v); u=v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v);
    print (u == "ms") ? v/1000 : (u == "us") ? v/1e6 : v}' <<<"$out")
  echo "${done_:-0} $t $(awk -v n="${done_:-0}" -v s="${secs:-1}" 'BEGIN{printf "%.0f", n/s}') ${errs:-0}"
}

# p50 and p99 (ms) of the request times in the logs given
percentiles() {
  cat "$@" | awk '{print $3}' | sort -n | awk '{v[NR] = $1} END {
    if (NR == 0) { print "- -"; exit }
    i = int(NR * 0.50); if (i < 1) i = 1
    j = int(NR * 0.99); if (j < 1) j = 1
    printf "%.2f %.2f\n", v[i] / 1000, v[j] / 1000 }'
}

# offered PCT -> PCT % of the caller's CAP (share's connection-close capacity), in whole thousands
# a second (h2load's per-1 ms count)
# (at least 1000: h2load's -r must be 1 or more)
offered() { local r=$(( (CAP * $1 / 100 + 500) / 1000 * 1000 )); echo $(( r < 1000 ? 1000 : r )); }
