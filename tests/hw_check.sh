#!/bin/sh
# The hardware agrees with the model: ncu's shared-memory wavefronts, loads and
# stores, for one launch of FILTER at SIZE must equal the bank model's count.
# usage: hw_check.sh BANKFREE FAMILY/VARIANT ROWSxCOLS
bankfree=$1 filter=$2 size=$3
family=${filter%%/*}
. "$(dirname "$0")/lib.sh"

ncu=$(find_cuda_tool ncu) || skip "ncu not found"
require_gpu "$bankfree"
metric=l1tex__data_pipe_lsu_wavefronts_mem_shared_op

# Model CSV columns: family,type,size,variant,site,op,bytes,requests,wavefronts,...
# A row whose type reads "f32/i32" stands for both, and `test` runs both.
model=$("$bankfree" model "$filter" --size "$size" --format csv) || exit 1
want() {
    echo "$model" | awk -F, -v op="$1" '!/^#/ && $6 == op { s += $9 * split($2, t, "/") }
        END { printf "%.0f\n", s }'
}

log=$(mktemp)
out=$(mktemp)
trap 'rm -f "$log" "$out"' EXIT
"$ncu" --clock-control none --csv --log-file "$log" --kernel-name "regex:^${family}_" \
    --metrics "${metric}_ld.sum,${metric}_st.sum" \
    "$bankfree" test "$filter" --size "$size" >"$out" 2>&1
if ! grep -q '^# [1-9][0-9]* passed, 0 failed' "$out"; then
    cat "$out" "$log"
    echo "FAIL: $filter $size did not run cleanly under ncu"
    exit 1
fi
# ncu CSV: the value is the last quoted field, with thousands separators.
got() {
    awk -F'","' -v m="$1" 'index($0, m) { v = $NF; gsub(/[",]/, "", v); s += v; n++ }
        END { if (n == 0) print "none"; else printf "%.0f\n", s }' "$log"
}

ld_want=$(want ld) st_want=$(want st)
ld_got=$(got "${metric}_ld.sum") st_got=$(got "${metric}_st.sum")
echo "$filter $size: shared-load wavefronts ncu $ld_got, model $ld_want;" \
    "shared-store wavefronts ncu $st_got, model $st_want"
if [ "$ld_got" != "$ld_want" ] || [ "$st_got" != "$st_want" ]; then
    cat "$log"
    echo "FAIL: the hardware disagrees with the model"
    exit 1
fi
