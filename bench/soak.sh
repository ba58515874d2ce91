#!/usr/bin/env bash
# Soak: MINUTES (30) of steady provider pushes at RATE (300/s) into `activity-relay serve`, with
# SUBSCRIBERS (50) filtered event streams plus two taking every push.received event, push and
# stream connections reopened every 10-60 s and a fresh app-API connection every second. Once a
# minute it samples the relay's RSS, open descriptors and data directory size into a markdown
# table, then prints each gauge's growth after warm-up (the first third of the run). The relay runs
# with the default retention (100,000 events, 10,000 pushes), so the data directory must level off.
#
#   bench/soak.sh                       # 30 minutes at 300 pushes/s
#   MINUTES=5 RATE=100 bench/soak.sh    # a short run
#
# Environment: MINUTES, RATE, SUBSCRIBERS, ACTIVITIES (100), THREADS (relay threads, 2), SEED (1),
# RELAY (default .build/release/activity-relay, built if missing), KEEP=1 keeps the work directory.
# The provider token burst is raised so that RATE spread over ACTIVITIES tokens is never refused.
# Needs python3 with h2, curl. Exit status 0 when no push or app request failed and every
# subscriber's ids kept increasing; the flatness figures are for the reader to judge.
set -euo pipefail

NAME=soak
MINUTES=${MINUTES:-30}
RATE=${RATE:-300}
SUBSCRIBERS=${SUBSCRIBERS:-50}
ACTIVITIES=${ACTIVITIES:-100}
THREADS=${THREADS:-2}
SEED=${SEED:-1}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
RELAY=${RELAY:-$ROOT/.build/release/activity-relay}
. "$HERE/lib.sh"

[ -x "$RELAY" ] || swift build -c release --package-path "$ROOT" --product activity-relay
PORT=$(free_port)
mkdir -m 700 -p "$DATA"
cat >"$WORK/relay.json" <<JSON
{"logLevel": "warning", "threads": $THREADS,
 "rules": {"tokenBurst": {"capacity": 1000, "refillInterval": 0.01}}}
JSON
"$RELAY" serve --data "$DATA" --listen "127.0.0.1:$PORT" --config "$WORK/relay.json" 2>"$WORK/relay.log" &
RELAY_PID=$!
wait_for "https://localhost:$PORT/healthz" "$DATA/tls-cert.pem" 200
JWT=$("$RELAY" token --data "$DATA")
echo "soak: $MINUTES min, $RATE pushes/s, $SUBSCRIBERS subscribers, relay pid $RELAY_PID, commit $(git -C "$ROOT" rev-parse --short HEAD), $(date -u '+%F %H:%M') UTC"
python3 "$HERE/scripts/soak.py" --port "$PORT" --cafile "$DATA/tls-cert.pem" --admin "$(cat "$DATA/admin-key")" \
    --jwt "$JWT" --pid "$RELAY_PID" --data "$DATA" --minutes "$MINUTES" --rate "$RATE" \
    --activities "$ACTIVITIES" --subscribers "$SUBSCRIBERS" --seed "$SEED"
