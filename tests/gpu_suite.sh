#!/bin/sh
# Everything that needs the GPU, in one go: configure and build from scratch,
# ctest -L gpu, -L sanitize, -L hw, then the benchmark. Logs and tables go to
# $OUT (default ./out); a short summary is printed last.
# usage: sh tests/gpu_suite.sh [extra bankfree bench arguments]
set -u
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-out}
build=${BUILD:-build-gpu}
mkdir -p "$out"
summary="$out/summary.txt"
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }

{
    date -u '+%Y-%m-%d %H:%M UTC'
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
        --format=csv
    nvcc --version | tail -2
    cmake --version | head -1
    command -v ncu compute-sanitizer
} >"$out/machine.txt" 2>&1

rm -rf "$build"
if ! { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release &&
    cmake --build "$build" -j 16; } >"$out/build.log" 2>&1; then
    tail -30 "$out/build.log"
    note "BUILD FAILED"
    exit 1
fi
note "build: ok ($(grep -c -i warning "$out/build.log") warnings)"

for label in gpu sanitize hw; do
    start=$(date +%s)
    jobs=4
    [ "$label" = hw ] && jobs=1
    verbose=
    [ "$label" = hw ] && verbose=-V # the measured and modelled counts, pass or fail
    (cd "$build" && ctest -L "$label" -j "$jobs" $verbose --output-on-failure --timeout 900) \
        >"$out/ctest-$label.log" 2>&1
    note "ctest -L $label: $(grep -E 'tests passed|No tests' "$out/ctest-$label.log")" \
        "($(($(date +%s) - start)) s)"
    grep -E '^\s+[0-9]+ - .*(Failed|Not Run|Timeout|Skipped)' "$out/ctest-$label.log" | head -20 |
        tee -a "$summary"
done
grep -h 'wavefronts ncu' "$out/ctest-hw.log" | sed 's/^[0-9]*: //' >>"$summary"

"$build/bankfree" bench "$@" --format md >"$out/bench.md" 2>"$out/bench.err"
note "bench: exit $?"
cat "$out/bench.err" >>"$summary"

echo
cat "$out/bench.md"
echo
cat "$summary"
