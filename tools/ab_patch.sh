#!/bin/sh
# An A/B of a kernel patch on a GPU machine: the tree as it is (build-gpu)
# and the tree with PATCH applied (a copy under AB_DIR, default /tmp/ab),
# both built with -DBANKFREE_WERROR=ON (each kept for the next call while
# the machine stays warm); then `bankfree test` of the patched build with
# TEST's arguments, and `bankfree bench` with BENCH's, ROUNDS times, the
# patch first in each round, as CSV under OUT (patch-N.csv, base-N.csv).
# Same-run ratios are the figures: compare a row's vs_vendor and
# median_ms across the two builds of one round.
#   OUT=dir PATCH=file TEST="args" BENCH="args" [ROUNDS=3] sh tools/ab_patch.sh
# e.g. PATCH=docs/notes/gemm_tile/patches/wgmma-uniform.patch
#      TEST="gemm_tile/wgmma_sw128 --type f32 --type f16 --size 129x67x72"
#      BENCH="gemm_tile/wgmma_sw128 --type f32 --type f16 --size 1024x1024x1024"
set -u
out=${OUT:?OUT=dir}
patch_file=${PATCH:?PATCH=file}
rounds=${ROUNDS:-3}
ab=${AB_DIR:-/tmp/ab}
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 1
patch_file=$(cd "$(dirname "$patch_file")" && pwd)/$(basename "$patch_file")
build() { # source dir, build dir, log name
    [ -x "$2/bankfree" ] && return
    if ! cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release -DBANKFREE_WERROR=ON \
        >"$out/$3-configure.log" 2>&1 ||
        ! cmake --build "$2" -j 16 --target bankfree >"$out/$3-build.log" 2>&1; then
        tail -30 "$out/$3-configure.log" "$out/$3-build.log" 2>/dev/null
        exit 1
    fi
}
build . build-gpu base
if [ ! -x "$ab/b/bankfree" ]; then
    rm -rf "$ab" && mkdir -p "$ab" || exit 1
    tar cf - --exclude=./build-gpu --exclude=./build-dev --exclude=./.git . | tar xf - -C "$ab"
    if ! (cd "$ab" && patch -p1 <"$patch_file") >"$out/patch.log" 2>&1; then
        cat "$out/patch.log"
        exit 1
    fi
fi
build "$ab" "$ab/b" patch
status=0
if [ -n "${TEST:-}" ]; then
    # shellcheck disable=SC2086 # TEST is bankfree's arguments, split on purpose
    "$ab/b/bankfree" test $TEST >"$out/test.log" 2>&1 || status=1
    echo "test of the patch: $(tail -1 "$out/test.log")"
fi
if [ -n "${BENCH:-}" ]; then
    r=1
    while [ "$r" -le "$rounds" ]; do
        # shellcheck disable=SC2086
        "$ab/b/bankfree" bench $BENCH --format csv >"$out/patch-$r.csv" 2>"$out/patch-$r.err" &&
            build-gpu/bankfree bench $BENCH --format csv >"$out/base-$r.csv" 2>"$out/base-$r.err" ||
            status=1
        r=$((r + 1))
    done
    echo "bench: $rounds rounds under $out"
fi
exit $status
