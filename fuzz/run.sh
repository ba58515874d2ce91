#!/usr/bin/env bash
# Coverage-guided fuzzing of what the relay reads from outside, with libFuzzer and AddressSanitizer
# from the Swift toolchain. Builds fuzz/ (a package of its own) with `-sanitize=fuzzer,address`,
# then runs each target for SECONDS seconds, one after the other, on a corpus kept in
# fuzz/.corpus/TARGET (started from fuzz/seeds/TARGET; the scenario target also from
# fixtures/scenarios). A failing input is written to fuzz/.crashes/TARGET and the script stops.
#
#   fuzz/run.sh                       # every target, 60 s each
#   SECONDS_EACH=600 fuzz/run.sh apns http2
#   fuzz/run.sh --targets             # the targets and what each checks (fuzz/README.md)
#
# Replaying one input (a crash, or a corpus file):
#   RELAY_FUZZ_TARGET=apns fuzz/.build/release/relay-fuzz fuzz/.crashes/apns/crash-...
# Exit status: 0 when no target failed, 1 when one did, 2 on a usage error.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")" && pwd)
ALL="json hpack http2 http1 apns jwt scenario appapi config resp"
SECONDS_EACH=${SECONDS_EACH:-60}

if [ "${1:-}" = "--targets" ]; then
    sed -n '/^## Targets/,/^## /p' "$ROOT/README.md" | sed '$d'
    exit 0
fi
TARGETS=${*:-$ALL}
for target in $TARGETS; do
    case " $ALL " in *" $target "*) ;; *) echo "fuzz/run.sh: unknown target '$target' (one of: $ALL)" >&2; exit 2 ;; esac
done

echo "fuzz: building relay-fuzz with -sanitize=fuzzer,address (a few minutes the first time)" >&2
# lld: gold fails on the sanitized Swift objects' debug information.
swift build -c release --package-path "$ROOT" -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld >&2
BINARY=$ROOT/.build/release/relay-fuzz

for target in $TARGETS; do
    corpus=$ROOT/.corpus/$target
    crashes=$ROOT/.crashes/$target
    mkdir -p "$corpus" "$crashes"
    seeds=("$ROOT/seeds/$target")
    if [ "$target" = scenario ]; then seeds+=("$ROOT/../fixtures/scenarios"); fi
    # The appapi and config targets keep their files in /dev/shm/relay-fuzz-*.
    trap 'rm -rf /dev/shm/relay-fuzz-*' EXIT
    echo "fuzz: $target for ${SECONDS_EACH}s (corpus $corpus)" >&2
    log=$crashes/last-run.log
    # SWIFT_BACKTRACE: the runtime's crash report would read memory that ASan then reports on.
    if ! (cd "$crashes" && SWIFT_BACKTRACE=enable=no RELAY_FUZZ_TARGET=$target "$BINARY" -max_total_time="$SECONDS_EACH" -timeout=10 \
        -rss_limit_mb=4096 -print_final_stats=1 "$corpus" "${seeds[@]}" >"$log" 2>&1); then
        echo "fuzz: $target FAILED; the input and the report are in $crashes:" >&2
        grep -E "ERROR|Fatal error|SUMMARY|Test unit written|Slowest unit" "$log" | head -10 >&2
        exit 1
    fi
    stats=$(grep -E '^#[0-9]+.*DONE' "$log" | tail -1)
    echo "fuzz: $target ok: ${stats#*DONE}" >&2
done
echo "fuzz: no failures in: $TARGETS" >&2
