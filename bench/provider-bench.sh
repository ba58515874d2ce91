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
#   BASELINE_RELAY=/tmp/old/activity-relay NGINX=0 ROUNDS=5 bench/provider-bench.sh   # two builds
#
# Environment: N, C, M, COUNT, SHUFFLE, THREADS (relay threads = nginx workers), ROUNDS (relay and nginx
# runs alternated; the medians are reported), RELAY (path of the activity-relay binary; default
# .build/release/activity-relay, built if missing), KEEP=1 keeps the work directory (logs,
# config), NGINX=0 measures the relay alone, BASELINE_RELAY (path of another activity-relay binary:
# it runs beside the current one, each round loads the baseline then the current build, and the
# summary gives both medians and current/baseline per figure), PROFILE prefixes the relay's
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

# --- the relays -------------------------------------------------------------------------------
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
TIMESTAMP=$(( $(date +%s) + 60 ))
printf '{"aps":{"event":"update","timestamp":%s,"content-state":{"progress":0.5,"status":"on its way","eta":"12:40"}}}' \
    "$TIMESTAMP" > "$WORK/payload.json"

# Per relay build (LABEL `relay`, the current build, and `baseline` with BASELINE_RELAY): its
# port, log, push URIs and provider JWT.
declare -A PORT LOGFILE URIS JWT
start_relay() { # LABEL BINARY DATA [PREFIX...]: serves on a free port with a fresh data directory and COUNT activities
    local label=$1 binary=$2 data=$3 pid
    shift 3
    PORT[$label]=$(free_port)
    LOGFILE[$label]=$WORK/$label.log
    "$@" "$binary" serve --config "$WORK/relay.json" --data "$data" --listen "127.0.0.1:${PORT[$label]}" \
        2>"${LOGFILE[$label]}" &
    pid=$!
    if [ "$label" = relay ]; then RELAY_PID=$pid; else BASELINE_PID=$pid; fi
    wait_for "https://localhost:${PORT[$label]}/healthz" "$data/tls-cert.pem"
    URIS[$label]=$WORK/$label-uris.txt
    python3 "$HERE/provider/make_activities.py" --base "https://127.0.0.1:${PORT[$label]}" --cafile "$data/tls-cert.pem" \
        --admin-key="$(cat "$data/admin-key")" --count "$COUNT" --bundle "$BUNDLE" --out "${URIS[$label]}" >&2
    # SHUFFLE=1: the tokens in a random order, as pushes from a real backend arrive, rather than in
    # the order the activities were created (nginx gets the current relay's order).
    if [ "${SHUFFLE:-0}" = 1 ]; then shuf "${URIS[$label]}" -o "${URIS[$label]}"; fi
    JWT[$label]=$("$binary" token --data "$data")
}

LABELS=(relay)
if [ -n "${BASELINE_RELAY:-}" ]; then
    [ -x "$BASELINE_RELAY" ] || { echo "provider-bench: BASELINE_RELAY $BASELINE_RELAY is not executable" >&2; exit 1; }
    start_relay baseline "$BASELINE_RELAY" "$WORK/baseline-data"
    LABELS=(baseline relay)
fi
# PROFILE is word-split on purpose: it is a command prefix.
# shellcheck disable=SC2086
start_relay relay "$RELAY" "$DATA" ${PROFILE:-}

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
    sed "s|https://127.0.0.1:${PORT[relay]}|https://127.0.0.1:$NGINX_PORT|" "${URIS[relay]}" > "$WORK/nginx-uris.txt"
    URIS[nginx]=$WORK/nginx-uris.txt
    JWT[nginx]=${JWT[relay]}
fi

# --- load -------------------------------------------------------------------------------------
cpu_idle_ticks() { awk '/^cpu / { print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }
run() { # LABEL SERVER REQUESTS -> prints req/s, fails unless every request got a 2xx (SERVER: relay,
    # baseline or nginx); the machine's idle share during the run (idle + I/O wait, all cores) goes
    # to $WORK/idle-LABEL.txt
    local out before after
    before=$(cpu_idle_ticks)
    out=$(${H2TIME:-} h2load -n "$3" -c "$C" -m "$M" -i "${URIS[$2]}" -d "$WORK/payload.json" \
        -H "apns-topic: $BUNDLE.push-type.liveactivity" -H "apns-push-type: liveactivity" \
        -H "apns-priority: 10" -H "authorization: bearer ${JWT[$2]}" 2>&1)
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

for label in "${LABELS[@]}"; do run "$label-warmup" "$label" "$WARMUP" >/dev/null; done
if [ "${NGINX:-1}" = 1 ]; then run nginx-warmup nginx "$WARMUP" >/dev/null; fi
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
# ROUNDS alternated runs (the baseline if any, the relay, then nginx): this machine's speed drifts
# between runs, so each round's ratio compares neighbours, and the medians are what the script
# reports. CPU and I/O are counted per relay build over its own runs only.
declare -A RATES CPU TICKS PIDOF
PIDOF[relay]=$RELAY_PID
PIDOF[baseline]=$BASELINE_PID
NGINX_RATES=()
for label in "${LABELS[@]}"; do
    RATES[$label]=""
    CPU[$label]=""
    TICKS[$label]=0
    : > "$WORK/threads-used-$label.txt"
    : > "$WORK/io-used-$label.txt"
done
measure() { # LABEL ROUND: one run against relay build LABEL, its rate and CPU noted
    local label=$1 pid=${PIDOF[$1]} before used
    before=$(cpu_ticks "$pid")
    thread_ticks "$pid" > "$WORK/threads-before.txt"
    thread_io "$pid" > "$WORK/io-before.txt"
    RATES[$label]+=" $(run "$label-$2" "$label" "$N")"
    used=$(($(cpu_ticks "$pid") - before))
    TICKS[$label]=$((TICKS[$label] + used))
    CPU[$label]+=" $(awk -v t="$used" -v hz="$(getconf CLK_TCK)" -v n="$N" 'BEGIN { printf "%.1f", t / hz / n * 1e6 }')"
    thread_ticks "$pid" | awk 'NR == FNR { t[$1] = $3; k[$1] = $4; next } { print $1, $2, $3 - t[$1], $4 - k[$1] }' \
        "$WORK/threads-before.txt" - >> "$WORK/threads-used-$label.txt"
    thread_io "$pid" | awk 'NR == FNR { c[$1] = $3; b[$1] = $4; next } { print $1, $2, $3 - c[$1], $4 - b[$1] }' \
        "$WORK/io-before.txt" - >> "$WORK/io-used-$label.txt"
}
for round in $(seq 1 "$ROUNDS"); do
    for label in "${LABELS[@]}"; do measure "$label" "$round"; done
    if [ "${NGINX:-1}" = 1 ]; then NGINX_RATES+=("$(run "nginx-$round" nginx "$N")"); fi
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
read -ra RELAY_RATES <<<"${RATES[relay]}"
RELAY_RATE=$(median "${RELAY_RATES[@]}")

# Every push each relay answered was logged after its commit, with its status.
EXPECTED=$((WARMUP + N * ROUNDS))
for label in "${LABELS[@]}"; do
    ACCEPTED=$(grep -c ' INFO push .* status=200 ' "${LOGFILE[$label]}" || true)
    if [ "$ACCEPTED" -ne "$EXPECTED" ]; then
        echo "provider-bench: $label logged $ACCEPTED accepted pushes, expected $EXPECTED" >&2
        exit 1
    fi
done
LAST=$(curl -s --cacert "$DATA/tls-cert.pem" -H "authorization: Bearer $(cat "$DATA/admin-key")" \
    "https://localhost:${PORT[relay]}/v1/pushes?limit=1")
grep -q '"status":200' <<<"$LAST" || { echo "provider-bench: push log: $LAST" >&2; exit 1; }

echo "pushes: $N per round x $ROUNDS rounds to $COUNT tokens over $C connections x $M streams, $THREADS threads/workers, $(nproc) cores"
echo "activity-relay: $RELAY_RATE req/s, median of ${RELAY_RATES[*]} (every push 200 after its commit; outcome $(grep -oE '"outcome":"[a-z]+"' <<<"$LAST"))"
cpu_report() { # LABEL PREFIX: the build's CPU per push over all its runs, by thread, and the store's writes
    awk -v t="${TICKS[$1]}" -v hz="$(getconf CLK_TCK)" -v n=$((N * ROUNDS)) -v p="$2" \
        'BEGIN { printf "%s CPU per push: %.0f us\n", p, t / hz / n * 1e6 }'
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
    ' "$WORK/threads-used-$1.txt"
    # What the store's threads wrote, per push: the log's frames (store-writer) and the checkpoints'
    # copies into the database file (store-checkpt, and the writer when it copies the rest itself).
    awk -v n=$((N * ROUNDS)) '
        $2 ~ /^store-/ { calls += $3; bytes += $4 }
        END { printf "  store: %.2f write calls and %.0f bytes written per push\n", calls / n, bytes / n }
    ' "$WORK/io-used-$1.txt"
}
store_stats() { # LABEL: how many batches (pushes, mostly) shared a commit, from the counts the relay logs when it stops
    # (A build from before the sync thread logs no syncs or checkpoints: then only the commits.)
    local stats
    stats=$(grep -oE 'store.stats commits=[0-9]+ batches=[0-9]+( syncs=[0-9]+ checkpoints=[0-9]+)?' "${LOGFILE[$1]}" | tail -1 || true)
    awk -F'[= ]' '
        NF >= 9 { printf "  store: %d batches in %d commits (%.1f per commit), %d syncs (%.1f batches each), %d checkpoint passes (setup and warm-up included)\n", $5, $3, $5 / $3, $7, $5 / $7, $9; next }
        NF >= 5 { printf "  store: %d batches in %d commits (%.1f per commit) (setup and warm-up included)\n", $5, $3, $5 / $3 }
    ' <<<"$stats"
}
idle_of() { for round in $(seq 1 "$ROUNDS"); do cat "$WORK/idle-$1-$round.txt"; done | tr '\n' ' '; }
stop() { # PID: asks the relay to stop and waits, so that it logs its store counts
    kill -TERM "$1" 2>/dev/null && wait "$1" 2>/dev/null || true
}
cpu_report relay activity-relay
echo "  machine idle during the relay's runs (idle + I/O wait, % of all cores): $(idle_of relay)"
stop "$RELAY_PID"
RELAY_PID=""
store_stats relay
if [ -n "${BASELINE_RELAY:-}" ]; then
    read -ra BASELINE_RATES <<<"${RATES[baseline]}"
    echo "baseline ($BASELINE_RELAY): $(median "${BASELINE_RATES[@]}") req/s, median of ${BASELINE_RATES[*]}"
    cpu_report baseline baseline
    echo "  machine idle during the baseline's runs: $(idle_of baseline)"
    stop "$BASELINE_PID"
    BASELINE_PID=""
    store_stats baseline
    # Each figure: the medians of the two builds' rounds, current/baseline of the medians, and
    # each round's own ratio (neighbouring runs).
    compare() { # FIGURE CURRENT_VALUES BASELINE_VALUES
        local current baseline rounds=() i
        read -ra current <<<"$2"
        read -ra baseline <<<"$3"
        for i in "${!current[@]}"; do
            rounds+=("$(awk -v c="${current[$i]}" -v b="${baseline[$i]}" 'BEGIN { printf "%.3f", c / b }')")
        done
        awk -v f="$1" -v c="$(median "${current[@]}")" -v b="$(median "${baseline[@]}")" -v r="${rounds[*]}" \
            'BEGIN { printf "current/baseline %s: %s vs %s, ratio %.3f (rounds: %s)\n", f, c, b, c / b, r }'
    }
    compare "req/s (median)" "${RATES[relay]}" "${RATES[baseline]}"
    compare "CPU per push us (median of rounds)" "${CPU[relay]}" "${CPU[baseline]}"
fi
[ "${NGINX:-1}" = 1 ] || exit 0
echo "nginx return 200: $(median "${NGINX_RATES[@]}") req/s, median of ${NGINX_RATES[*]}"
echo "  machine idle during nginx's runs: $(idle_of nginx)"
RATIOS=()
for i in "${!RELAY_RATES[@]}"; do RATIOS+=("$(awk -v r="${RELAY_RATES[$i]}" -v n="${NGINX_RATES[$i]}" 'BEGIN { printf "%.2f", r / n }')"); done
echo "ratio relay/nginx: $(median "${RATIOS[@]}") (median of the rounds' ratios: ${RATIOS[*]})"
