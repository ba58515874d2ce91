#!/usr/bin/env bash
# The network-engine benchmark: the relay's engine (TLS, HTTP/2, router) against nginx on the same
# machine, both on loopback, both with as many threads/workers as there are cores.
#
#   bench/engine-bench.sh                 # everything: memory first (fresh servers), then req/s
#   ONLY=rps bench/engine-bench.sh        # only requests per second
#   ONLY=memory bench/engine-bench.sh     # only memory per idle connection
#
# Settings (environment): REQUESTS=200000 CLIENTS=50 STREAMS=20 RUNS=3 WARMUP=20000 IDLE=10000
# IDLE_MODE=h2|tls (h2: TLS + HTTP/2 preface and SETTINGS exchanged; tls: handshake only)
# MAX_SECONDS=1200 (the whole run is killed after this) SKIP_BUILD=1 (reuse the release build).
#
# Needs: swift, nginx (1.22 syntax), h2load, openssl, python3. Everything listens on 127.0.0.1 only;
# every process started here is stopped on exit, whatever the exit.
set -euo pipefail

MAX_SECONDS=${MAX_SECONDS:-1200}
if [ -z "${ENGINE_BENCH_TIMED:-}" ]; then  # bound the whole run: TERM reaches the trap below, which cleans up
    export ENGINE_BENCH_TIMED=1
    exec timeout --foreground "$MAX_SECONDS" bash "$0" "$@"
fi

REQUESTS=${REQUESTS:-200000}
CLIENTS=${CLIENTS:-50}
STREAMS=${STREAMS:-20}
RUNS=${RUNS:-3}
WARMUP=${WARMUP:-20000}
IDLE=${IDLE:-10000}
IDLE_MODE=${IDLE_MODE:-h2}
ONLY=${ONLY:-all}
# Both servers negotiate the same suite, so the comparison is of the engines, not of AES key sizes
# (the relay prefers AES-256 by server preference; nginx follows h2load's AES-128).
TLS13_SUITE=TLS_AES_128_GCM_SHA256

BENCH=$(cd "$(dirname "$0")" && pwd)
CORES=$(nproc)
TICKS=$(getconf CLK_TCK)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/engine-bench.XXXXXX")
RELAY_PID=""
NGINX_PID=""
CLIENT_PID=""

log() { printf '%s\n' "$*" >&2; }
die() { log "engine-bench: $*"; exit 1; }

# Stops a process: TERM (or the given signal), up to 5 s, then KILL.
stop() {
    local pid=$1 signal=${2:-TERM}
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
    kill "-$signal" "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    stop "$CLIENT_PID"
    stop "$RELAY_PID"
    if [ -n "$NGINX_PID" ]; then
        local workers worker
        workers=$(pgrep -P "$NGINX_PID" || true)
        stop "$NGINX_PID"  # fast shutdown: the master stops its workers
        for worker in $workers; do stop "$worker"; done
    fi
    rm -rf "$WORK"
    exit "$status"
}
trap cleanup EXIT
trap 'log "engine-bench: interrupted"; exit 130' INT
trap 'log "engine-bench: stopped (time limit of ${MAX_SECONDS}s or TERM)"; exit 124' TERM

for tool in nginx h2load openssl python3; do
    command -v "$tool" >/dev/null || die "$tool is not installed"
done
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
if [ "$ONLY" != rps ] && [ "$(ulimit -n)" -lt $((IDLE + 1024)) ]; then
    die "open-file limit $(ulimit -n) is too low for $IDLE idle connections (IDLE=... to lower it)"
fi

# --- Build, certificate, configuration -------------------------------------------------------------

if [ "${SKIP_BUILD:-0}" != 1 ]; then
    log "building (release)..."
    swift build -c release --package-path "$BENCH" --product bench-engine-server >&2
    swift build -c release --package-path "$BENCH" --product bench-openssl-idle >&2
fi
BIN=$(swift build -c release --package-path "$BENCH" --show-bin-path)

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
    -keyout "$WORK/key.pem" -out "$WORK/cert.pem" -subj /CN=localhost \
    -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" 2>/dev/null || die "openssl could not make a certificate"

NGINX_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
NOFILE=$(ulimit -n)
mkdir -p "$WORK/nginx"
# keepalive_requests: nginx closes a connection after 1000 requests by default (HTTP/2 included
# since 1.19.7), which h2load counts as failures; the relay has no such limit. The timeouts keep
# 10,000 idle connections open while they are being opened and measured.
cat >"$WORK/nginx.conf" <<EOF
daemon off;
master_process on;
worker_processes $CORES;
worker_rlimit_nofile $NOFILE;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events { worker_connections $((NOFILE - 64)); }
http {
    access_log off;
    keepalive_requests 100000000;
    keepalive_timeout 600s;
    client_header_timeout 600s;
    client_body_temp_path $WORK/nginx/body;
    proxy_temp_path $WORK/nginx/proxy;
    fastcgi_temp_path $WORK/nginx/fastcgi;
    uwsgi_temp_path $WORK/nginx/uwsgi;
    scgi_temp_path $WORK/nginx/scgi;
    server {
        listen 127.0.0.1:$NGINX_PORT ssl http2;
        ssl_certificate $WORK/cert.pem;
        ssl_certificate_key $WORK/key.pem;
        ssl_protocols TLSv1.2 TLSv1.3;
        location /bench { return 200; }
    }
}
EOF

# --- Servers ---------------------------------------------------------------------------------------

start_relay() {
    "$BIN/bench-engine-server" --port 0 --cert "$WORK/cert.pem" --key "$WORK/key.pem" --threads "$CORES" \
        --max-connections $((IDLE + 1000)) >"$WORK/relay.out" 2>"$WORK/relay.err" &
    RELAY_PID=$!
    for _ in $(seq 100); do
        RELAY_PORT=$(awk '/^listening/ { print $2 }' "$WORK/relay.out")
        [ -n "$RELAY_PORT" ] && return 0
        kill -0 "$RELAY_PID" 2>/dev/null || break
        sleep 0.1
    done
    cat "$WORK/relay.err" >&2
    die "bench-engine-server did not start"
}

start_nginx() {
    nginx -c "$WORK/nginx.conf" -p "$WORK/nginx" -e "$WORK/nginx/error.log" >"$WORK/nginx.out" 2>&1 &
    NGINX_PID=$!
    for _ in $(seq 100); do
        [ "$(pgrep -c -P "$NGINX_PID" 2>/dev/null || true)" -ge "$CORES" ] && return 0
        kill -0 "$NGINX_PID" 2>/dev/null || break
        sleep 0.1
    done
    cat "$WORK/nginx.out" "$WORK/nginx/error.log" >&2 2>/dev/null || true
    die "nginx did not start"
}

# The processes that hold connections: the relay, or nginx's workers (not the master).
server_pids() {
    if [ "$1" = relay ]; then echo "$RELAY_PID"; else pgrep -P "$NGINX_PID" | tr '\n' ' '; fi
}
server_port() { if [ "$1" = relay ]; then echo "$RELAY_PORT"; else echo "$NGINX_PORT"; fi; }

# Fails, with the server's own last words, unless every process of server $1 is still running.
check_alive() {
    local name=$1 pid
    shift
    for pid in "$@"; do
        kill -0 "$pid" 2>/dev/null && continue
        if [ "$name" = relay ]; then tail -20 "$WORK/relay.err" >&2; else tail -20 "$WORK/nginx/error.log" >&2; fi
        die "$name (pid $pid) exited during the benchmark"
    done
}

# Sum of VmRSS (KiB) over the given processes.
rss_kib() {
    local total=0 pid value
    for pid in "$@"; do
        value=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status")
        total=$((total + value))
    done
    echo "$total"
}

# Sum of user + system CPU time (clock ticks) over the given processes.
cpu_ticks() {
    local total=0 pid value
    for pid in "$@"; do
        value=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
        total=$((total + value))
    done
    echo "$total"
}

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# --- Memory per idle connection --------------------------------------------------------------------

# Opens $IDLE idle connections to one server; sets IDLE_KIB (RSS growth per connection, KiB),
# IDLE_BEFORE and IDLE_AFTER (KiB) and IDLE_OPENED.
measure_idle() {
    local name=$1 port pids
    port=$(server_port "$name")
    read -r -a pids <<<"$(server_pids "$name")"
    # Warm-up: code paths, per-thread OpenSSL state and allocator arenas exist before the baseline.
    timeout 120 python3 "$BENCH/scripts/idle_clients.py" --port "$port" --count 50 --mode "$IDLE_MODE" --hold 0 \
        >"$WORK/idle.out" 2>"$WORK/idle.err" || die "$name: warm-up client failed: $(cat "$WORK/idle.err")"
    grep -q '^open 50 0$' "$WORK/idle.out" || die "$name: warm-up connections failed: $(cat "$WORK/idle.err")"
    sleep 1
    check_alive "$name" "${pids[@]}"
    IDLE_BEFORE=$(rss_kib "${pids[@]}")
    python3 "$BENCH/scripts/idle_clients.py" --port "$port" --count "$IDLE" --mode "$IDLE_MODE" --hold 600 \
        >"$WORK/idle.out" 2>"$WORK/idle.err" &
    CLIENT_PID=$!
    for _ in $(seq 3000); do
        grep -q '^open' "$WORK/idle.out" && break
        kill -0 "$CLIENT_PID" 2>/dev/null || break
        sleep 0.1
    done
    IDLE_OPENED=$(awk '/^open/ { print $2 }' "$WORK/idle.out")
    [ -n "$IDLE_OPENED" ] && [ "$IDLE_OPENED" -gt 0 ] || die "$name: no idle connection opened: $(cat "$WORK/idle.err")"
    [ "$IDLE_OPENED" -eq "$IDLE" ] || log "$name: only $IDLE_OPENED of $IDLE connections opened: $(cat "$WORK/idle.err")"
    sleep 3  # let the servers finish with the handshakes and release their buffers
    check_alive "$name" "${pids[@]}"
    IDLE_AFTER=$(rss_kib "${pids[@]}")
    stop "$CLIENT_PID"
    CLIENT_PID=""
    IDLE_KIB=$(awk -v b="$IDLE_BEFORE" -v a="$IDLE_AFTER" -v n="$IDLE_OPENED" 'BEGIN { printf "%.2f", (a - b) / n }')
}

# --- Requests per second ---------------------------------------------------------------------------

# One h2load run; sets RATE (req/s) and CPU_US (server CPU microseconds per request). Fails unless
# every request was answered with a 2xx.
h2load_run() {
    local name=$1 count=$2 port pids cpu_before cpu_after output
    port=$(server_port "$name")
    read -r -a pids <<<"$(server_pids "$name")"
    cpu_before=$(cpu_ticks "${pids[@]}")
    output=$(timeout 300 h2load --tls13-ciphers="$TLS13_SUITE" -n "$count" -c "$CLIENTS" -m "$STREAMS" \
        -d "$BENCH/small-body.json" -H 'content-type: application/json' "https://127.0.0.1:$port/bench" 2>&1) ||
        { printf '%s\n' "$output" | tail -5 >&2; die "$name: h2load failed"; }
    check_alive "$name" "${pids[@]}"
    cpu_after=$(cpu_ticks "${pids[@]}")
    if ! printf '%s\n' "$output" | grep -q "requests: $count total, $count started, $count done, $count succeeded" ||
        ! printf '%s\n' "$output" | grep -q "status codes: $count 2xx"; then
        printf '%s\n' "$output" | grep -E '^(requests|status codes):' >&2
        die "$name: not every request succeeded"
    fi
    RATE=$(printf '%s\n' "$output" | awk '/^finished in/ { gsub(",", "", $4); printf "%.0f", $4 }')
    CPU_US=$(awk -v c=$((cpu_after - cpu_before)) -v t="$TICKS" -v n="$count" 'BEGIN { printf "%.2f", c / t * 1e6 / n }')
}

# --- Run -------------------------------------------------------------------------------------------

start_relay
start_nginx
log "relay on 127.0.0.1:$RELAY_PORT, nginx on 127.0.0.1:$NGINX_PORT, $CORES cores; $(nginx -v 2>&1); $(h2load --version | head -1)"
echo "# engine-bench $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -sr), $CORES cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

if [ "$ONLY" != rps ]; then
    log "memory: $IDLE idle $IDLE_MODE connections to each server..."
    measure_idle relay
    relay_kib=$IDLE_KIB relay_before=$IDLE_BEFORE relay_after=$IDLE_AFTER relay_open=$IDLE_OPENED
    measure_idle nginx
    nginx_kib=$IDLE_KIB nginx_before=$IDLE_BEFORE nginx_after=$IDLE_AFTER nginx_open=$IDLE_OPENED
    openssl_line=$("$BIN/bench-openssl-idle" "$WORK/cert.pem" "$WORK/key.pem" "$IDLE")
    openssl_kib=$(printf '%s\n' "$openssl_line" | awk '/^heap bytes/ { printf "%.2f", $6 / 1024 }')
    echo
    echo "memory per idle connection ($IDLE_MODE; VmRSS growth over $IDLE connections; nginx: sum of workers)"
    printf '  %-28s %7s KiB   (%d -> %d KiB, %d connections)\n' relay "$relay_kib" "$relay_before" "$relay_after" "$relay_open"
    printf '  %-28s %7s KiB   (%d -> %d KiB, %d connections)\n' nginx "$nginx_kib" "$nginx_before" "$nginx_after" "$nginx_open"
    printf '  %-28s %7s KiB   (bench-openssl-idle: heap per idle server session, no server)\n' "OpenSSL's own" "$openssl_kib"
    awk -v r="$relay_kib" -v n="$nginx_kib" -v o="$openssl_kib" 'BEGIN {
        printf "  %-28s %7.2f KiB   nginx besides OpenSSL: %.2f KiB\n", "relay besides OpenSSL", r - o, n - o
        printf "  goal: relay <= nginx + OpenSSL (%.2f KiB): %s; relay - nginx = %+.2f KiB\n", n + o, (r <= n + o) ? "met" : "NOT met", r - n
    }'
fi

if [ "$ONLY" != memory ]; then
    log "requests per second: warm-up, then $RUNS runs each of $REQUESTS requests..."
    h2load_run relay "$WARMUP"
    h2load_run nginx "$WARMUP"
    relay_rates=() nginx_rates=() relay_cpu=() nginx_cpu=()
    for run in $(seq "$RUNS"); do  # alternating, so a burst of load elsewhere hits both
        h2load_run relay "$REQUESTS"
        relay_rates+=("$RATE") relay_cpu+=("$CPU_US")
        h2load_run nginx "$REQUESTS"
        nginx_rates+=("$RATE") nginx_cpu+=("$CPU_US")
        log "  run $run: relay ${relay_rates[-1]} req/s, nginx ${nginx_rates[-1]} req/s"
    done
    relay_median=$(median "${relay_rates[@]}")
    nginx_median=$(median "${nginx_rates[@]}")
    echo
    echo "requests per second (h2load -n $REQUESTS -c $CLIENTS -m $STREAMS, $(wc -c <"$BENCH/small-body.json")-byte POST, TLS 1.3 $TLS13_SUITE; median of $RUNS)"
    printf '  %-6s %10s req/s   runs: %s   server CPU per request: %s us (median)\n' relay "$relay_median" "${relay_rates[*]}" "$(median "${relay_cpu[@]}")"
    printf '  %-6s %10s req/s   runs: %s   server CPU per request: %s us (median)\n' nginx "$nginx_median" "${nginx_rates[*]}" "$(median "${nginx_cpu[@]}")"
    awk -v r="$relay_median" -v n="$nginx_median" 'BEGIN {
        printf "  ratio relay/nginx: %.2f (goal >= 0.70: %s)\n", r / n, (r / n >= 0.7) ? "met" : "NOT met"
    }'
fi
