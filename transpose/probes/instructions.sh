#!/bin/sh
# Instructions a byte, per variant and element size: why the best variant for
# halves at 7919x8209 differs between the H100 (packed) and the H200 (padded)
# (issue "two GPUs", item 3; docs/notes/transpose/). ncu over one
# `bankfree test` run of each variant, inside its NVTX range as
# tests/hw_check.sh profiles it (the checks run outside), clocks left as they
# are: the warp instructions executed, the kernel's time, DRAM's bytes and
# the SM clock. Run it on each GPU and compare the columns.
#   sh transpose/probes/instructions.sh BANKFREE [SIZE ...]
# SIZE defaults to 7919x8209 8192x8192; TYPES (default "u8 f16 f32") and
# VARIANTS (default "padded swizzled packed") choose the rows.
set -u
bankfree=$1
shift
sizes=${*:-7919x8209 8192x8192}
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../../tests/lib.sh"
ncu=$(find_cuda_tool ncu) || skip "ncu not found"
require_gpu "$bankfree"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
metrics=smsp__inst_executed.sum,gpu__time_duration.sum,dram__bytes_read.sum
metrics=$metrics,dram__bytes_write.sum,sm__cycles_elapsed.avg.per_second
# ncu CSV: the metric's value is the last quoted field (thousands separated),
# its unit the one before; summed over the variant's launches (one here).
value() { # metric
    awk -F'","' -v m="\"$1\"" 'index($0, m) { v = $NF; gsub(/[",]/, "", v); s += v }
        END { printf "%.0f", s }' "$log"
}
unit() { # metric
    awk -F'","' -v m="\"$1\"" 'index($0, m) { print $(NF - 1); exit }' "$log"
}
"$bankfree" device | head -2
printf '%-10s %-5s %-9s %14s %8s %10s %10s %s\n' size type variant instructions inst/B \
    time_us dram_GB "sm clock"
for size in $sizes; do
    rows=${size%x*} cols=${size#*x}
    for type in ${TYPES:-u8 f16 f32}; do
        case $type in
        u8) elem=1 ;;
        f16) elem=2 ;;
        f32) elem=4 ;;
        f64 | c64) elem=8 ;;
        c128) elem=16 ;;
        *) echo "$type: not a transpose type" && exit 2 ;;
        esac
        for variant in ${VARIANTS:-padded swizzled packed}; do
            [ "$variant" = packed ] && [ "$elem" -gt 2 ] && continue # bytes and halves only
            if ! "$ncu" --clock-control none --csv --print-units base --log-file "$log" --nvtx \
                --nvtx-include "bankfree/" --metrics "$metrics" \
                "$bankfree" test "transpose/$variant" --type "$type" --size "$size" \
                >/dev/null 2>&1; then
                echo "$size $type $variant: the run under ncu failed" && continue
            fi
            inst=$(value smsp__inst_executed.sum)
            ns=$(value gpu__time_duration.sum)
            dram=$(($(value dram__bytes_read.sum) + $(value dram__bytes_write.sum)))
            awk -v s="$size" -v t="$type" -v v="$variant" -v i="$inst" -v ns="$ns" \
                -v d="$dram" -v b="$((2 * rows * cols * elem))" \
                -v c="$(value sm__cycles_elapsed.avg.per_second) $(unit sm__cycles_elapsed.avg.per_second)" \
                'BEGIN { printf "%-10s %-5s %-9s %14.0f %8.4f %10.1f %10.3f %s\n",
                    s, t, v, i, i / b, ns / 1e3, d / 1e9, c }'
        done
    done
done
