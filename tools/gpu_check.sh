#!/bin/sh
# One call on a GPU machine: configure, build, the gpu, sanitize and hw tests
# of the families matched by FILTER (a ctest regex; default all), the sweep
# and the main job of FAMILY (default all), logs and tables under OUT, a short
# summary last. Set BANKFREE_REVISION where the tree has no usable .git.
#   OUT=dir sh tools/gpu_check.sh [FAMILY]
set -u
out=${OUT:-gpu-check}
family=${1:-}
mkdir -p "$out"
cmake --preset default -B build-gpu >"$out/configure.log" 2>&1
cmake --build build-gpu -j 16 >"$out/build.log" 2>&1 || {
    tail -30 "$out/build.log"
    exit 1
}
(cd build-gpu && ctest -R "${family:-.}" -L "gpu|sanitize|hw" -j 4 >"$out/ctest.log" 2>&1)
echo "ctest (${family:-all}): $(grep -E 'tests passed' "$out/ctest.log")"
grep -E '\*\*\*|Failed' "$out/ctest.log" | head
name=${family:-all}
build-gpu/bankfree bench $family --sizes sweep --format md --json "$out/sweep-$name.json" \
    >"$out/sweep-$name.md" 2>"$out/sweep-$name.err"
build-gpu/bankfree bench $family --format md --json "$out/bench-$name.json" >"$out/bench-$name.md"
grep -A40 -i "^#* *summary" "$out/sweep-$name.md" | head -40
date -u
