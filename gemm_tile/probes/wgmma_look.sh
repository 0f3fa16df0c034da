#!/bin/sh
# The wgmma path on a Hopper GPU in one go, from the repository root: build,
# the probe (probes/wgmma.cu) under ncu with every counter whose name says
# gmma or tma, the wgmma variants' tests (quick sizes, then all), the bench
# of the whole family, the same counters on the kernel at 1024^3 a variant,
# and ncu's sections for wgmma_sw128 at 4096^3. Logs under $OUT (default out);
# a summary last. STEPS picks steps (default: all of them):
#   STEPS="build probe test bench counters profile" sh gemm_tile/probes/wgmma_look.sh
set -u
out=${OUT:-out}
build=${BUILD:-build-gpu}
steps=" ${STEPS:-build probe test bench counters profile} "
mkdir -p "$out"
has() { case $steps in *" $1 "*) return 0 ;; esac && return 1; }
step() { # name timeout command...
    name=$1 limit=$2
    shift 2
    start=$(date +%s)
    timeout "$limit" "$@" >"$out/$name.log" 2>&1
    echo "$name: exit $? ($(($(date +%s) - start)) s)"
}
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
bankfree=$build/bankfree
variants="wgmma_interleave wgmma_sw32 wgmma_sw64 wgmma_sw128"

if has build; then
    nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -I. -Xptxas -v \
        -o "$out/wgmma-probe" gemm_tile/probes/wgmma.cu >"$out/probe-build.log" 2>&1 &
    step build 400 sh -c "cmake -S . -B $build -DCMAKE_BUILD_TYPE=Release -DBANKFREE_WERROR=ON \
        && cmake --build $build -j 16"
    wait
    grep -c -i warning "$out/build.log" | sed 's/^/build warnings: /'
    tail -3 "$out/build.log"
fi
if has probe; then
    "$ncu" --query-metrics --chip gh100 2>&1 | grep -i -E 'gmma|tma' >"$out/metrics.txt"
    echo "ncu metrics naming gmma or tma: $(wc -l <"$out/metrics.txt")"
    step probe 180 "$ncu" --csv --clock-control none --metrics 'regex:.*(gmma|tma).*' \
        "$out/wgmma-probe"
    awk -F'","' '/wgmma_probe/ { v = $NF; gsub(/[",]/, "", v); k = $5; sub(/<.*/, "", k)
        if (v != "0" && v != "0.00") print k, $(NF-2), v }' "$out/probe.log" |
        sed 's/"//g' | sort -u >"$out/probe-nonzero.txt"
    grep -E 'probe [0-9]' "$out/probe.log"
    echo "probe: $(wc -l <"$out/probe-nonzero.txt") non-zero counter rows (probe-nonzero.txt)"
fi
if has test; then
    filters=$(for v in $variants; do printf 'gemm_tile/%s ' "$v"; done)
    # shellcheck disable=SC2086 # the filters split into words on purpose
    step test-quick 120 "$bankfree" test $filters --sizes quick
    tail -1 "$out/test-quick.log"
    grep -E 'FAIL' "$out/test-quick.log" | head -5
    # shellcheck disable=SC2086
    step test 400 "$bankfree" test $filters
    tail -1 "$out/test.log"
    grep -E 'FAIL' "$out/test.log" | head -5
fi
if has bench; then
    step bench 400 "$bankfree" bench gemm_tile --format md --json "$out/bench.json"
    grep -E '^\|' "$out/bench.log" | awk -F'|' 'NR <= 2 || /gemm_tile/ { print $3, $4, $5, $6, $13, $14, $15, $16, $17 }'
fi
if has counters; then
    m=sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum
    m=$m,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum
    m=$m,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_gmma.sum
    m=$m,sm__sass_inst_executed_op_tma_ld.sum,l1tex__m_xbar2l1tex_read_bytes_pipe_tma.sum
    for v in $variants; do
        step "counters-$v" 120 "$ncu" --csv --clock-control none --metrics "$m" \
            --kernel-name regex:^gemm_tile_ "$bankfree" test "gemm_tile/$v" \
            --size 1024x1024x1024 --type f32
        awk -F'","' '/gemm_tile_wgmma/ { v = $NF; gsub(/[",]/, "", v); print "  ", $(NF-2), v }' \
            "$out/counters-$v.log"
        "$bankfree" model "gemm_tile/$v" --size 1024x1024x1024 --sites --format csv 2>/dev/null |
            awk -F, 'NR > 1 { print "   model", $5, $6, "requests", $8, "wavefronts", $9 }'
    done
fi
if has profile; then
    step profile 180 "$ncu" --clock-control none --section SpeedOfLight --section WarpStateStats \
        --section Occupancy --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
        --kernel-name regex:gemm_tile_wgmma --launch-count 1 \
        "$bankfree" test gemm_tile/wgmma_sw128 --size 4096x4096x4096 --type f32
    grep -E 'Duration|Throughput|Registers|Occupancy|Stall|Issue Slots|Pipe|SM Frequency' \
        "$out/profile.log" | head -40
fi
