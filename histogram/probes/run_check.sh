#!/bin/sh
# The histogram probes, on a GPU machine, from the repository root:
#   sh histogram/probes/run_check.sh        (OUT: where results go, default out)
# rules.cu: one warp, one shared atomic instruction: SASS and ncu wavefronts,
# and a full SM's throughput. sweep.cu: the layout and launch sweep the
# variants were chosen from. launch.cu: the address form, the blocks an SM
# and the 16-bit layout, A/B at 32 MiB and 1 GiB. (The family's own kernels
# are tested and timed by bankfree: ctest -L gpu, bankfree bench histogram.)
set -eu
out=${OUT:-out}
mkdir -p "$out"
dir=histogram/probes
nvcc -O3 -arch=sm_90 -o "$out/rules" $dir/rules.cu
nvcc -O3 -std=c++17 -arch=sm_90 -I. -o "$out/sweep" $dir/sweep.cu common/ceilings.cu common/check.c
ncu --clock-control none --csv --metrics \
    smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum \
    "$out/rules" >"$out/rules_ncu.csv"
"$out/rules" time >"$out/rules_time.txt"
"$out/sweep" >"$out/sweep.txt"
nvcc -O3 -std=c++17 -arch=sm_90 -I. -o "$out/launch" $dir/launch.cu common/check.c
"$out/launch" >"$out/launch.txt"
