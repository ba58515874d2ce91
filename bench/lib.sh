# Shared by bench/provider-bench.sh and bench/stream-bench.sh: a work directory with the relay's
# data dir, cleanup of the relays and nginx on exit, free loopback ports, waiting for a server.
# Source it after setting NAME (the script's name, for messages).

WORK=$(mktemp -d "/tmp/$NAME.XXXXXX")
chmod 755 "$WORK"
DATA=$WORK/data
RELAY_PID=""
BASELINE_PID=""
NGINX_PID=""
cleanup() {
    [ -n "$RELAY_PID" ] && kill "$RELAY_PID" 2>/dev/null && wait "$RELAY_PID" 2>/dev/null || true
    [ -n "$BASELINE_PID" ] && kill "$BASELINE_PID" 2>/dev/null && wait "$BASELINE_PID" 2>/dev/null || true
    [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null && wait "$NGINX_PID" 2>/dev/null || true
    if [ "${KEEP:-0}" = 1 ]; then echo "work directory kept: $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

free_port() { python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])"; }

wait_for() { # URL CAFILE [STATUS]: until URL answers (with STATUS when given), 10 s at most
    local code
    for _ in $(seq 1 100); do
        code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$2" "$1" || true)
        if [ -n "${3:-}" ]; then [ "$code" = "$3" ] && return 0; else [ "$code" != 000 ] && return 0; fi
        sleep 0.1
    done
    echo "$NAME: nothing answers at $1" >&2
    return 1
}
