#!/bin/sh
# The narrow tile's split K side by side (GEMM_TILE_WGMMA_NARROW_SPLITK, 1, 2
# and 4; gemm_tile_wgmma_layout.h), from the repository root on a Hopper GPU:
# probes/timeline.cu built once a setting (in parallel), each run at the sizes
# given (its C checked against cuBLAS's first, then timed beside it, L2
# flushed, medians of 30 reps). The split a size takes is the setting's
# largest whose clusters all fit at once (gemm_tile_wgmma_split): "blocks"
# below is tiles x split (H100: 256^3 8 tiles, 512^3 32, 1024^3 128, which
# fit no split: it runs unsplit). Binaries and logs in $WORK (default
# /tmp/splitk), the logs also as one file in $OUT (default out); the event
# times and cuBLAS ratios last.
#   sh gemm_tile/probes/splitk.sh [M N K ...]   (default 256 ... 1024 cubed)
set -u
out=${OUT:-out}
work=${WORK:-/tmp/splitk}
mkdir -p "$out" "$work"
sizes=${*:-256 256 256 512 512 512 1024 1024 1024}
splits="1 2 4"
for s in $splits; do
    nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -I. \
        -DGEMM_TILE_WGMMA_NARROW_SPLITK="$s" \
        -o "$work/timeline-s$s" gemm_tile/probes/timeline.cu -lcublas \
        >"$work/build-s$s.log" 2>&1 &
done
wait
for s in $splits; do
    # shellcheck disable=SC2086 # the sizes split into words on purpose
    timeout 120 "$work/timeline-s$s" $sizes >"$work/run-s$s.log" 2>&1 ||
        echo "split $s: exit $? (build: $(tail -1 "$work/build-s$s.log"))"
done
tail -n +1 "$work"/*.log >"$out/splitk.log"
for s in $splits; do
    echo "== split $s"
    grep -E "blocks|WRONG" "$work/run-s$s.log" |
        sed 's/ (medians.*//; s/^\([0-9x]*\): \([0-9]*\) blocks, event time/\1 \2 blocks:/'
done
