#!/bin/sh
# Which limit binds the aes_lut kernels first (docs/notes/aes_lut/shared-pipe.md):
# ncu's issue slots, shared-memory pipe, registers, occupancy and stall reasons
# of the variant's kernel and of the lookup ceiling, one type at the bench size.
# On a GPU machine, from the repository root, after a build:
#   sh aes_lut/probes/limits.sh build-gpu/bankfree [TYPE] [SIZE] [VARIANT]
set -u
bankfree=${1:-build-gpu/bankfree}
type=${2:-aes128-ctr}
size=${3:-1073741824}
variant=${4:-replicated}
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
m=gpu__time_duration.sum,sm__cycles_elapsed.avg,smsp__inst_executed.sum
m=$m,smsp__issue_active.avg.pct_of_peak_sustained_active
m=$m,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
m=$m,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed
m=$m,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active
m=$m,sm__warps_active.avg.pct_of_peak_sustained_active
m=$m,launch__registers_per_thread,launch__occupancy_limit_shared_mem
m=$m,launch__occupancy_limit_registers
for s in mio_throttle short_scoreboard long_scoreboard no_instruction; do
    m=$m,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
# The first launches of the cipher and the ceiling (the bench's checks, then
# its timed reps), unlocked clocks as the bench runs them.
exec "$ncu" --clock-control none -k 'regex:aes_lut_kernel|lookup_ceiling' -c 4 --metrics "$m" \
    "$bankfree" bench "aes_lut/$variant" --type "$type" --size "$size" --reps 1 --seed 1
