#!/bin/sh
# Everything that needs the GPU, in one go: configure and build from scratch,
# ctest -L gpu (and as if the GPU had 16 GiB), -L sanitize, -L hw, the
# benchmark, and the example consumer built against the installed package.
# Logs go to $OUT (default ./out) as logs.tgz, beside summary.txt, machine.txt
# and the bench's table; a short summary is printed last.
# Without a GPU it stops at once (nvidia-smi finds none), or after the build
# with the runner's one line.
#   sh tests/gpu_suite.sh [extra bankfree bench arguments]
# STAGES picks stages (default: build gpu gpu16 sanitize hw bench example;
# gpu16 is the gpu tests again as if the GPU had 16 GiB); without
# "build" the last build in $BUILD (default build-gpu) is used. ARCHS builds
# for those architectures (BANKFREE_CUDA_ARCHITECTURES; default: the GPU's):
# ARCHS=80 runs an A100's code on a newer GPU, from its PTX.
set -u
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-out}
build=${BUILD:-build-gpu}
stages=" ${STAGES:-build gpu gpu16 sanitize hw bench example} "
mkdir -p "$out"
summary="$out/summary.txt"
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }
has() { case $stages in *" $1 "*) return 0 ;; esac && return 1; }

{
    date -u '+%Y-%m-%d %H:%M UTC'
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
        --format=csv
    nvcc --version | tail -2
    cmake --version | head -1
    command -v ncu compute-sanitizer
} >"$out/machine.txt" 2>&1

if ! nvidia-smi -L >/dev/null 2>&1; then
    echo "gpu_suite.sh: no CUDA GPU: nvidia-smi finds none"
    exit 1
fi
if has build; then
    rm -rf "$build"
    start=$(date +%s)
    if ! { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DBANKFREE_WERROR=ON \
        ${ARCHS:+-DBANKFREE_CUDA_ARCHITECTURES=$ARCHS} &&
        cmake --build "$build" -j 16; } >"$out/build.log" 2>&1; then
        tail -30 "$out/build.log"
        note "BUILD FAILED"
        exit 1
    fi
    note "build: ok ($(grep -c -i warning "$out/build.log") warnings, $(($(date +%s) - start)) s)"
fi
if ! "$build/bankfree" device >"$out/device.txt" 2>&1; then
    cat "$out/device.txt"
    exit 1
fi

# ctest counts a skipped test (exit 77) as passed in its percentage; the
# lines it prints under "The following tests did not run" are the skips.
run_label() { # name, then ctest arguments
    name=$1
    shift
    start=$(date +%s)
    (cd "$build" && ctest --output-on-failure --timeout 900 "$@") >"$out/ctest-$name.log" 2>&1
    note "ctest $name: $(grep -E 'tests passed|No tests' "$out/ctest-$name.log")" \
        "($(($(date +%s) - start)) s)"
    grep -E '^\s+[0-9]+ - .*(Failed|Not Run|Timeout|Skipped)' "$out/ctest-$name.log" | head -20 |
        tee -a "$summary"
}
has gpu && run_label gpu -L gpu -j 4
if has gpu16; then
    (export BANKFREE_MEM_LIMIT=16G && run_label gpu-16G -L gpu -j 4 -V)
    note "as if 16 GiB free: $(grep -c '^[0-9]*: SKIP' "$out/ctest-gpu-16G.log") cases skipped"
    "$build/bankfree" test reduction --mem-limit 8G >"$out/test-8G.log" 2>&1
    note "bankfree test reduction --mem-limit 8G: exit $?, $(tail -1 "$out/test-8G.log")"
    grep '^SKIP' "$out/test-8G.log" | head -2 | tee -a "$summary"
fi
has sanitize && run_label sanitize -L sanitize -j 4
if has hw; then
    run_label hw -L hw -V # the measured and modelled counts, pass or fail
    grep -h 'wavefronts ncu SASS' "$out/ctest-hw.log" | sed 's/^[0-9]*: //' >>"$summary"
fi
if has bench; then
    "$build/bankfree" bench "$@" --format md >"$out/bench.md" 2>"$out/bench.err"
    note "bench: exit $?"
    grep -v '^bankfree: \[[0-9]*/[0-9]*\] ' "$out/bench.err" >>"$summary" # not the progress
fi
if has example; then
    # The package as a user installs it, and a C-only project that uses it, run here.
    prefix=$(mktemp -d)
    if cmake --install "$build" --prefix "$prefix" >"$out/example.log" 2>&1 &&
        cmake -S examples/consumer -B "$build-example" -DCMAKE_PREFIX_PATH="$prefix" \
            >>"$out/example.log" 2>&1 &&
        cmake --build "$build-example" >>"$out/example.log" 2>&1; then
        "$build-example/example" >>"$out/example.log" 2>&1
        note "example (C-only project, installed package): exit $?: $(tail -1 "$out/example.log")"
    else
        tail -20 "$out/example.log"
        note "EXAMPLE FAILED"
    fi
    rm -rf "$prefix"
fi

# The device tool brings back at most 8 files of $OUT: the logs go as one
# archive beside the summary and the bench's table.
(cd "$out" && find . -maxdepth 1 -type f \( -name '*.log' -o -name '*.txt' -o -name '*.err' \) \
    ! -name summary.txt -print | sed 's|^\./||' | tar czf logs.tgz -T - &&
    find . -maxdepth 1 -type f \( -name '*.log' -o -name '*.err' \) -delete)

if [ -f "$out/bench.md" ]; then
    echo
    cat "$out/bench.md"
fi
echo
cat "$summary"
