#!/usr/bin/env bash
# Live Activity pushes per second through the provider API, against nginx on the same machine.
#
# Starts `activity-relay serve` (release build) on loopback with a fresh data directory, creates
# COUNT activities with update push tokens through the app API, then sends N pushes with h2load
# over HTTP/2 (C connections, M streams each, one valid provider JWT, the tokens in turn via a URI
# list). Every push must get a 200, which the relay sends only after the push is committed to its
# database (so each is durable and in the push log). Then the same load goes to Debian's nginx
# (TLS + HTTP/2, `return 200` on /3/device/, same certificate, same number of workers as relay
# threads), and the script prints both rates and their ratio.
#
#   bench/provider-bench.sh                  # N=100000 C=8 M=32 COUNT=1000 THREADS=2 ROUNDS=3
#   N=50000 C=16 M=64 bench/provider-bench.sh
#
# Environment: N, C, M, COUNT, SHUFFLE, THREADS (relay threads = nginx workers), ROUNDS (relay and nginx
# runs alternated; the medians are reported), RELAY (path of the activity-relay binary; default
# .build/release/activity-relay, built if missing), KEEP=1 keeps the work directory (logs,
# config), NGINX=0 measures the relay alone (A/B runs of two builds), PROFILE prefixes the relay's
# command (say `perf record -g -o /tmp/relay.perf --`), SYNC_EACH_COMMIT=true syncs the log before
# every 200 (the relay's `durability.syncEachCommit`; by default the log is synced every 0.1 s in the
# background, and a 200 follows the commit's write to the log, which survives kill -9).
# Needs h2load (nghttp2-client), nginx, python3, curl.
# Exit status: 0 when every push got a 200 from both servers, 1 otherwise.
set -euo pipefail

N=${N:-100000}
C=${C:-8}
M=${M:-32}
COUNT=${COUNT:-1000}
THREADS=${THREADS:-2}
WARMUP=${WARMUP:-2000}
ROUNDS=${ROUNDS:-3}
BUNDLE=com.example.bench
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
RELAY=${RELAY:-$ROOT/.build/release/activity-relay}

for tool in h2load nginx python3 curl; do
    command -v "$tool" >/dev/null || { echo "provider-bench: $tool is required" >&2; exit 1; }
done
if [ ! -x "$RELAY" ]; then
    echo "provider-bench: building $RELAY (swift build -c release)" >&2
    (cd "$ROOT" && swift build -c release --product activity-relay >&2)
fi

NAME=provider-bench
. "$HERE/lib.sh"

# --- the relay --------------------------------------------------------------------------------
RELAY_PORT=$(free_port)
cat > "$WORK/relay.json" <<JSON
{
  "threads": $THREADS,
  "logLevel": "info",
  "durability": { "syncEachCommit": ${SYNC_EACH_COMMIT:-false} },
  "rules": {
    "updateBudgetPerHour": 1000000,
    "tokenBurst": { "capacity": 1000000, "refillInterval": 1 }
  }
}
JSON
${PROFILE:-} "$RELAY" serve --config "$WORK/relay.json" --data "$DATA" --listen "127.0.0.1:$RELAY_PORT" 2>"$WORK/relay.log" &
RELAY_PID=$!
wait_for "https://localhost:$RELAY_PORT/healthz" "$DATA/tls-cert.pem"

python3 "$HERE/provider/make_activities.py" --base "https://127.0.0.1:$RELAY_PORT" --cafile "$DATA/tls-cert.pem" \
    --admin-key="$(cat "$DATA/admin-key")" --count "$COUNT" --bundle "$BUNDLE" --out "$WORK/relay-uris.txt" >&2
# SHUFFLE=1: the tokens in a random order (the same for both servers), as pushes from a real
# backend arrive, rather than in the order the activities were created.
if [ "${SHUFFLE:-0}" = 1 ]; then shuf "$WORK/relay-uris.txt" -o "$WORK/relay-uris.txt"; fi
JWT=$("$RELAY" token --data "$DATA")
TIMESTAMP=$(( $(date +%s) + 60 ))
printf '{"aps":{"event":"update","timestamp":%s,"content-state":{"progress":0.5,"status":"on its way","eta":"12:40"}}}' \
    "$TIMESTAMP" > "$WORK/payload.json"

# --- nginx ------------------------------------------------------------------------------------
if [ "${NGINX:-1}" = 1 ]; then
    NGINX_PORT=$(free_port)
    mkdir -p "$WORK"/nginx-{body,proxy,fastcgi,uwsgi,scgi}
    chmod 777 "$WORK"/nginx-*
    sed -e "s|@WORK@|$WORK|g" -e "s|@PORT@|$NGINX_PORT|g" -e "s|@CERT@|$DATA/tls-cert.pem|g" \
        -e "s|@KEY@|$DATA/tls-key.pem|g" -e "s|@WORKERS@|$THREADS|g" "$HERE/provider/nginx.conf.template" > "$WORK/nginx.conf"
    nginx -c "$WORK/nginx.conf" -p "$WORK" -g 'daemon off;' 2>"$WORK/nginx-stderr.log" &
    NGINX_PID=$!
    wait_for "https://localhost:$NGINX_PORT/" "$DATA/tls-cert.pem"
    sed "s|https://127.0.0.1:$RELAY_PORT|https://127.0.0.1:$NGINX_PORT|" "$WORK/relay-uris.txt" > "$WORK/nginx-uris.txt"
fi

# --- load -------------------------------------------------------------------------------------
cpu_idle_ticks() { awk '/^cpu / { print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }
run() { # LABEL URIS REQUESTS -> prints req/s, fails unless every request got a 2xx; the machine's
    # idle share during the run (idle + I/O wait, all cores) goes to $WORK/idle-LABEL.txt
    local out before after
    before=$(cpu_idle_ticks)
    out=$(${H2TIME:-} h2load -n "$3" -c "$C" -m "$M" -i "$2" -d "$WORK/payload.json" \
        -H "apns-topic: $BUNDLE.push-type.liveactivity" -H "apns-push-type: liveactivity" \
        -H "apns-priority: 10" -H "authorization: bearer $JWT" 2>&1)
    after=$(cpu_idle_ticks)
    echo "$before $after" | awk '{ printf "%.0f\n", ($3 - $1) / ($4 - $2) * 100 }' > "$WORK/idle-$1.txt"
    echo "$out" > "$WORK/h2load-$1.txt"
    if ! grep -q "status codes: $3 2xx" <<<"$out"; then
        echo "provider-bench: $1: not every request got a 2xx:" >&2
        grep -E '^(requests|status codes):' <<<"$out" >&2
        return 1
    fi
    grep -oE 'finished in [0-9.]+m?s, [0-9.]+ req/s' <<<"$out" | awk '{print $4}'
}

run relay-warmup "$WORK/relay-uris.txt" "$WARMUP" >/dev/null
[ "${NGINX:-1}" = 1 ] && run nginx-warmup "$WORK/nginx-uris.txt" "$WARMUP" >/dev/null
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
thread_ticks() { # one line per thread: TID NAME TICKS SYSTEM_TICKS (the name has no spaces: the relay names its threads)
    for stat in /proc/"$1"/task/*/stat; do
        sed -E 's/^([0-9]+) \(([^)]*)\) (.*)$/\1 \2 \3/' "$stat" | awk '{print $1, $2, $14 + $15, $15}'
    done 2>/dev/null
}
thread_io() { # one line per thread: TID NAME WRITE_CALLS BYTES_WRITTEN (syscw and wchar of /proc/PID/task/TID/io)
    for task in /proc/"$1"/task/*; do
        echo "${task##*/} $(cat "$task/comm") $(awk '/^syscw:/ { c = $2 } /^wchar:/ { b = $2 } END { print c, b }' "$task/io")"
    done 2>/dev/null
}
# ROUNDS alternated runs (relay, then nginx): this machine's speed drifts between runs, so each
# round's ratio compares neighbours, and the medians are what the script reports. CPU and I/O
# are counted over the relay's runs only.
RELAY_RATES=()
NGINX_RATES=()
RELAY_TICKS=0
: > "$WORK/threads-used.txt"
: > "$WORK/io-used.txt"
for round in $(seq 1 "$ROUNDS"); do
    before=$(cpu_ticks "$RELAY_PID")
    thread_ticks "$RELAY_PID" > "$WORK/threads-before.txt"
    thread_io "$RELAY_PID" > "$WORK/io-before.txt"
    RELAY_RATES+=("$(run "relay-$round" "$WORK/relay-uris.txt" "$N")")
    RELAY_TICKS=$((RELAY_TICKS + $(cpu_ticks "$RELAY_PID") - before))
    thread_ticks "$RELAY_PID" | awk 'NR == FNR { t[$1] = $3; k[$1] = $4; next } { print $1, $2, $3 - t[$1], $4 - k[$1] }' \
        "$WORK/threads-before.txt" - >> "$WORK/threads-used.txt"
    thread_io "$RELAY_PID" | awk 'NR == FNR { c[$1] = $3; b[$1] = $4; next } { print $1, $2, $3 - c[$1], $4 - b[$1] }' \
        "$WORK/io-before.txt" - >> "$WORK/io-used.txt"
    if [ "${NGINX:-1}" = 1 ]; then NGINX_RATES+=("$(run "nginx-$round" "$WORK/nginx-uris.txt" "$N")"); fi
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
RELAY_RATE=$(median "${RELAY_RATES[@]}")

# Every push the relay answered was logged after its commit, with its status.
ACCEPTED=$(grep -c ' INFO push .* status=200 ' "$WORK/relay.log" || true)
EXPECTED=$((WARMUP + N * ROUNDS))
if [ "$ACCEPTED" -ne "$EXPECTED" ]; then
    echo "provider-bench: the relay logged $ACCEPTED accepted pushes, expected $EXPECTED" >&2
    exit 1
fi
LAST=$(curl -s --cacert "$DATA/tls-cert.pem" -H "authorization: Bearer $(cat "$DATA/admin-key")" \
    "https://localhost:$RELAY_PORT/v1/pushes?limit=1")
grep -q '"status":200' <<<"$LAST" || { echo "provider-bench: push log: $LAST" >&2; exit 1; }

echo "pushes: $N per round x $ROUNDS rounds to $COUNT tokens over $C connections x $M streams, $THREADS threads/workers, $(nproc) cores"
echo "activity-relay: $RELAY_RATE req/s, median of ${RELAY_RATES[*]} (every push 200 after its commit; outcome $(grep -oE '"outcome":"[a-z]+"' <<<"$LAST"))"
awk -v t="$RELAY_TICKS" -v hz="$(getconf CLK_TCK)" -v n=$((N * ROUNDS)) \
    'BEGIN { printf "activity-relay CPU per push: %.0f us\n", t / hz / n * 1e6 }'
# The same by thread: the event loops (relay-loop-N) and the store's threads (store-writer runs
# the statements and commits, store-sync syncs the log and hands the answers back, store-checkpt
# copies the log into the database file).
awk -v hz="$(getconf CLK_TCK)" -v n=$((N * ROUNDS)) '
    { used[$2] += $3; kernel[$2] += $4 }
    END {
        line = "  by thread (of which in the kernel):"
        for (name in used) if (used[name] > 0) line = line sprintf(" %s %.0f us (%.0f)", name, used[name] / hz / n * 1e6, kernel[name] / hz / n * 1e6)
        print line
    }
' "$WORK/threads-used.txt"
# What the store's threads wrote, per push: the log's frames (store-writer) and the checkpoints'
# copies into the database file (store-checkpt, and the writer when it copies the rest itself).
awk -v n=$((N * ROUNDS)) '
    $2 ~ /^store-/ { calls += $3; bytes += $4 }
    END { printf "  store: %.2f write calls and %.0f bytes written per push\n", calls / n, bytes / n }
' "$WORK/io-used.txt"
idle_of() { for round in $(seq 1 "$ROUNDS"); do cat "$WORK/idle-$1-$round.txt"; done | tr '\n' ' '; }
echo "  machine idle during the relay's runs (idle + I/O wait, % of all cores): $(idle_of relay)"
# How many batches (pushes, mostly) shared a commit, from the counts the relay logs when it stops.
kill -TERM "$RELAY_PID" 2>/dev/null && wait "$RELAY_PID" 2>/dev/null || true
RELAY_PID=""
# (A build from before the sync thread logs no syncs or checkpoints: then only the commits.)
STATS=$(grep -oE 'store.stats commits=[0-9]+ batches=[0-9]+( syncs=[0-9]+ checkpoints=[0-9]+)?' "$WORK/relay.log" | tail -1 || true)
awk -F'[= ]' '
    NF >= 9 { printf "  store: %d batches in %d commits (%.1f per commit), %d syncs (%.1f batches each), %d checkpoint passes (setup and warm-up included)\n", $5, $3, $5 / $3, $7, $5 / $7, $9; next }
    NF >= 5 { printf "  store: %d batches in %d commits (%.1f per commit) (setup and warm-up included)\n", $5, $3, $5 / $3 }
' <<<"$STATS"
[ "${NGINX:-1}" = 1 ] || exit 0
echo "nginx return 200: $(median "${NGINX_RATES[@]}") req/s, median of ${NGINX_RATES[*]}"
echo "  machine idle during nginx's runs: $(idle_of nginx)"
RATIOS=()
for i in "${!RELAY_RATES[@]}"; do RATIOS+=("$(awk -v r="${RELAY_RATES[$i]}" -v n="${NGINX_RATES[$i]}" 'BEGIN { printf "%.2f", r / n }')"); done
echo "ratio relay/nginx: $(median "${RATIOS[@]}") (median of the rounds' ratios: ${RATIOS[*]})"
