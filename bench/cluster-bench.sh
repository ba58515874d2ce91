#!/usr/bin/env bash
# Cluster mode: provider pushes per second through 1, 2 and 3 relay nodes on one Redis Cluster,
# with what each push costs: relay CPU, Redis commands, Redis bytes and Redis CPU; the same load
# through one relay in SQLite mode for the relay CPU per push to compare; and fan-out (bench-stream:
# FANOUT subscribers of one activity dealt over the first k nodes, pushes through node 1): latency
# p50/p99 and deliveries per second, beside the SQLite relay.
#
# Starts a Redis Cluster from Debian's redis-server (3 masters, 3 replicas, loopback), NODES relay
# nodes in cluster mode sharing its store and their keys, COUNT activities on DEVICES devices, then
# for each node count k sends N pushes with h2load split over the first k nodes (one h2load per
# node, C/k connections each, all at once). Every push must be answered 200 (after its commit
# script, and with REPLICAS > 0 after WAIT).
#
#   bench/cluster-bench.sh                      # N=30000 C=8 M=32 COUNT=1000 DEVICES=1000 THREADS=2 ROUNDS=3
#   REPLICAS=1 bench/cluster-bench.sh           # each commit waits for a replica
#
# Environment: N, C, M, COUNT, DEVICES, THREADS (per relay node), FANOUT (1000), LATENCY (200 pushes),
# BURST (200 pushes), FLEET_STREAM (store.redisCluster.fleetStream, true), INGEST_ROUNDS (default ROUNDS; 0 skips ingest), ROUNDS (each node count measured
# ROUNDS times, alternated with the SQLite relay; medians reported), REPLICAS (durability.replicas),
# RELAY (binary; default .build/release/activity-relay), KEEP=1 keeps the work directory.
# Needs h2load, redis-server, redis-cli, python3, curl. Everything runs on this one machine, so the
# rates show per-push costs, not a cluster's capacity: the README's sizing model scales the costs.
set -euo pipefail

N=${N:-30000}
C=${C:-8}
M=${M:-32}
COUNT=${COUNT:-1000}
DEVICES=${DEVICES:-1000}
THREADS=${THREADS:-2}
ROUNDS=${ROUNDS:-3}
REPLICAS=${REPLICAS:-0}
NODES=3
WARMUP=${WARMUP:-2000}
BUNDLE=com.example.bench
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
RELAY=${RELAY:-$ROOT/.build/release/activity-relay}

FANOUT=${FANOUT:-1000}
LATENCY=${LATENCY:-200}
BURST=${BURST:-200}
BENCH=$HERE/.build/release/bench-stream
for tool in h2load redis-server redis-cli python3 curl; do
    command -v "$tool" >/dev/null || { echo "cluster-bench: $tool is required" >&2; exit 1; }
done
if [ ! -x "$RELAY" ]; then
    echo "cluster-bench: building $RELAY (swift build -c release)" >&2
    (cd "$ROOT" && swift build -c release --product activity-relay >&2)
fi

if [ ! -x "$BENCH" ]; then
    echo "cluster-bench: building bench-stream (swift build -c release in bench/)" >&2
    (cd "$HERE" && swift build -c release --product bench-stream >&2)
fi

NAME=cluster-bench
. "$HERE/lib.sh"
EXTRA_PIDS=()
stop_extra() { for pid in "${EXTRA_PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done; }
trap 'stop_extra; cleanup' EXIT

# --- Redis Cluster ------------------------------------------------------------------------------
REDIS_PORTS=()
redis_port() { # a free port with room for its cluster bus port (port + 10000)
    local port
    while :; do port=$(free_port); [ "$port" -le 55535 ] && { echo "$port"; return; }; done
}
for index in 1 2 3 4 5 6; do
    port=$(redis_port)
    REDIS_PORTS+=("$port")
    mkdir -p "$WORK/redis-$port"
    cat > "$WORK/redis-$port/redis.conf" <<CONF
port $port
bind 127.0.0.1
protected-mode no
dir $WORK/redis-$port
logfile $WORK/redis-$port/redis.log
cluster-enabled yes
cluster-config-file nodes.conf
cluster-node-timeout 2000
appendonly no
save ""
CONF
    redis-server "$WORK/redis-$port/redis.conf" &
    EXTRA_PIDS+=($!)
done
for port in "${REDIS_PORTS[@]}"; do
    for _ in $(seq 1 100); do redis-cli -p "$port" PING >/dev/null 2>&1 && break; sleep 0.1; done
done
SEEDS=$(printf '127.0.0.1:%s ' "${REDIS_PORTS[@]}")
# shellcheck disable=SC2086
redis-cli --cluster create $SEEDS --cluster-replicas 1 --cluster-yes >"$WORK/cluster-create.log" 2>&1
for port in "${REDIS_PORTS[@]}"; do
    for _ in $(seq 1 200); do
        redis-cli -p "$port" CLUSTER INFO | grep -q 'cluster_state:ok' && break
        sleep 0.1
    done
done
for port in "${REDIS_PORTS[@]}"; do
    # Replicas in sync before the load: a full sync during it would be measured as push cost.
    if redis-cli -p "$port" ROLE | head -1 | grep -q master; then
        for _ in $(seq 1 200); do
            redis-cli -p "$port" INFO replication | grep -q 'state=online' && break
            sleep 0.1
        done
    fi
done
SEED_LIST=$(printf '"127.0.0.1:%s",' "${REDIS_PORTS[@]}")
SEED_LIST=[${SEED_LIST%,}]

# --- relays -------------------------------------------------------------------------------------
relay_config() { # STORE_JSON
    cat <<JSON
{
  "threads": $THREADS,
  "logLevel": "warning",
  "durability": { "replicas": $REPLICAS },
  "http": { "maxConnections": $((FANOUT + 2000)), "maxConnectionsPerAddress": $((FANOUT + 2000)) },
  "rules": { "updateBudgetPerHour": 1000000, "tokenBurst": { "capacity": 1000000, "refillInterval": 1 } }$1
}
JSON
}
relay_config ", \"store\": {\"redisCluster\": {\"seeds\": $SEED_LIST, \"fleetStream\": ${FLEET_STREAM:-true}}}" > "$WORK/cluster.json"
relay_config "" > "$WORK/sqlite.json"

NODE_PORTS=()
NODE_PIDS=()
for node in $(seq 1 "$NODES"); do
    dir=$WORK/node-$node
    mkdir -p "$dir"
    if [ "$node" -gt 1 ]; then
        cp "$WORK/node-1"/{tls-cert.pem,tls-key.pem,admin-key,dev-provider-key.p8} "$dir/"
    fi
    port=$(free_port)
    "$RELAY" serve --config "$WORK/cluster.json" --data "$dir" --listen "127.0.0.1:$port" 2>"$dir/relay.log" &
    NODE_PIDS+=($!)
    EXTRA_PIDS+=($!)
    NODE_PORTS+=("$port")
    wait_for "https://localhost:$port/healthz" "$WORK/node-1/tls-cert.pem"
done
CA=$WORK/node-1/tls-cert.pem
python3 "$HERE/provider/make_activities.py" --base "https://127.0.0.1:${NODE_PORTS[0]}" --cafile "$CA" \
    --admin-key="$(cat "$WORK/node-1/admin-key")" --count "$COUNT" --devices "$DEVICES" --bundle "$BUNDLE" \
    --out "$WORK/uris-1.txt" >&2
for node in $(seq 2 "$NODES"); do
    sed "s|https://127.0.0.1:${NODE_PORTS[0]}|https://127.0.0.1:${NODE_PORTS[$((node - 1))]}|" "$WORK/uris-1.txt" \
        > "$WORK/uris-$node.txt"
done
JWT=$("$RELAY" token --data "$WORK/node-1")

SQLITE_PORT=$(free_port)
"$RELAY" serve --config "$WORK/sqlite.json" --data "$DATA" --listen "127.0.0.1:$SQLITE_PORT" 2>"$WORK/sqlite.log" &
RELAY_PID=$!
wait_for "https://localhost:$SQLITE_PORT/healthz" "$DATA/tls-cert.pem"
python3 "$HERE/provider/make_activities.py" --base "https://127.0.0.1:$SQLITE_PORT" --cafile "$DATA/tls-cert.pem" \
    --admin-key="$(cat "$DATA/admin-key")" --count "$COUNT" --devices "$DEVICES" --bundle "$BUNDLE" \
    --out "$WORK/uris-sqlite.txt" >&2
SQLITE_JWT=$("$RELAY" token --data "$DATA")

TIMESTAMP=$(($(date +%s) + 60))
printf '{"aps":{"event":"update","timestamp":%s,"content-state":{"progress":0.5,"status":"on its way"}}}' \
    "$TIMESTAMP" > "$WORK/payload.json"

# --- measuring ----------------------------------------------------------------------------------
process_ticks() { local sum=0; for pid in "$@"; do sum=$((sum + $(awk '{print $14 + $15}' "/proc/$pid/stat"))); done; echo "$sum"; }
# The masters, and the one that holds the fleet feed's slot ({relay}): the others answer MOVED.
MASTER_PORTS=()
FEED_PORT=""
for port in "${REDIS_PORTS[@]}"; do
    [ "$(redis-cli -p "$port" ROLE | head -1)" = master ] || continue
    MASTER_PORTS+=("$port")
    redis-cli -p "$port" EXISTS '{relay}:feedseq' | grep -q MOVED || FEED_PORT=$port
done
cpu_seconds() { redis-cli -p "$1" INFO cpu | tr -d '\r' | awk -F: '$1 ~ /^used_cpu_(sys|user)$/ { s += $2 } END { printf "%.3f", s }'; }
redis_totals() { # commands, bytes in+out, CPU seconds (all nodes), CPU seconds of the feed's master, mean of the other masters'
    local feed others=0 count=0
    for port in "${MASTER_PORTS[@]}"; do
        if [ "$port" = "$FEED_PORT" ]; then feed=$(cpu_seconds "$port"); else
            others=$(awk -v a="$others" -v b="$(cpu_seconds "$port")" 'BEGIN { print a + b }'); count=$((count + 1)); fi
    done
    for port in "${REDIS_PORTS[@]}"; do
        redis-cli -p "$port" INFO all | tr -d '\r'
    done | awk -F: -v feed="$feed" -v others="$others" -v count="$count" '
        $1 == "total_commands_processed" { c += $2 }
        $1 == "total_net_input_bytes" || $1 == "total_net_output_bytes" { b += $2 }
        $1 == "used_cpu_sys" || $1 == "used_cpu_user" { s += $2 }
        END { printf "%.0f %.0f %.3f %.3f %.3f\n", c, b, s, feed, others / count }'
}
h2() { # URIS REQUESTS CONNECTIONS JWT OUT
    h2load -n "$2" -c "$3" -m "$M" -i "$1" -d "$WORK/payload.json" \
        -H "apns-topic: $BUNDLE.push-type.liveactivity" -H "apns-push-type: liveactivity" \
        -H "apns-priority: 10" -H "authorization: bearer $4" > "$5" 2>&1
}
check() { # OUT REQUESTS
    grep -q "status codes: $2 2xx" "$1" || {
        echo "cluster-bench: not every push got a 2xx:" >&2
        grep -E '^(requests|status codes):' "$1" >&2
        exit 1
    }
}
run_cluster() { # NODES LABEL -> prints "rate cpu_us commands bytes redis_cpu_us feed_us" for N pushes over NODES nodes
    local k=$1 per=$((N / $1)) conns=$(($C / $1)) start end before after rb ra pids=()
    [ "$conns" -lt 1 ] && conns=1
    pids=("${NODE_PIDS[@]:0:$k}")
    before=$(process_ticks "${pids[@]}")
    rb=$(redis_totals)
    start=$(date +%s.%N)
    local jobs=()
    for node in $(seq 1 "$k"); do
        h2 "$WORK/uris-$node.txt" "$per" "$conns" "$JWT" "$WORK/h2-$2-$node.txt" &
        jobs+=($!)
    done
    for job in "${jobs[@]}"; do wait "$job"; done
    end=$(date +%s.%N)
    for node in $(seq 1 "$k"); do check "$WORK/h2-$2-$node.txt" "$per"; done
    after=$(process_ticks "${pids[@]}")
    ra=$(redis_totals)
    awk -v s="$start" -v e="$end" -v n=$((per * k)) -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" \
        -v rb="$rb" -v ra="$ra" 'BEGIN {
            split(rb, b, " "); split(ra, a, " ")
            printf "%.0f %.1f %.2f %.0f %.1f %.1f\n", n / (e - s), t / hz / n * 1e6, (a[1] - b[1]) / n, (a[2] - b[2]) / n,
                (a[3] - b[3]) / n * 1e6, ((a[4] - b[4]) - (a[5] - b[5])) / n * 1e6 }'
}
run_sqlite() { # LABEL -> prints "rate cpu_us"
    local before after start end
    before=$(process_ticks "$RELAY_PID")
    start=$(date +%s.%N)
    h2 "$WORK/uris-sqlite.txt" "$N" "$C" "$SQLITE_JWT" "$WORK/h2-$1.txt"
    end=$(date +%s.%N)
    check "$WORK/h2-$1.txt" "$N"
    after=$(process_ticks "$RELAY_PID")
    awk -v s="$start" -v e="$end" -v n="$N" -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" \
        'BEGIN { printf "%.0f %.1f\n", n / (e - s), t / hz / n * 1e6 }'
}

h2 "$WORK/uris-1.txt" "$WARMUP" "$C" "$JWT" "$WORK/h2-warmup.txt"
h2 "$WORK/uris-sqlite.txt" "$WARMUP" "$C" "$SQLITE_JWT" "$WORK/h2-warmup-sqlite.txt"
declare -A RESULTS
for round in $(seq 1 "${INGEST_ROUNDS:-$ROUNDS}"); do
    RESULTS[sqlite]+="$(run_sqlite "sqlite-$round");"
    for k in $(seq 1 "$NODES"); do
        RESULTS[$k]+="$(run_cluster "$k" "$k-$round");"
        echo "cluster-bench: round $round, $k node(s) done" >&2
    done
done

median_of() { # FIELD "r1;r2;..." -> the median of that field
    tr ';' '\n' <<<"$2" | awk -v f="$1" 'NF { print $f }' | sort -g |
        awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
if [ "${INGEST_ROUNDS:-$ROUNDS}" -gt 0 ]; then
    echo "pushes: $N per run x ${INGEST_ROUNDS:-$ROUNDS} rounds to $COUNT tokens on $DEVICES devices over $C connections x $M streams;"
    echo "relay nodes: $THREADS threads each; Redis Cluster 3 masters + 3 replicas; durability.replicas $REPLICAS; $(nproc) cores"
    echo "feed master: the extra CPU per push of the master holding {relay} (the fleet feed) over the other masters' mean"
    printf '| store | relay nodes | pushes/s | relay CPU µs/push | Redis commands/push | Redis bytes/push | Redis CPU µs/push | feed master µs/push |\n'
    printf '|---|---|---|---|---|---|---|---|\n'
    printf '| SQLite | 1 | %s | %s | – | – | – | – |\n' "$(median_of 1 "${RESULTS[sqlite]}")" "$(median_of 2 "${RESULTS[sqlite]}")"
    for k in $(seq 1 "$NODES"); do
        printf '| Redis Cluster | %s | %s | %s | %s | %s | %s | %s |\n' "$k" "$(median_of 1 "${RESULTS[$k]}")" \
            "$(median_of 2 "${RESULTS[$k]}")" "$(median_of 3 "${RESULTS[$k]}")" "$(median_of 4 "${RESULTS[$k]}")" \
            "$(median_of 5 "${RESULTS[$k]}")" "$(median_of 6 "${RESULTS[$k]}")"
    done
fi

# --- fan-out ----------------------------------------------------------------------------------
ADMIN=$(cat "$WORK/node-1/admin-key")
fanout() { # LABEL PORT CACERT KEY [SUBSCRIBER_PORTS] -> the run's JSON line
    local ports=()
    [ -n "${5:-}" ] && ports=(--subscriber-ports "$5")
    "$BENCH" fanout --target relay --port "$2" --cacert "$3" --key "$4" --subscribers "$FANOUT" \
        --latency-pushes "$LATENCY" --burst "$BURST" "${ports[@]}" > "$WORK/fanout-$1.txt" 2>&1 || {
        echo "cluster-bench: fan-out $1 failed:" >&2
        cat "$WORK/fanout-$1.txt" >&2
        exit 1
    }
    grep '^{' "$WORK/fanout-$1.txt"
}
for round in $(seq 1 "$ROUNDS"); do
    fanout "sqlite-$round" "$SQLITE_PORT" "$DATA/tls-cert.pem" "$(cat "$DATA/admin-key")" >> "$WORK/fanout-sqlite.json"
    for k in $(seq 1 "$NODES"); do
        ports=$(IFS=,; echo "${NODE_PORTS[*]:0:$k}")
        fanout "$k-$round" "${NODE_PORTS[0]}" "$CA" "$ADMIN" "$ports" >> "$WORK/fanout-$k.json"
        echo "cluster-bench: fan-out round $round, $k node(s) done" >&2
    done
done
python3 - "$WORK" "$NODES" "$FANOUT" <<'PY'
import json, os, statistics, sys
work, nodes, fanout = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def med(name, key):
    with open(os.path.join(work, "fanout-%s.json" % name)) as f:
        return statistics.median(json.loads(line)[key] for line in f if line.strip())
print()
print("fan-out: %s subscribers of one activity, dealt over the nodes; pushes through node 1 (app API)" % fanout)
print("| store | relay nodes | latency p50 ms | latency p99 ms | deliveries/s (burst) |")
print("|---|---|---|---|---|")
print("| SQLite | 1 | %.2f | %.2f | %d |" % (med("sqlite", "p50ms"), med("sqlite", "p99ms"), med("sqlite", "deliveriesPerSecond")))
for k in range(1, nodes + 1):
    name = str(k)
    print("| Redis Cluster | %d | %.2f | %.2f | %d |" % (k, med(name, "p50ms"), med(name, "p99ms"), med(name, "deliveriesPerSecond")))
PY
