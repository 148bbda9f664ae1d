# Shared by jdkhttp-compare.sh and stream-rss.sh (source it after ../lib.sh; needs WORK, BENCH_DIR).
# Compiles Bench.java into $WORK/app.jar with javac; finds or fetches Jetty's provider.

JETTY_VERSION=${JETTY_VERSION:-12.1.14}
JETTY_PROVIDER=org.eclipse.jetty.http.spi.JettyHttpServerProvider

build_app() {
  mkdir -p "$WORK/app"
  javac --release 17 -d "$WORK/app" "$BENCH_DIR/jdkhttp/Bench.java"
  (cd "$WORK/app" && jar cf "$WORK/app.jar" ./*.class)
  APP_JAR=$WORK/app.jar
}

# JETTY_LIB: a directory of jetty-http-spi and its dependencies; else fetched from Maven Central
# once into /tmp/m0-jetty-spi-$JETTY_VERSION (a throwaway pom, dependency:copy-dependencies)
jetty_lib() {
  local d=${JETTY_LIB:-/tmp/m0-jetty-spi-$JETTY_VERSION}
  if ! ls "$d"/lib/jetty-http-spi-*.jar >/dev/null 2>&1 && ! ls "$d"/jetty-http-spi-*.jar >/dev/null 2>&1; then
    mkdir -p "$d"
    cat >"$d/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>m0.bench</groupId><artifactId>jetty-spi</artifactId><version>1</version><packaging>pom</packaging>
<dependencies><dependency><groupId>org.eclipse.jetty</groupId><artifactId>jetty-http-spi</artifactId>
<version>$JETTY_VERSION</version></dependency></dependencies></project>
POM
    timeout 300 mvn -q -f "$d/pom.xml" dependency:copy-dependencies -DoutputDirectory="$d/lib" >&2
  fi
  [ -d "$d/lib" ] && d=$d/lib
  local listing
  listing=$(unzip -l "$d"/jetty-http-spi-*.jar)
  grep -q "${JETTY_PROVIDER//.//}.class" <<<"$listing" || { echo "$JETTY_PROVIDER not in $d/jetty-http-spi-*.jar" >&2; return 1; }
  JETTY_CP=$d/*
}

# wait_line FILE TEXT PID : until FILE holds TEXT (60 s at most, and while PID lives)
wait_line() {
  for _ in $(seq 600); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    kill -0 "$3" 2>/dev/null || { echo "pid $3 exited:" >&2; cat "$1" "${1%.out}.err" >&2; return 1; }
    sleep 0.1
  done
  echo "no '$2' in $1 after 60 s" >&2; return 1
}

# wait_load MAX : until the 1-minute load average is below MAX, polled every 20 s, 10 min at most
wait_load() {
  local i
  for i in $(seq 30); do
    awk -v m="$1" '{exit !($1 < m)}' /proc/loadavg && { echo "# load $(loadavg): below $1"; return 0; }
    echo "# load $(loadavg): waiting for < $1 ($((i * 20)) s of 600)" >&2
    sleep 20
  done
  echo "# load $(loadavg): still not below $1 after 10 min; measuring anyway"
}

# app_start NAME PORT JAVA_ARGS... : a plain JVM running Bench (the JDK's server or Jetty's)
app_start() {
  local name=$1 port=$2; shift 2
  java "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
  local pid=$!
  BENCH_PIDS+=("$pid")
  printf -v "BENCH_PID_$name" '%s' "$pid"
  wait_line "$WORK/$name.out" "Bench: serving" "$pid"
}

# m0_start NAME PORT M0SERVE_ARGS... : m0serve running Bench's main in each worker
m0_start() {
  local name=$1 port=$2; shift 2
  "${M0_JAVA[@]}" -jar "$JAR" --bind "127.0.0.1:$port" "$@" --main Bench --app-classpath "$APP_JAR" \
    -- "127.0.0.1:$port" >"$WORK/$name.out" 2>"$WORK/$name.err" &
  local pid=$!
  BENCH_PIDS+=("$pid")
  printf -v "BENCH_PID_$name" '%s' "$pid"
  wait_line "$WORK/$name.out" "m0serve: ready:" "$pid"
}

# after bench_cleanup: nothing of the trees may be left
check_gone() {
  local p left=""
  for p in "$@"; do pid_alive "$p" && left="$left $p"; done
  if [ -n "$left" ]; then echo "# still alive after cleanup:$left" >&2; fi
}
