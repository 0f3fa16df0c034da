#!/bin/sh
# One call on a GPU machine: configure (once), build, the gpu, sanitize and
# hw tests of the FAMILY names given (default every family), their sweep and
# main job, logs and tables under OUT, a short summary last; the exit status
# is non-zero where a build, a test or a bench failed. Set BANKFREE_REVISION
# where the tree has no usable .git.
# STEPS picks and orders the steps after the build (default "test sweep
# bench") and LABELS the tests' labels (default "gpu|sanitize|hw"), so that
# a machine lent for minutes at a time can take them call by call. The names
# go to ctest as words of a regex (so STEPS=test also takes a test's name,
# e.g. api_edges) and to bankfree as its FILTER (families only).
#   OUT=dir [STEPS=test] [LABELS=gpu] sh tools/gpu_check.sh [FAMILY ...]
set -u
out=${OUT:-gpu-check}
steps=${STEPS:-test sweep bench}
labels=${LABELS:-gpu|sanitize|hw}
for step in $steps; do
    case $step in
    test | sweep | bench) ;;
    *)
        echo "gpu_check.sh: unknown step $step (test, sweep, bench)" >&2
        exit 2
        ;;
    esac
done
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 1
set -f # the names are words, never globs
families=$*
regex=$(printf %s "$families" | tr ' ' '|')
name=$(printf %s "${families:-all}" | tr -c 'A-Za-z0-9_.-' _)
if [ ! -f build-gpu/CMakeCache.txt ]; then
    cmake --preset default -B build-gpu >"$out/configure.log" 2>&1 || {
        tail -30 "$out/configure.log"
        exit 1
    }
fi
cmake --build build-gpu -j 16 >"$out/build.log" 2>&1 || {
    tail -30 "$out/build.log"
    exit 1
}
rc=0
for step in $steps; do
    case $step in
    test)
        (cd build-gpu && ctest -R "${regex:-.}" -L "$labels" -j 4 >"$out/ctest-$name.log" 2>&1) ||
            rc=1
        echo "ctest ($name, $labels): $(grep -E 'tests passed' "$out/ctest-$name.log")"
        grep -E '\*\*\*|Failed' "$out/ctest-$name.log" | head
        ;;
    sweep)
        build-gpu/bankfree bench $families --sizes sweep --format md \
            --json "$out/sweep-$name.json" >"$out/sweep-$name.md" 2>"$out/sweep-$name.err" || {
            rc=1
            tail -3 "$out/sweep-$name.err"
        }
        grep -A40 -i "^#* *summary" "$out/sweep-$name.md" | head -40
        ;;
    bench)
        build-gpu/bankfree bench $families --format md --json "$out/bench-$name.json" \
            >"$out/bench-$name.md" || rc=1
        ;;
    esac
done
date -u
exit $rc
