#!/bin/sh
# Runs tile_shape.cu once per tile shape (rows, log2 of the width, block rows,
# min blocks per SM for __launch_bounds__), each built on its own. On a GPU
# machine, from the repository root: sh transpose/probes/tile_shape.sh [OUTDIR]
set -eu
out=${1:-.}
shapes="${SHAPES:-64,6,8,6 128,5,8,1 64,6,16,4 64,6,16,3 128,5,32,2 128,6,16,3 128,6,32,2 128,5,16,4}"
for s in $shapes; do
    IFS=, read -r rows log2 block min <<E
$s
E
    nvcc -O3 -arch=sm_90 -I. -DTRANSPOSE_TILE_ROWS="$rows" -DTRANSPOSE_TILE_COLS_LOG2="$log2" \
        -DTRANSPOSE_BLOCK_ROWS="$block" -DTRANSPOSE_MIN_BLOCKS="$min" \
        transpose/probes/tile_shape.cu transpose/transpose_packed.cu common/l2_flush.cu \
        -lcublas -o "$out/shape_$rows.$log2.$block.$min" &
done
wait
for s in $shapes; do
    echo "== min blocks $(echo "$s" | cut -d, -f4)"
    "$out/shape_$(echo "$s" | tr , .)"
done
