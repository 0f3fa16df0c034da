#!/bin/sh
# The Hopper kernel's cluster shapes side by side, from the repository root
# on a Hopper GPU: widths.sh (probes/timeline.cu built once a setting, in
# parallel, each run at the sizes given, its C checked against cuBLAS's
# first, then timed beside it, L2 flushed) with the narrow and wide tiles'
# cluster shapes (CM x CN) as its settings, each spelt out whatever the
# header's defaults are (the narrow ones without the thin tile, which
# would take 256^3 and 512^3 from them). Binaries and logs in $WORK (default /tmp/clusters),
# the logs also as $OUT/clusters.log (default out); the event times and
# cuBLAS ratios last, a line a size and shape.
#   sh gemm_tile/probes/clusters.sh [M N K ...]   (default 256 ... 4096 cubed)
set -u
[ $# -gt 0 ] || set -- 256 256 256 512 512 512 1024 1024 1024 2048 2048 2048 4096 4096 4096
WORK=${WORK:-/tmp/clusters} LOG=clusters WIDTHS="n1x1:-DGEMM_TILE_WGMMA_NARROW_CM=1;-DGEMM_TILE_WGMMA_NARROW_CN=1;-DGEMM_TILE_WGMMA_WITH_THIN=0
n1x2:-DGEMM_TILE_WGMMA_NARROW_CM=1;-DGEMM_TILE_WGMMA_NARROW_CN=2;-DGEMM_TILE_WGMMA_WITH_THIN=0
n2x1:-DGEMM_TILE_WGMMA_NARROW_CM=2;-DGEMM_TILE_WGMMA_NARROW_CN=1;-DGEMM_TILE_WGMMA_WITH_THIN=0
n2x2:-DGEMM_TILE_WGMMA_NARROW_CM=2;-DGEMM_TILE_WGMMA_NARROW_CN=2;-DGEMM_TILE_WGMMA_WITH_THIN=0
w2x2:-DGEMM_TILE_WGMMA_WIDE_CM=2;-DGEMM_TILE_WGMMA_WIDE_CN=2" \
    exec sh "$(dirname "$0")/widths.sh" "$@"
