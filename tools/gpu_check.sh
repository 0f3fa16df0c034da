#!/bin/sh
# One call on a GPU machine: configure, build, the gpu, sanitize and hw tests
# of the families matched by FILTER (a ctest regex; default all), the sweep
# and the main job of FAMILY (default all), logs and tables under OUT, a short
# summary last. Set BANKFREE_REVISION where the tree has no usable .git.
# STEPS picks and orders the steps after the build (default "test sweep
# bench") and LABELS the tests' labels (default "gpu|sanitize|hw"), so that
# a machine lent for minutes at a time can take them call by call; the build
# is kept in build-gpu between calls.
#   OUT=dir [STEPS="test"] [LABELS=gpu] sh tools/gpu_check.sh [FAMILY]
set -u
out=${OUT:-gpu-check}
family=${1:-}
name=${family:-all}
mkdir -p "$out"
if [ ! -x build-gpu/bankfree ]; then
    cmake --preset default -B build-gpu >"$out/configure.log" 2>&1
    cmake --build build-gpu -j 16 >"$out/build.log" 2>&1 || {
        tail -30 "$out/build.log"
        exit 1
    }
fi
for step in ${STEPS:-test sweep bench}; do
    case $step in
    test)
        (cd build-gpu && ctest -R "${family:-.}" -L "${LABELS:-gpu|sanitize|hw}" -j 4 \
            >"$out/ctest-$name.log" 2>&1)
        echo "ctest ($name, ${LABELS:-gpu|sanitize|hw}):" \
            "$(grep -E 'tests passed' "$out/ctest-$name.log")"
        grep -E '\*\*\*|Failed' "$out/ctest-$name.log" | head
        ;;
    sweep)
        build-gpu/bankfree bench $family --sizes sweep --format md --json "$out/sweep-$name.json" \
            >"$out/sweep-$name.md" 2>"$out/sweep-$name.err"
        grep -A40 -i "^#* *summary" "$out/sweep-$name.md" | head -40
        ;;
    bench)
        build-gpu/bankfree bench $family --format md --json "$out/bench-$name.json" \
            >"$out/bench-$name.md"
        ;;
    *)
        echo "gpu_check.sh: unknown step $step (test, sweep, bench)" >&2
        exit 2
        ;;
    esac
done
date -u
