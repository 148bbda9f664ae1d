#!/bin/sh
# m0serve on the floor it claims (docs/adr/0060): a Debian 11 (bullseye) root, glibc 2.31, with
# bullseye's own OpenJDK 17 (17.0.12), made by debootstrap from Debian's packages; the built
# m0serve copied in and run in a chroot. It serves the built-in app, a --main app (the
# examples-jdkhttp FilesApp), lands a 2-worker burst 16/16 with `m0serve probe --shape burst`, and
# replaces a SIGKILLed worker with pidfds forced off (the SIGCHLD path; bullseye's glibc already
# takes the epoll_wait and close-loop paths on its own). Prints what it saw; exits 1 on a failure.
#
# NOT run in CI: it needs root (debootstrap, chroot, mounts), deb.debian.org and minutes for the
# first root. Run by hand:   sudo prod-server/bench/bullseye.sh [ROOT]
# ROOT (default /work/wt/bullseye-root) is kept between runs: debootstrap runs only when it lacks
# bullseye's java. The kernel is the host's: a chroot tests the C library and the JDK, not
# kernel 4.18 (the kernel fallbacks are forced with --dev-native-fallbacks instead).
# Build first (from the repository root), or set BUILD=1:
#   mvn -B -q -pl prod-server,examples-jdkhttp -am package -DskipTests
set -eu

repo=$(cd "$(dirname "$0")/../.." && pwd)
root=${1:-/work/wt/bullseye-root}
java17=/usr/lib/jvm/java-17-openjdk-amd64/bin/java
failures=0

say() { printf 'bullseye: %s\n' "$*"; }
fail() { printf 'bullseye: FAIL: %s\n' "$*"; failures=$((failures + 1)); }

if [ "$(id -u)" != 0 ]; then
  echo "bullseye: needs root (debootstrap, chroot, mounts)" >&2
  exit 2
fi

if [ ! -x "$root$java17" ]; then
  command -v debootstrap >/dev/null || apt-get install -y debootstrap >/dev/null
  say "making the root in $root (minutes)"
  mkdir -p "$root"
  debootstrap --variant=minbase --include=openjdk-17-jre-headless,curl,procps bullseye "$root" \
    http://deb.debian.org/debian >"$root.debootstrap.log" 2>&1 || { tail -20 "$root.debootstrap.log"; exit 1; }
fi

if [ "${BUILD:-0}" = 1 ]; then
  (cd "$repo" && mvn -B -q -o -pl prod-server,examples-jdkhttp -am package -DskipTests)
fi
jar=$repo/prod-server/target/m0serve.jar
app_jar=$(ls "$repo"/examples-jdkhttp/target/m0-examples-jdkhttp-*.jar 2>/dev/null | grep -v -e sources -e tests | head -1 || true)
[ -f "$jar" ] || { echo "bullseye: $jar missing: build first (see the header)" >&2; exit 2; }
[ -n "$app_jar" ] || { echo "bullseye: the examples-jdkhttp jar is missing: build first (see the header)" >&2; exit 2; }

# The launcher, the jar and jffi's native directory, side by side as in target/; not the
# class-data archive: it was dumped by the build's JDK and bullseye's would refuse it.
dest=$root/opt/m0
rm -rf "$dest"
mkdir -p "$dest/app" "$dest/files"
cp "$repo/prod-server/bin/m0serve" "$jar" "$dest/"
[ -d "$repo/prod-server/target/jni" ] && cp -r "$repo/prod-server/target/jni" "$dest/"
cp "$app_jar" "$dest/app/"
echo "a file served from bullseye" >"$dest/files/hello.txt"

mounted=""
cleanup() {
  # Anything of ours still running in the root, then the mounts, innermost first.
  for p in $(ls /proc | grep -E '^[0-9]+$'); do
    if [ "$(readlink "/proc/$p/root" 2>/dev/null)" = "$root" ]; then kill -9 "$p" 2>/dev/null || true; fi
  done
  for m in $mounted; do umount "$root/$m" 2>/dev/null || umount -l "$root/$m" 2>/dev/null || true; done
}
trap cleanup EXIT INT TERM
for m in proc sys dev; do
  if ! mountpoint -q "$root/$m"; then
    case $m in
      proc) mount -t proc proc "$root/proc" ;;
      sys) mount -t sysfs sys "$root/sys" ;;
      dev) mount --bind /dev "$root/dev" ;;
    esac
    mounted="$m $mounted"
  fi
done

# No class-data archive was copied (M0_CDS=0 says so without a line); bullseye's default java is 11.
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin JAVA="$java17" M0_CDS=0 "$@"; }

say "$(in_root /usr/bin/ldd --version | head -1)"
say "$(in_root "$java17" -version 2>&1 | head -1)"
say "kernel (the host's) $(uname -r)"

# Starts m0serve in the root with "$@"; sets pid, port, log. Waits (bounded) for "ready".
start() {
  log=$root/tmp/m0serve.$$.log
  out=$root/tmp/m0serve.$$.out
  : >"$log"
  : >"$out"
  in_root /opt/m0/m0serve --bind 127.0.0.1:0 "$@" >>"$out" 2>>"$log" &  # appended: the workers share it
  pid=$!
  i=0
  while ! grep -q 'ready' "$out" 2>/dev/null; do
    i=$((i + 1))
    if [ $i -gt 300 ] || ! kill -0 "$pid" 2>/dev/null; then
      fail "m0serve $* did not get ready"; cat "$out" "$log"; port=""; return 1
    fi
    sleep 0.1
  done
  port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$out" | head -1)
  say "started: m0serve $* (port $port)"
  grep -h 'native calls\|warmed up\|no io_uring' "$out" "$log" | sed 's/^/  /'
}

stop() {
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

get() { in_root curl -s --max-time 5 "http://127.0.0.1:$port$1" || true; }

# 1. The built-in app, two workers: a request, then three burst rounds that must land 16/16.
if start --workers 2; then
  body=$(get /)
  [ "$body" = hello ] && say "built-in app: GET / -> $body" || fail "built-in app: GET / -> '$body'"
  in_root /opt/m0/m0serve probe --target "127.0.0.1:$port" --shape burst --connections 32 --workers 2 \
    --rounds 3 >"$root/tmp/probe.$$" 2>&1 || true
  sed 's/^/  probe: /' "$root/tmp/probe.$$"
  landed=$(grep -c '^burst .* 16/16 ' "$root/tmp/probe.$$" || true)
  [ "$landed" = 3 ] && say "burst: 3 of 3 rounds landed 16/16" || fail "burst: $landed of 3 rounds landed 16/16"
  grep -q 'wait=epoll_wait' "$log" || fail "the workers did not say wait=epoll_wait on glibc 2.31"
  grep -q 'close=loop' "$log" || fail "the supervisor did not say close=loop on glibc 2.31"
  stop
fi

# 2. A --main app: examples-jdkhttp's FilesApp, its HttpServer served on m0's listener.
app_cp=/opt/m0/app/$(basename "$app_jar")
if start --workers 2 --main m0.examples.jdkhttp.FilesApp --app-classpath "$app_cp" -- 127.0.0.1:0 /opt/m0/files; then
  body=$(get /files/hello.txt)
  [ "$body" = "a file served from bullseye" ] && say "--main app: GET /files/hello.txt -> $body" \
    || fail "--main app: GET /files/hello.txt -> '$body'"
  stop
fi

# 3. The SIGCHLD path (pidfds forced off): a SIGKILLed worker is reaped and replaced.
if start --workers 2 --dev-native-fallbacks pidfd; then
  victim=$(sed -n 's|.*worker 1 (pid \([0-9]*\)) started.*|\1|p' "$log" | head -1)
  if [ -n "$victim" ]; then
    kill -9 "$victim"
    i=0
    while ! grep -q "worker 1 (pid $victim) signal 9; respawning" "$log" || ! grep -q 'worker 1 (pid [0-9]*) started' "$log"; do
      i=$((i + 1)); [ $i -gt 100 ] && break; sleep 0.1
    done
    if grep -q "worker 1 (pid $victim) signal 9; respawning" "$log"; then
      say "reap=sigchld: $(grep "pid $victim) signal 9" "$log")"
      body=$(get /)
      [ "$body" = hello ] && say "after the respawn: GET / -> $body" || fail "after the respawn: GET / -> '$body'"
    else
      fail "worker 1 (pid $victim) was not reaped under reap=sigchld"; cat "$log"
    fi
  else
    fail "worker 1's pid not found in the log"
  fi
  stop
fi

rm -f "$root"/tmp/m0serve.$$.* "$root/tmp/probe.$$"
if [ "$failures" -gt 0 ]; then
  say "$failures failure(s)"
  exit 1
fi
say "all passed"
