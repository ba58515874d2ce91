#!/usr/bin/env bash
# Event-stream fan-out over TLS: activity-relay against nchan (nginx + libnginx-mod-nchan) on loopback.
#
# Both servers get the same certificate, the same number of threads/workers and the same load from
# our own generator (bench-stream, in this package): Server-Sent Events subscribers over TLS
# (HTTP/1.1) and publishers over keep-alive HTTPS. The relay's pushes go through the app API
# (POST /v1/activities/{id}/update: committed to its database before the 200, then fanned out as
# activity.updated); nchan's through its publisher location (in memory).
#
#   1. memory per idle subscriber: server RSS before and after IDLE subscribers connect
#      (RSS delta / subscribers; nginx: master and workers summed);
#   2. latency: FANOUT subscribers, LATENCY pushes one every INTERVAL s, push-to-subscriber
#      p50/p99 over every delivery;
#   3. deliveries per second: a burst of BURST pushes from PUBLISHERS connections to the same
#      subscribers, from the first push sent to the last event received.
#
#   bench/stream-bench.sh            # IDLE=10000 FANOUT=1000 LATENCY=200 INTERVAL=0.02 BURST=200 THREADS=2
#   BASELINE_RELAY=/tmp/old/activity-relay ROUNDS=3 bench/stream-bench.sh   # two builds
#
# Environment: the numbers above, PUBLISHERS (4), PAD (400 filler bytes per push), READERS (2
# subscriber reader threads), ROUNDS (1: latency and burst runs alternated between the servers,
# medians reported; idle memory is measured once, on fresh servers), RELAY (activity-relay binary;
# default .build/release/activity-relay, built if missing), BASELINE_RELAY (another activity-relay
# binary: it runs beside the current one, goes before it in every measurement, and the table adds
# its column and current/baseline), KEEP=1 keeps the work directory, PROFILE prefixes the relay's command (say
# `perf record -g -o /tmp/relay.perf --`; the idle memory figure is then perf's, not the relay's). Needs nginx with libnginx-mod-nchan, curl,
# python3. Goals: relay p99 < 50 ms, deliveries/s >= nchan's, bytes per idle subscriber <= nchan's.
# Exit status: 0 when every run completed (whether or not the goals were met), 1 otherwise.
set -euo pipefail

IDLE=${IDLE:-10000}
FANOUT=${FANOUT:-1000}
LATENCY=${LATENCY:-200}
INTERVAL=${INTERVAL:-0.02}
BURST=${BURST:-200}
PUBLISHERS=${PUBLISHERS:-4}
PAD=${PAD:-400}
READERS=${READERS:-2}
THREADS=${THREADS:-2}
ROUNDS=${ROUNDS:-1}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
RELAY=${RELAY:-$ROOT/.build/release/activity-relay}
BENCH=$HERE/.build/release/bench-stream

for tool in nginx python3 curl; do
    command -v "$tool" >/dev/null || { echo "stream-bench: $tool is required" >&2; exit 1; }
done
[ -f /usr/lib/nginx/modules/ngx_nchan_module.so ] || { echo "stream-bench: install libnginx-mod-nchan" >&2; exit 1; }
if [ ! -x "$RELAY" ]; then
    echo "stream-bench: building $RELAY (swift build -c release)" >&2
    (cd "$ROOT" && swift build -c release --product activity-relay >&2)
fi
if [ ! -x "$BENCH" ]; then
    echo "stream-bench: building $BENCH" >&2
    (cd "$HERE" && swift build -c release --product bench-stream >&2)
fi

if [ -n "${BASELINE_RELAY:-}" ] && [ ! -x "$BASELINE_RELAY" ]; then
    echo "stream-bench: BASELINE_RELAY $BASELINE_RELAY is not executable" >&2
    exit 1
fi

# 10,000 subscribers are 10,000 descriptors in the generator and in each server.
NEEDED=$((IDLE + 1000))
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt "$NEEDED" ]; then
    echo "stream-bench: IDLE=$IDLE needs $NEEDED file descriptors; the hard limit is $(ulimit -Hn)" >&2
    exit 1
fi

NAME=stream-bench
. "$HERE/lib.sh"

# --- the relays -------------------------------------------------------------------------------
cat > "$WORK/relay.json" <<JSON
{
  "threads": $THREADS,
  "logLevel": "warning",
  "http": { "maxConnections": $((IDLE + 2000)), "maxConnectionsPerAddress": $((IDLE + 2000)), "idleTimeout": 7200 }
}
JSON
# Per relay build (LABEL `relay`, the current build, and `baseline` with BASELINE_RELAY): its port
# and admin key.
declare -A PORT KEY
start_relay() { # LABEL BINARY DATA [PREFIX...]: serves on a free port with a fresh data directory
    local label=$1 binary=$2 data=$3 pid
    shift 3
    PORT[$label]=$(free_port)
    "$@" "$binary" serve --config "$WORK/relay.json" --data "$data" --listen "127.0.0.1:${PORT[$label]}" \
        2>"$WORK/$label.log" &
    pid=$!
    if [ "$label" = relay ]; then RELAY_PID=$pid; else BASELINE_PID=$pid; fi
    wait_for "https://localhost:${PORT[$label]}/healthz" "$data/tls-cert.pem" 200
    KEY[$label]=$(cat "$data/admin-key")
}
LABELS=(relay)
if [ -n "${BASELINE_RELAY:-}" ]; then
    start_relay baseline "$BASELINE_RELAY" "$WORK/baseline-data"
    LABELS=(baseline relay)
fi
# PROFILE is word-split on purpose: it is a command prefix.
# shellcheck disable=SC2086
start_relay relay "$RELAY" "$DATA" ${PROFILE:-}
declare -A PIDS=([relay]=$RELAY_PID [baseline]=$BASELINE_PID)
declare -A CACERT=([relay]=$DATA/tls-cert.pem [baseline]=$WORK/baseline-data/tls-cert.pem)

# --- nchan ------------------------------------------------------------------------------------
NGINX_PORT=$(free_port)
mkdir -p "$WORK"/nginx-{body,proxy,fastcgi,uwsgi,scgi}
chmod 777 "$WORK"/nginx-*
sed -e "s|@WORK@|$WORK|g" -e "s|@PORT@|$NGINX_PORT|g" -e "s|@CERT@|$DATA/tls-cert.pem|g" \
    -e "s|@KEY@|$DATA/tls-key.pem|g" -e "s|@WORKERS@|$THREADS|g" "$HERE/stream/nchan.conf.template" > "$WORK/nginx.conf"
nginx -c "$WORK/nginx.conf" -p "$WORK" -g 'daemon off;' 2>"$WORK/nginx-stderr.log" &
NGINX_PID=$!
wait_for "https://localhost:$NGINX_PORT/healthz" "$DATA/tls-cert.pem" 200
NGINX_PIDS=$(echo "$NGINX_PID" $(pgrep -P "$NGINX_PID") | tr ' ' ',')

bench() { # LABEL CACERT ARGS... -> the run's JSON line; its full report in WORK/LABEL.txt
    local out
    if ! out=$("$BENCH" "${@:3}" --cacert "$2" 2>&1); then
        echo "stream-bench: $1 failed:" >&2
        echo "$out" >&2
        return 1
    fi
    echo "$out" > "$WORK/$1.txt"
    grep -v '^{' <<<"$out" | sed "s/^/  [$1] /" >&2
    tail -n 1 <<<"$out"
}

# --- 1. memory per idle subscriber (fresh servers) --------------------------------------------
for label in "${LABELS[@]}"; do
    bench "$label-idle" "${CACERT[$label]}" idle --target relay --port "${PORT[$label]}" --key "${KEY[$label]}" \
        --subscribers "$IDLE" --pids "${PIDS[$label]}" > "$WORK/$label-idle.json"
done
bench nchan-idle "$DATA/tls-cert.pem" idle --target nchan --port "$NGINX_PORT" --subscribers "$IDLE" \
    --pids "$NGINX_PIDS" > "$WORK/nchan-idle.json"
sleep 2

# --- 2 and 3. latency and deliveries per second, ROUNDS alternated rounds ---------------------
FANOUT_ARGS=(--subscribers "$FANOUT" --latency-pushes "$LATENCY" --interval "$INTERVAL" --burst "$BURST"
    --publishers "$PUBLISHERS" --readers "$READERS")
NCHAN_PAD=""
for round in $(seq 1 "$ROUNDS"); do
    for label in "${LABELS[@]}"; do
        bench "$label-fanout-$round" "${CACERT[$label]}" fanout --target relay --port "${PORT[$label]}" \
            --key "${KEY[$label]}" --pad "$PAD" "${FANOUT_ARGS[@]}" >> "$WORK/$label-fanout.json"
    done
    # nchan carries the pushed body as is, the relay the whole activity: pad nchan's messages to
    # the size of the relay's events so both move the same bytes.
    if [ -z "$NCHAN_PAD" ]; then
        RELAY_BYTES=$(python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["eventBytes"])' \
            < "$WORK/relay-fanout.json")
        NCHAN_PAD=$((RELAY_BYTES > PAD + 22 ? RELAY_BYTES - 22 : PAD))
    fi
    bench "nchan-fanout-$round" "$DATA/tls-cert.pem" fanout --target nchan --port "$NGINX_PORT" --pad "$NCHAN_PAD" \
        "${FANOUT_ARGS[@]}" >> "$WORK/nchan-fanout.json"
done

python3 - "$WORK" "$THREADS" "$(nproc)" "${BASELINE_RELAY:-}" <<'PY'
import json, os, statistics, sys
work, threads, cores, baseline = sys.argv[1:5]
def runs(name):
    with open(os.path.join(work, name + ".json")) as f:
        return [json.loads(line) for line in f if line.strip()]
servers = ["relay", "nchan"] + (["baseline"] if baseline else [])
idle = {s: runs(s + "-idle")[0] for s in servers}
fan = {s: runs(s + "-fanout") for s in servers}
rounds = len(fan["relay"])
def med(server, key):
    return round(statistics.median(r[key] for r in fan[server]), 3)
def total(server, got, expected):
    return f"{sum(r[got] for r in fan[server])}/{sum(r[expected] for r in fan[server])}"
print(f"stream fan-out over TLS on loopback: {threads} relay threads / nginx workers, {cores} cores"
      + (f", medians of {rounds} alternated rounds" if rounds > 1 else ""))
if baseline: print(f"baseline: {baseline}")
print(f"{'':34}{'activity-relay':>16}{'nchan':>16}" + (f"{'baseline':>16}{'cur/base':>10}" if baseline else ""))
def row(name, values, unit="", ratio=True):
    line = f"{name:34}{values[0]:>16}{values[1]:>16}"
    if baseline:
        current, base = values[0], values[2]
        quotient = f"{current / base:.3f}" if ratio and isinstance(current, (int, float)) and base else "—"
        line += f"{base:>16}{quotient:>10}"
    print(line + (f" {unit}" if unit else ""))
subscribers = fan["relay"][0]["subscribers"]
row(f"latency p50 (1 push -> {subscribers})", [med(s, "p50ms") for s in servers], "ms")
row(f"latency p99 (1 push -> {subscribers})", [med(s, "p99ms") for s in servers], "ms")
row("latency deliveries complete", [total(s, "latencyDeliveries", "latencyExpected") for s in servers], ratio=False)
row("deliveries/s (burst)", [int(med(s, "deliveriesPerSecond")) for s in servers])
row("burst deliveries complete", [total(s, "burstDeliveries", "burstExpected") for s in servers], ratio=False)
row("event data bytes", [fan[s][0]["eventBytes"] for s in servers])
row(f"memory per idle subscriber ({idle['relay']['subscribers']})", [int(idle[s]["bytesPerSubscriber"]) for s in servers], "bytes")
ri, ni = idle["relay"], idle["nchan"]
goals = [
    ("relay p99 < 50 ms", med("relay", "p99ms") < 50),
    ("relay deliveries/s >= nchan's", med("relay", "deliveriesPerSecond") >= med("nchan", "deliveriesPerSecond")),
    ("relay memory per idle subscriber <= nchan's", ri["bytesPerSubscriber"] <= ni["bytesPerSubscriber"]),
]
for name, met in goals:
    print(f"goal: {name}: {'met' if met else 'NOT met'}")
PY
