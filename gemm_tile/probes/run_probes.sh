#!/bin/sh
# On a GPU machine, from the repository root: the tile-size A/B (tiles.cu, one
# build a tile) and the cp.async wavefront probe (ldgsts.cu, under ncu).
# Results under $OUT (default out); LDGSTS=0 skips the probe.
#   sh gemm_tile/probes/run_probes.sh
set -u
out=${OUT:-out}
mkdir -p "$out"
nvcc_opts="-arch=sm_90 -std=c++17 -O3 -I. -Xptxas -v"
# shellcheck disable=SC2086 # the options split into words on purpose
nvcc $nvcc_opts -o "$out/ldgsts" gemm_tile/probes/ldgsts.cu >"$out/ldgsts-build.log" 2>&1 &
# The tiles to time, ';'-separated -D sets ("" is the family's default);
# TILES overrides them.
tiles=${TILES:-"\
;-DGEMM_TILE_WARP_N=64\
;-DGEMM_TILE_BN=256 -DGEMM_TILE_WARP_N=64 -DGEMM_TILE_BLOCKS_PER_SM=1\
;-DGEMM_TILE_BM=256 -DGEMM_TILE_WARP_N=64 -DGEMM_TILE_BLOCKS_PER_SM=1\
;-DGEMM_TILE_BN=256 -DGEMM_TILE_WARP_N=64 -DGEMM_TILE_BLOCKS_PER_SM=1 -DGEMM_TILE_STAGES=4"}
i=0
IFS=';'
for cfg in $tiles; do
    unset IFS
    # shellcheck disable=SC2086 # the options split into words on purpose
    nvcc $nvcc_opts $cfg -o "$out/tiles$i" gemm_tile/probes/tiles.cu \
        gemm_tile/gemm_tile_wgmma_absent.c -lcublas \
        >"$out/tiles$i-build.log" 2>&1 &
    i=$((i + 1))
    IFS=';'
done
unset IFS
wait
for t in "$out"/tiles[0-9]; do
    [ -x "$t" ] || { echo "$t: build failed" && tail -5 "$t-build.log" && continue; }
    grep -A4 -E "entry function '_Z16gemm_tile_kernelILi2ELi[0-9]+EfE" "$t-build.log" | grep -E "spill|registers"
    "$t"
done
[ "${LDGSTS:-1}" = 0 ] && exit 0
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
m=smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum
"$ncu" --csv --metrics "$m,smsp__sass_inst_executed_op_ldgsts.sum" "$out/ldgsts" \
    >"$out/ldgsts.csv" 2>&1
grep -E '^pattern|ITER' "$out/ldgsts.csv"
awk -F'","' '/ldgsts_probe/ { v = $NF; gsub(/[",]/, "", v); print $5, $(NF-2), v }' "$out/ldgsts.csv"
