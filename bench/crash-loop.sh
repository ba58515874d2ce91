#!/usr/bin/env bash
# Crash loop: `activity-relay serve` under provider pushes (HTTP/2), app API writes and 100
# event-stream subscribers, killed with SIGKILL KILLS (20) times at seeded random moments and
# restarted on the same data directory each time; after every restart it checks that every
# acknowledged push and write is there, the event sequence has no gap or duplicate, and every
# subscriber resuming with Last-Event-ID got exactly the events it missed. Runs once with the
# default durability and once with durability.syncEachCommit. Zero lost is the only pass.
#
#   bench/crash-loop.sh               # KILLS=20 SEED=1, both durability settings
#   KILLS=5 SEED=7 bench/crash-loop.sh
#
# Environment: KILLS, SEED, SUBSCRIBERS (100), RELAY (default .build/release/activity-relay, built
# if missing). The work is done by Tests/RelayServerTests/Fixtures/crash_loop.py, which the test
# suite's CrashLoopTests runs with 3 kills. Needs python3 with h2. Exit status 0 when both runs pass.
set -euo pipefail

KILLS=${KILLS:-20}
SEED=${SEED:-1}
SUBSCRIBERS=${SUBSCRIBERS:-100}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
RELAY=${RELAY:-$ROOT/.build/release/activity-relay}
LOOP=$ROOT/Tests/RelayServerTests/Fixtures/crash_loop.py

[ -x "$RELAY" ] || swift build -c release --package-path "$ROOT" --product activity-relay
echo "crash loop: commit $(git -C "$ROOT" rev-parse --short HEAD), $(date -u '+%F %H:%M') UTC"
status=0
python3 "$LOOP" --relay "$RELAY" --kills "$KILLS" --seed "$SEED" --subscribers "$SUBSCRIBERS" || status=1
python3 "$LOOP" --relay "$RELAY" --kills "$KILLS" --seed "$SEED" --subscribers "$SUBSCRIBERS" --sync || status=1
exit $status
