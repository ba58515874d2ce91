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
#
# Environment: the numbers above, PUBLISHERS (4), PAD (400 filler bytes per push), READERS (2
# subscriber reader threads), RELAY (activity-relay binary; default .build/release/activity-relay,
# built if missing), KEEP=1 keeps the work directory, PROFILE prefixes the relay's command (say
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

# 10,000 subscribers are 10,000 descriptors in the generator and in each server.
NEEDED=$((IDLE + 1000))
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt "$NEEDED" ]; then
    echo "stream-bench: IDLE=$IDLE needs $NEEDED file descriptors; the hard limit is $(ulimit -Hn)" >&2
    exit 1
fi

NAME=stream-bench
. "$HERE/lib.sh"

# --- the relay --------------------------------------------------------------------------------
RELAY_PORT=$(free_port)
cat > "$WORK/relay.json" <<JSON
{
  "threads": $THREADS,
  "logLevel": "warning",
  "http": { "maxConnections": $((IDLE + 2000)), "maxConnectionsPerAddress": $((IDLE + 2000)), "idleTimeout": 7200 }
}
JSON
${PROFILE:-} "$RELAY" serve --config "$WORK/relay.json" --data "$DATA" --listen "127.0.0.1:$RELAY_PORT" 2>"$WORK/relay.log" &
RELAY_PID=$!
wait_for "https://localhost:$RELAY_PORT/healthz" "$DATA/tls-cert.pem" 200
KEY=$(cat "$DATA/admin-key")

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

bench() { # LABEL ARGS... -> the run's JSON line; its full report in WORK/LABEL.txt
    local out
    if ! out=$("$BENCH" "${@:2}" --cacert "$DATA/tls-cert.pem" 2>&1); then
        echo "stream-bench: $1 failed:" >&2
        echo "$out" >&2
        return 1
    fi
    echo "$out" > "$WORK/$1.txt"
    grep -v '^{' <<<"$out" | sed "s/^/  [$1] /" >&2
    tail -n 1 <<<"$out"
}

# --- 1. memory per idle subscriber (fresh servers) --------------------------------------------
RELAY_IDLE=$(bench relay-idle idle --target relay --port "$RELAY_PORT" --key "$KEY" --subscribers "$IDLE" --pids "$RELAY_PID")
NCHAN_IDLE=$(bench nchan-idle idle --target nchan --port "$NGINX_PORT" --subscribers "$IDLE" --pids "$NGINX_PIDS")
sleep 2

# --- 2 and 3. latency and deliveries per second -----------------------------------------------
FANOUT_ARGS=(--subscribers "$FANOUT" --latency-pushes "$LATENCY" --interval "$INTERVAL" --burst "$BURST"
    --publishers "$PUBLISHERS" --readers "$READERS")
RELAY_FAN=$(bench relay-fanout fanout --target relay --port "$RELAY_PORT" --key "$KEY" --pad "$PAD" "${FANOUT_ARGS[@]}")
# nchan carries the pushed body as is, the relay the whole activity: pad nchan's messages to the
# size of the relay's events so both move the same bytes.
RELAY_BYTES=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["eventBytes"])' "$RELAY_FAN")
NCHAN_PAD=$((RELAY_BYTES > PAD + 22 ? RELAY_BYTES - 22 : PAD))
NCHAN_FAN=$(bench nchan-fanout fanout --target nchan --port "$NGINX_PORT" --pad "$NCHAN_PAD" "${FANOUT_ARGS[@]}")

python3 - "$RELAY_IDLE" "$NCHAN_IDLE" "$RELAY_FAN" "$NCHAN_FAN" "$THREADS" "$(nproc)" <<'PY'
import json, sys
ri, ni, rf, nf = (json.loads(a) for a in sys.argv[1:5])
threads, cores = sys.argv[5], sys.argv[6]
print(f"stream fan-out over TLS on loopback: {threads} relay threads / nginx workers, {cores} cores")
print(f"{'':34}{'activity-relay':>16}{'nchan':>16}")
def row(name, a, b, unit=""):
    print(f"{name:34}{a:>16}{b:>16} {unit}")
row(f"latency p50 (1 push -> {rf['subscribers']})", rf["p50ms"], nf["p50ms"], "ms")
row(f"latency p99 (1 push -> {rf['subscribers']})", rf["p99ms"], nf["p99ms"], "ms")
row("latency deliveries complete", f"{rf['latencyDeliveries']}/{rf['latencyExpected']}", f"{nf['latencyDeliveries']}/{nf['latencyExpected']}")
row("deliveries/s (burst)", int(rf["deliveriesPerSecond"]), int(nf["deliveriesPerSecond"]))
row("burst deliveries complete", f"{rf['burstDeliveries']}/{rf['burstExpected']}", f"{nf['burstDeliveries']}/{nf['burstExpected']}")
row("event data bytes", rf["eventBytes"], nf["eventBytes"])
row(f"memory per idle subscriber ({ri['subscribers']})", int(ri["bytesPerSubscriber"]), int(ni["bytesPerSubscriber"]), "bytes")
goals = [
    ("relay p99 < 50 ms", rf["p99ms"] < 50),
    ("relay deliveries/s >= nchan's", rf["deliveriesPerSecond"] >= nf["deliveriesPerSecond"]),
    ("relay memory per idle subscriber <= nchan's", ri["bytesPerSubscriber"] <= ni["bytesPerSubscriber"]),
]
for name, met in goals:
    print(f"goal: {name}: {'met' if met else 'NOT met'}")
PY
