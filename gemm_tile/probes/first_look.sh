#!/bin/sh
# The family on a GPU in one go, after a build: correctness (quick sizes, then
# every test size), the bench, ncu's ldmatrix and cp.async wavefronts against
# the model (tests/hw_check.sh at 1024 and 4096 cubed), and where the swizzled
# kernel's time goes at 4096 cubed (ncu's speed-of-light, warp-state and
# occupancy sections). Logs under $OUT (default out); a summary last.
#   sh gemm_tile/probes/first_look.sh build-gpu/bankfree
set -u
bankfree=${1:-build-gpu/bankfree}
out=${OUT:-out}
mkdir -p "$out"
step() { # name timeout command...
    name=$1 limit=$2
    shift 2
    start=$(date +%s)
    timeout "$limit" "$@" >"$out/$name.log" 2>&1
    echo "$name: exit $? ($(($(date +%s) - start)) s): $(grep -E '^# [0-9]+ passed' "$out/$name.log" | tail -1)"
}
step test-quick 60 "$bankfree" test gemm_tile --sizes quick
grep -E 'FAIL' "$out/test-quick.log" | head -5
step test 240 "$bankfree" test gemm_tile
grep -E 'FAIL' "$out/test.log" | head -5
step bench 200 "$bankfree" bench gemm_tile --format md
step hw 240 env HW_SIZES="1024x1024x1024 4096x4096x4096" sh tests/hw_check.sh "$bankfree" gemm_tile
grep -E 'wavefronts|FAIL' "$out/hw.log" | head -10
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
step profile 120 "$ncu" --section SpeedOfLight --section WarpStateStats --section Occupancy \
    --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --kernel-name regex:gemm_tile_kernel \
    --launch-count 1 "$bankfree" test gemm_tile/swizzled --size 4096x4096x4096 --type f32
grep -E 'Duration|Throughput|Registers|Achieved Occupancy|Theoretical Occupancy|Stall|Issue Slots|Pipe' \
    "$out/profile.log" | head -40
cat "$out/bench.log"
