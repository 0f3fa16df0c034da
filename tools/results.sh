#!/bin/sh
# docs/results from one run, on a GPU with ncu, into a folder named after
# the GPU (docs/results/h100, docs/results/h200: the first word of its name
# after "NVIDIA", lower case): the main job with ncu's counters (bench.json,
# and bench.md: the table and its summary) and its charts; then the bank
# model's worst request of the sites the pictures show (lanes.json, the same
# on every machine) and its pictures, one folder up. The charts need
# matplotlib (tools/plot.py; else run the printed line where it is
# installed).
# With --sweep, the sweep alone instead (sweep.json and sweep.md, ~5 min on
# an H100: bankfree bench --sizes sweep), then its charts.
#   sh tools/results.sh [--sweep] [BANKFREE [DIR]]
#   (default build/bankfree, docs/results/GPU)
set -eu
sweep=0
[ "${1:-}" = --sweep ] && sweep=1 && shift
bankfree=${1:-build/bankfree}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0 2>/dev/null |
    sed 's/^NVIDIA //' | awk '{print tolower($1)}')
dir=${2:-docs/results/${gpu:-gpu}}
mkdir -p "$dir"
plot() { # what to draw and where: bench|sweep|lanes JSON DIR
    if python3 -c 'import matplotlib' 2>/dev/null; then
        python3 "$(dirname "$0")/plot.py" "$@" >/dev/null
    else
        echo "results.sh: no matplotlib here: run tools/plot.py $* where it is installed"
    fi
}
if [ $sweep = 1 ]; then
    "$bankfree" bench --sizes sweep --format md --json "$dir/sweep.json" >"$dir/sweep.md"
    plot sweep "$dir/sweep.json" "$dir"
    exit 0
fi
"$bankfree" --counters --format md --json "$dir/bench.json" >"$dir/bench.md"
plot bench "$dir/bench.json" "$dir"
model=$(dirname "$dir")
# The seeds' pictures from the real kernels: a column read into one bank and
# its two fixes; ldmatrix on the row-major and swizzled GEMM tiles, wgmma's
# core matrices and the epilogue's stores on the Hopper path; the
# histogram's and AES's lookups on data that piles into one bank.
"$bankfree" model transpose/conflicting transpose/padded transpose/swizzled gemm_tile/rowmajor \
    gemm_tile/swizzled gemm_tile/wgmma_sw128 histogram/shared histogram/replicated aes_lut/shared \
    aes_lut/replicated \
    --type f32 --type u8-onebank --type aes128-onebank --size 8192x8192 --size 4096x4096x4096 \
    --size 1073741824 --lanes --format json >"$model/lanes.json"
plot lanes "$model/lanes.json" "$model"
