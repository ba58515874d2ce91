#!/usr/bin/env bash
# The test suite under ThreadSanitizer and AddressSanitizer (LeakSanitizer included): for each of
# SANITIZERS, `swift build --build-tests --sanitize=X` into its own scratch directory
# (.build/sanitize-X, so the normal build is left alone), then `swift test --sanitize=X` with every
# report written to a file per process (the relay binaries the live tests start are instrumented
# too). Prints, per sanitizer, the test summary and the number of reports with their first frames.
# The thread build defines RELAY_TSAN_LOCKS: the standard library's `Mutex` locks with futex calls
# ThreadSanitizer cannot see, so every access it guards would be reported as a race; with the
# define, the modules that use it take `PthreadMutex` (RelayNet) instead, which it can see.
#
#   bench/sanitizers.sh                          # thread then address, SKIP below
#   SANITIZERS=address FILTER=RelayNetTests bench/sanitizers.sh
#
# Environment: SANITIZERS ("thread address"), FILTER (a `--filter` regex; default every test),
# SKIP (a `--skip` regex; default the tests that only lint or build other packages, and the kill -9
# loops, whose Python load makes them take minutes each when the relay is instrumented, and the
# check that the relay's allocator is jemalloc, which a sanitizer's own allocator replaces:
# SourceFormatTests|CompanionPackageTests|CrashLoopTests|AppAPICrashTests|ProviderCrashTests|
# testServeCreatesItsDataDirAnswersAndStopsCleanlyOnSIGTERM; and the idle-connection memory budget,
# which measures RSS that the sanitizer's shadow memory inflates: IdleConnectionMemoryTests),
# KEEP=1 keeps the report directory. Leaks that are memory in use at exit, not lost while running,
# are suppressed by bench/sanitizers-lsan.supp (each with its reason). Exit status 0 when every run passed with no report.
set -uo pipefail

SANITIZERS=${SANITIZERS:-thread address}
FILTER=${FILTER:-}
SKIP=${SKIP:-SourceFormatTests|CompanionPackageTests|CrashLoopTests|AppAPICrashTests|ProviderCrashTests|testServeCreatesItsDataDirAnswersAndStopsCleanlyOnSIGTERM|IdleConnectionMemoryTests}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
REPORTS=$(mktemp -d /tmp/sanitizers.XXXXXX)
cd "$ROOT"
echo "sanitizers: commit $(git rev-parse --short HEAD), $(date -u '+%F %H:%M') UTC, skip '$SKIP', filter '${FILTER:-all}'"
status=0
for sanitizer in $SANITIZERS; do
    scratch=.build/sanitize-$sanitizer
    mkdir -p "$REPORTS/$sanitizer"
    defines=()
    [ "$sanitizer" = thread ] && defines=(-Xswiftc -DRELAY_TSAN_LOCKS)
    if ! swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" "${defines[@]}" >"$REPORTS/$sanitizer.build" 2>&1; then
        echo "$sanitizer: build failed"; tail -20 "$REPORTS/$sanitizer.build"; status=1; continue
    fi
    args=(--skip-build --disable-swift-testing --sanitize="$sanitizer" --scratch-path "$scratch" "${defines[@]}")
    [ -n "$FILTER" ] && args+=(--filter "$FILTER")
    [ -n "$SKIP" ] && args+=(--skip "$SKIP")
    started=$(date +%s)
    # Reports go to one file per process; halt_on_error=0 keeps a run going past its first report.
    TSAN_OPTIONS="log_path=$REPORTS/$sanitizer/report halt_on_error=0 second_deadlock_stack=1" \
    ASAN_OPTIONS="log_path=$REPORTS/$sanitizer/report detect_leaks=1" \
    LSAN_OPTIONS="suppressions=$ROOT/bench/sanitizers-lsan.supp print_suppressions=0" \
        swift test "${args[@]}" >"$REPORTS/$sanitizer.log" 2>&1
    code=$?
    summary=$(grep -E "^\s*Executed [0-9]+ tests" "$REPORTS/$sanitizer.log" | tail -1)
    reports=$(cat "$REPORTS/$sanitizer"/report* 2>/dev/null | grep -cE "^(WARNING: ThreadSanitizer|==[0-9]+==ERROR: (Address|Leak)Sanitizer)")
    echo "$sanitizer: exit $code, $(( $(date +%s) - started )) s; ${summary## }; $reports sanitizer reports"
    grep -E "^Test Case .* failed|error: " "$REPORTS/$sanitizer.log" | head -20
    for file in "$REPORTS/$sanitizer"/report*; do
        [ -e "$file" ] || continue
        echo "--- $file"
        grep -E -A14 "^(WARNING: ThreadSanitizer|==[0-9]+==ERROR)" "$file" | grep -E "WARNING|ERROR|#[0-4] |SUMMARY" | head -40
    done
    [ "$code" = 0 ] && [ "$reports" = 0 ] || status=1
done
if [ "${KEEP:-0}" = 1 ]; then echo "reports kept: $REPORTS"; else rm -rf "$REPORTS"; fi
exit $status
