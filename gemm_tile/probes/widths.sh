#!/bin/sh
# The Hopper kernel's tile widths side by side, from the repository root on
# a Hopper GPU: probes/timeline.cu built once a width (-D
# GEMM_TILE_WGMMA_FORCE_BN, and the middle tile's cluster shapes and
# epilogue), each run at the sizes given (its C checked against cuBLAS's
# first, then timed beside it, L2 flushed). What the rule's costs
# (gemm_tile_wgmma_bn) are fitted on. Binaries and logs in $WORK (default
# /tmp/widths), the logs also as one file in $OUT (default out), named
# $LOG.log (default widths); one line a size and setting last.
# WIDTHS_STEP=build builds only, =run runs what is built (a caller that
# builds beside other work). WIDTHS replaces the settings: clusters.sh
# times cluster shapes so.
#   sh gemm_tile/probes/widths.sh [M N K ...]   (default: M 128, 512, 1000 by
#   a transformer layer's N x K)
set -u
out=${OUT:-out}
work=${WORK:-/tmp/widths}
mkdir -p "$out" "$work"
sizes=${*:-"128 4096 4096 128 11008 4096 128 4096 11008 128 14336 4096
512 4096 4096 512 11008 4096 512 4096 11008 512 14336 4096
1000 4096 4096 1000 11008 4096 1000 4096 11008 1000 14336 4096"}
# name, then the settings (each spelt out, whatever the header's defaults
# are; the middle tile's: clusters, and C staged or stored directly); WIDTHS
# overrides them.
widths=${WIDTHS:-"n64:-DGEMM_TILE_WGMMA_FORCE_BN=64
m1x1:-DGEMM_TILE_WGMMA_FORCE_BN=128;-DGEMM_TILE_WGMMA_MID_CM=1;-DGEMM_TILE_WGMMA_MID_CN=1;-DGEMM_TILE_WGMMA_MID_STAGED=0
m2x1:-DGEMM_TILE_WGMMA_FORCE_BN=128;-DGEMM_TILE_WGMMA_MID_CM=2;-DGEMM_TILE_WGMMA_MID_CN=1;-DGEMM_TILE_WGMMA_MID_STAGED=0
m1x2:-DGEMM_TILE_WGMMA_FORCE_BN=128;-DGEMM_TILE_WGMMA_MID_CM=1;-DGEMM_TILE_WGMMA_MID_CN=2;-DGEMM_TILE_WGMMA_MID_STAGED=0
m1x1s:-DGEMM_TILE_WGMMA_FORCE_BN=128;-DGEMM_TILE_WGMMA_MID_CM=1;-DGEMM_TILE_WGMMA_MID_CN=1;-DGEMM_TILE_WGMMA_MID_STAGED=1
m2x1s:-DGEMM_TILE_WGMMA_FORCE_BN=128;-DGEMM_TILE_WGMMA_MID_CM=2;-DGEMM_TILE_WGMMA_MID_CN=1;-DGEMM_TILE_WGMMA_MID_STAGED=1
w256:-DGEMM_TILE_WGMMA_FORCE_BN=256"}
step=${WIDTHS_STEP:-both}
if [ "$step" != run ]; then
    for width in $widths; do
        name=${width%%:*}
        flags=$(echo "${width#*:}" | tr ';' ' ')
        # shellcheck disable=SC2086 # the settings split into words on purpose
        nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -I. $flags \
            -o "$work/timeline-$name" gemm_tile/probes/timeline.cu -lcublas \
            >"$work/build-$name.log" 2>&1 &
    done
    wait
fi
[ "$step" = build ] && exit 0
for width in $widths; do
    name=${width%%:*}
    # shellcheck disable=SC2086 # the sizes split into words on purpose
    timeout 120 "$work/timeline-$name" $sizes >"$work/run-$name.log" 2>&1 ||
        echo "$name: exit $? (build: $(tail -1 "$work/build-$name.log"))"
done
tail -n +1 "$work"/*.log >"$out/${LOG:-widths}.log"
for width in $widths; do
    name=${width%%:*}
    grep -E "blocks|WRONG" "$work/run-$name.log" |
        sed "s/ (medians.*//; s/^\([0-9x]*\): \([0-9]*\) blocks, event time/$name \1 \2 blocks:/"
done
