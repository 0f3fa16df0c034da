#!/bin/sh
# The wgmma path on a Hopper GPU in one go, from the repository root: build,
# the wgmma variants' tests (quick sizes, then all), the bench of the whole
# family, tests/hw_check.sh on them, the probe (probes/wgmma.cu) under ncu
# with every counter whose name says gmma or tma, and ncu's sections for
# wgmma_sw128 at 4096^3. With AB="-DNAME=VALUE ..." a second build with those
# definitions times wgmma_sw128 beside the first (a tile, cluster or order
# to try). Logs go into $OUT/logs.tgz (default out), the bench as JSON and
# markdown beside it; a summary last. AB may list several ';'-separated
# sets, each built and timed on its own. STEPS picks steps (default: all):
#   STEPS="build test bench hw probe profile" sh gemm_tile/probes/wgmma_look.sh
set -u
out=${OUT:-out}
build=${BUILD:-build-gpu}
steps=" ${STEPS:-build test bench hw probe profile} "
log=$out/log
mkdir -p "$log"
has() { case $steps in *" $1 "*) return 0 ;; esac && return 1; }
step() { # name timeout command...
    name=$1 limit=$2
    shift 2
    start=$(date +%s)
    timeout "$limit" "$@" >"$log/$name.log" 2>&1
    echo "$name: exit $? ($(($(date +%s) - start)) s)"
}
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
bankfree=$build/bankfree
variants="wgmma_interleave wgmma_sw32 wgmma_sw64 wgmma_sw128"
configure="-DCMAKE_BUILD_TYPE=Release -DBANKFREE_WERROR=ON"

if has build; then
    nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -I. -Xptxas -v \
        -o "$out/wgmma-probe" gemm_tile/probes/wgmma.cu >"$log/probe-build.log" 2>&1 &
    i=0
    IFS=';'
    for flags in ${AB:-}; do
        unset IFS
        # shellcheck disable=SC2086 # the options split into words on purpose
        { cmake -S . -B "$build-ab$i" $configure -DCMAKE_CUDA_FLAGS="$flags" &&
            cmake --build "$build-ab$i" -j 6 --target bankfree; } >"$log/build-ab$i.log" 2>&1 &
        i=$((i + 1))
        IFS=';'
    done
    unset IFS
    # shellcheck disable=SC2086
    step build 500 sh -c "cmake -S . -B $build $configure && cmake --build $build -j 16"
    wait
    echo "build warnings: $(grep -c -i warning "$log/build.log"); $(tail -1 "$log/build.log")"
fi
if has test; then
    filters=$(for v in $variants; do printf 'gemm_tile/%s ' "$v"; done)
    # shellcheck disable=SC2086 # the filters split into words on purpose
    step test-quick 120 "$bankfree" test $filters --sizes quick
    tail -1 "$log/test-quick.log"
    grep -E 'FAIL' "$log/test-quick.log" | head -5
    # shellcheck disable=SC2086
    step test 400 "$bankfree" test $filters
    tail -1 "$log/test.log"
    grep -E 'FAIL' "$log/test.log" | head -5
fi
rates() { # bench markdown: type, size, variant, rate, sm_mhz, of_ceiling, vs_vendor
    awk -F'|' '/gemm_tile/ && $5 !~ /rowmajor|padded|interleave|sw32/ {
        gsub(/ +/, " "); print $3, $4, $5, $14, $12, $16, $17 }' "$1"
}
if has bench; then
    step bench 400 "$bankfree" bench gemm_tile --format md --json "$out/bench.json"
    cp "$log/bench.log" "$out/bench.md"
    rates "$out/bench.md"
    i=0
    IFS=';'
    for flags in ${AB:-}; do
        unset IFS
        if [ -x "$build-ab$i/bankfree" ]; then
            step "bench-ab$i" 200 "$build-ab$i/bankfree" bench gemm_tile/wgmma_sw128 --format md
            echo "with $flags:"
            rates "$log/bench-ab$i.log" | grep -v ceiling
        else
            echo "with $flags: build failed"
            grep -m 3 -E 'error' "$log/build-ab$i.log"
        fi
        i=$((i + 1))
        IFS=';'
    done
    unset IFS
fi
if has hw; then
    for v in $variants; do
        sizes=1024x1024x1024
        [ "$v" = wgmma_sw128 ] && sizes="1024x1024x1024 1000x1000x1000 2048x2048x512 4096x4096x4096"
        step "hw-$v" 300 env HW_SIZES="$sizes" sh tests/hw_check.sh "$bankfree" "gemm_tile/$v"
        grep -E 'ncu SASS|FAIL|skipped' "$log/hw-$v.log" | cut -c1-400
    done
fi
if has probe; then
    "$ncu" --query-metrics --chip gh100 >"$log/metrics.txt" 2>&1
    step probe 180 "$ncu" --csv --clock-control none \
        --metrics 'regex:.*(gmma|tma).*,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum' \
        "$out/wgmma-probe"
    awk -F'","' '/_probe/ { v = $NF; gsub(/[",]/, "", v); k = $5; sub(/<.*/, "", k)
        if (v != "0" && v != "0.00") print $1, k, $(NF-2), v }' "$log/probe.log" |
        sed 's/"//g' | sort -u >"$log/probe-nonzero.txt"
    grep -E '^probe [0-9]|^store pattern' "$log/probe.log"
    grep -E 'store_probe.*op_st.sum ' "$log/probe-nonzero.txt"
fi
if has profile; then
    step profile 180 "$ncu" --clock-control none --section SpeedOfLight --section WarpStateStats \
        --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis \
        --section MemoryWorkloadAnalysis \
        --kernel-name regex:gemm_tile_wgmma --launch-count 1 \
        "$bankfree" test gemm_tile/wgmma_sw128 --size 4096x4096x4096 --type f32
    grep -E 'Duration|Throughput|Registers|Occupancy|Stall|Issue Slots|Pipe|SM Frequency|Grid Size|Cluster|Waves' \
        "$log/profile.log" | head -40
fi
tar czf "$out/logs.tgz" -C "$out" log && rm -rf "$log"
