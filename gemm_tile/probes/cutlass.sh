#!/bin/sh
# CUTLASS's GEMMs beside ours (probes/cutlass.cu), from the repository root on
# a Hopper GPU, with a CUTLASS checkout (3.x or later: 2.x's Ampere kernels
# and 3.x's Hopper ones; headers only) and a bankfree build (its static
# libraries: our kernels, the ceilings, the timing). Each CUTLASS tile is
# one object (probes/cutlass_gemm.cu), built in parallel; binary and logs in
# $WORK (default /tmp/cutlass-probe), the run's tables in $OUT (default out).
#   sh gemm_tile/probes/cutlass.sh CUTLASS_DIR [BUILD_DIR [M N K ...]]
set -eu
cutlass=${1:?usage: cutlass.sh CUTLASS_DIR [BUILD_DIR [M N K ...]]}
build=${2:-build}
shift $(($# < 2 ? $# : 2))
out=${OUT:-out}
work=${WORK:-/tmp/cutlass-probe}
mkdir -p "$out" "$work"
flags="-std=c++17 -O3 -DNDEBUG --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a"
flags="$flags -I. -I$work -I$cutlass/include -I$cutlass/tools/util/include"
: >"$work/cutlass_kernels.h"
# name, then its settings (cutlass_gemm.cu): Ampere tiles M x N x K, stages and
# grouped tile rows; Hopper tiles, clusters M x N and schedule
while read -r name settings; do
    echo "X($name)" >>"$work/cutlass_kernels.h"
    # shellcheck disable=SC2046,SC2086 # the settings split into words on purpose
    nvcc $flags -w -DNAME="$name" $(printf ' -D%s' $settings) -c gemm_tile/probes/cutlass_gemm.cu \
        -o "$work/$name.o" >"$work/build-$name.log" 2>&1 || echo "$name: build failed" &
done <<EOF
a0 CUTLASS_SM80=1 TBM=128 TBN=256 TBK=64 STAGES=3 SWIZZLE=8
a1 CUTLASS_SM80=1 TBM=256 TBN=128 TBK=64 STAGES=3 SWIZZLE=8
a2 CUTLASS_SM80=1 TBM=128 TBN=256 TBK=32 STAGES=3 SWIZZLE=8
a3 CUTLASS_SM80=1 TBM=128 TBN=256 TBK=64 STAGES=4 SWIZZLE=8
a4 CUTLASS_SM80=1 TBM=128 TBN=128 TBK=32 STAGES=5 SWIZZLE=8
h0 PINGPONG=0 TBM=128 TBN=256 TBK=64 CLM=2 CLN=1
h1 PINGPONG=0 TBM=128 TBN=256 TBK=64 CLM=1 CLN=1
h2 PINGPONG=0 TBM=128 TBN=128 TBK=64 CLM=2 CLN=1
h3 PINGPONG=0 TBM=128 TBN=128 TBK=64 CLM=1 CLN=1
h4 PINGPONG=1 TBM=64 TBN=128 TBK=64 CLM=1 CLN=1
h5 PINGPONG=1 TBM=64 TBN=64 TBK=64 CLM=1 CLN=1
EOF
# shellcheck disable=SC2086
nvcc $flags -c gemm_tile/probes/cutlass.cu -o "$work/cutlass.o" >"$work/build-main.log" 2>&1 ||
    { cat "$work/build-main.log"; exit 1; }
wait
# shellcheck disable=SC2046
nvcc -gencode=arch=compute_90a,code=sm_90a -o "$work/cutlass" "$work"/*.o \
    "$build/libbankfree_suites.a" "$build/libbankfree.a" "$build/libbankfree_common.a" \
    "$build/libbankfree_host.a" -lcublas -ldl
"$work/cutlass" "$@" | tee "$out/cutlass.md"
