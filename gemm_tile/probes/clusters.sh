#!/bin/sh
# The Hopper kernel's cluster shapes side by side, from the repository root
# on a Hopper GPU: probes/timeline.cu built once a shape (-D settings of
# gemm_tile_wgmma_layout.h, in parallel), each run at the sizes given (its
# C checked against cuBLAS's first, then timed beside it, L2 flushed).
# Binaries and logs in $WORK (default /tmp/clusters), the logs also as one
# file in $OUT (default out); the event times and cuBLAS ratios last.
#   sh gemm_tile/probes/clusters.sh [M N K ...]   (default 256 ... 4096 cubed)
set -u
out=${OUT:-out}
work=${WORK:-/tmp/clusters}
mkdir -p "$out" "$work"
sizes=${*:-256 256 256 512 512 512 1024 1024 1024 2048 2048 2048 4096 4096 4096}
# name, then the settings: the narrow tile's clusters (CM x CN) and the wide one's
# (each shape spelt out, whatever the header's defaults are)
shapes="n1x1:-DGEMM_TILE_WGMMA_NARROW_CM=1;-DGEMM_TILE_WGMMA_NARROW_CN=1
n1x2:-DGEMM_TILE_WGMMA_NARROW_CM=1;-DGEMM_TILE_WGMMA_NARROW_CN=2
n2x1:-DGEMM_TILE_WGMMA_NARROW_CM=2;-DGEMM_TILE_WGMMA_NARROW_CN=1
n2x2:-DGEMM_TILE_WGMMA_NARROW_CM=2;-DGEMM_TILE_WGMMA_NARROW_CN=2
w2x2:-DGEMM_TILE_WGMMA_WIDE_CM=2;-DGEMM_TILE_WGMMA_WIDE_CN=2"
for shape in $shapes; do
    name=${shape%%:*}
    flags=$(echo "${shape#*:}" | tr ';' ' ')
    # shellcheck disable=SC2086 # the settings split into words on purpose
    nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -I. $flags \
        -o "$work/timeline-$name" gemm_tile/probes/timeline.cu -lcublas \
        >"$work/build-$name.log" 2>&1 &
done
wait
for shape in $shapes; do
    name=${shape%%:*}
    # shellcheck disable=SC2086
    timeout 120 "$work/timeline-$name" $sizes >"$work/run-$name.log" 2>&1 ||
        echo "$name: exit $? (build: $(tail -1 "$work/build-$name.log"))"
done
tail -n +1 "$work"/*.log >"$out/clusters.log"
for shape in $shapes; do
    name=${shape%%:*}
    echo "== $name"
    grep -E "blocks|WRONG" "$work/run-$name.log" |
        sed 's/ (medians.*//; s/^\([0-9x]*\): \([0-9]*\) blocks, event time/\1 \2 blocks:/'
done
