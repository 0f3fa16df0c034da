#!/bin/sh
# The hardware agrees with the model: for FAMILY/VARIANT at each of the
# family's hw sizes (one wave of blocks, and more work than one wave: more
# waves, or many tiles a block), ncu's SASS counts of
# shared-memory wavefronts, loads, stores and atomics, over every launch of
# `bankfree test FAMILY/VARIANT --size S --seed SEED` must equal the bank
# model's count for the same size and seed (`bankfree model ... --seed SEED`
# replays the inputs test makes from it) on this GPU's SMs (`--sms N`, for
# kernels whose grid follows the GPU). The model's ops map to ncu's counters:
# ld to _op_ld, st to _op_st, red (shared atomics without a return value) to
# _op_atom, ldmatrix to _op_ldsm, ldgsts (cp.async) to _op_ldgsts; ldc
# (constant-cache loads, not shared memory) to none: not checked here. The pipe
# counters of ld, st and atom are printed beside them: they also book the data
# banks' arbitration with other L1 traffic, and run a few percent over once
# blocks run in more than one wave (docs/bank-rules.md).
#
# ncu profiles the kernels whose names start with "FAMILY_": a family's kernels
# must be named so (transpose_padded), and no other kernel of the run may be.
# usage: hw_check.sh BANKFREE FAMILY/VARIANT
# HW_TYPE=T checks type T alone (bankfree's --type T); HW_SIZES="S ..." checks
# those sizes instead of the family's hw list: per-input tables in a README.
bankfree=$1 filter=$2
type_opt=${HW_TYPE:+--type $HW_TYPE}
family=${filter%%/*}
seed=1 # the inputs' base seed, the same for test and model: reruns repeat
. "$(dirname "$0")/lib.sh"

ncu=$(find_cuda_tool ncu) || skip "ncu not found"
require_gpu "$bankfree"
sass=smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op
pipe=l1tex__data_pipe_lsu_wavefronts_mem_shared_op

# The GPU's SMs: bankfree device's "sms" fact, else the "N SMs" of its device line.
facts=$("$bankfree" device --format csv 2>/dev/null) || exit 1
sms=$(echo "$facts" | awk -F, '$1 == "sms" { print $2; exit }')
[ -n "$sms" ] || sms=$(echo "$facts" | sed -n 's/.*[^0-9]\([0-9][0-9]*\) SMs.*/\1/p' | head -n 1)
case $sms in
'' | *[!0-9]*) echo "FAIL: bankfree device gave no SM count:" && echo "$facts" && exit 1 ;;
esac

# Model CSV: family,type,size,variant,site,op,bytes,requests,wavefronts,...
# A row whose type reads "f32/i32" stands for both, and `test` runs both.
sizes_opt="--sizes hw"
[ -n "${HW_SIZES:-}" ] && sizes_opt=$(for s in $HW_SIZES; do printf -- '--size %s ' "$s"; done)
# shellcheck disable=SC2086 # the options split into words on purpose
model=$("$bankfree" model "$filter" $sizes_opt $type_opt --seed "$seed" --sms "$sms" \
    --format csv 2>/dev/null) || exit 1
# ncu's counter for each of the model's ops: ld, st, atom (the model's red),
# and, where the model has them, ldsm (ldmatrix) and ldgsts (cp.async), whose
# SASS counters alone are read (the pipe books ldmatrix under _op_ld).
ops=$(echo "$model" | awk -F, 'NR > 1 && $6 != "" { print $6 }' | sort -u)
counters="ld st atom"
metrics="${sass}_ld.sum,${sass}_st.sum,${sass}_atom.sum,${pipe}_ld.sum,${pipe}_st.sum,${pipe}_atom.sum"
for op in $ops; do
    case $op in
    ld | st | red) ;;
    ldc) ;; # the constant cache: no shared-memory counter to hold it to
    ldmatrix) counters="$counters ldsm" metrics="$metrics,${sass}_ldsm.sum" ;;
    ldgsts) counters="$counters ldgsts" metrics="$metrics,${sass}_ldgsts.sum" ;;
    *) echo "FAIL: the model has '$op' sites; hw_check.sh knows ncu's counters for ld, st," \
        "red, ldmatrix and ldgsts only: add the counter for $op (docs/bank-rules.md)" && exit 1 ;;
    esac
done
model_op() { # ncu's counter -> the model's op
    case $1 in atom) echo red ;; ldsm) echo ldmatrix ;; *) echo "$1" ;; esac
}
want() { # model-csv size op
    echo "$1" | awk -F, -v size="$2" -v op="$3" \
        'NR > 1 && $3 == size && $6 == op { s += $9 * split($2, t, "/") } END { printf "%.0f\n", s }'
}

log=$(mktemp)
out=$(mktemp)
trap 'rm -f "$log" "$out"' EXIT
# ncu CSV: the value is the last quoted field, with thousands separators.
got() { # metric
    awk -F'","' -v m="\"$1\"" 'index($0, m) { v = $NF; gsub(/[",]/, "", v); s += v; n++ }
        END { if (n == 0) print "none"; else printf "%.0f\n", s }' "$log"
}
excess() { # pipe model
    awk -v p="$1" -v m="$2" 'BEGIN { if (m > 0 && p != "none") printf "%+.2f%%", 100 * (p - m) / m; else printf "-" }'
}

failed=0
for size in $(echo "$model" | awk -F, 'NR > 1 { print $3 }' | uniq); do
    # The model of this size alone: `test --size S` runs it as its first size,
    # and a case's seed follows its size's place in the list.
    # shellcheck disable=SC2086
    one=$("$bankfree" model "$filter" --size "$size" $type_opt --seed "$seed" --sms "$sms" \
        --format csv 2>/dev/null) || exit 1
    # A model may sample a large input (its site names then say "sampled",
    # as aes_lut's CTR past 4 MiB): such types are not held to ncu at this
    # size; the exact ones are, alone. No exact type: the size is skipped.
    sampled=$(echo "$one" | awk -F, 'NR > 1 && $5 ~ /sampled/ { print $2 }' | sort -u)
    size_type_opt=$type_opt
    if [ -n "$sampled" ]; then
        exact=$(echo "$one" | awk -F, 'NR > 1 { print $2 }' | sort -u |
            grep -vxF "$sampled" || true)
        echo "$filter $size: not held to ncu, the model samples them: $(echo "$sampled" | tr '\n' ' ')"
        [ -n "$exact" ] || continue
        size_type_opt=$(for t in $exact; do printf -- '--type %s ' "$t"; done)
        # shellcheck disable=SC2086
        one=$("$bankfree" model "$filter" --size "$size" $size_type_opt --seed "$seed" \
            --sms "$sms" --format csv 2>/dev/null) || exit 1
    fi
    # shellcheck disable=SC2086
    "$ncu" --clock-control none --csv --log-file "$log" --kernel-name "regex:^${family}_" \
        --metrics "$metrics" \
        "$bankfree" test "$filter" --size "$size" $size_type_opt --seed "$seed" >"$out" 2>&1
    if ! grep -q '^# [1-9][0-9]* passed, 0 failed, 0 skipped' "$out"; then
        cat "$out" "$log"
        echo "FAIL: $filter $size did not run cleanly under ncu"
        failed=1
        continue
    fi
    line="$filter $size${HW_TYPE:+ $HW_TYPE}${sampled:+ (exact types)}:"
    for op in $counters; do
        m=$(want "$one" "$size" "$(model_op "$op")") s=$(got "${sass}_$op.sum") p=$(got "${pipe}_$op.sum")
        [ "$s" = none ] && s=0 # no launch of the family's kernels: no wavefronts
        [ "$p" = none ] && p=0
        verdict="="
        if [ "$s" != "$m" ]; then
            verdict="!="
            failed=1
        fi
        beside="pipe $p, $(excess "$p" "$m")"
        case $op in ldsm | ldgsts) beside="pipe not read" ;; esac
        line="$line shared-$op wavefronts ncu SASS $s $verdict model $m ($beside);"
    done
    echo "$line"
done
if [ $failed -ne 0 ]; then
    echo "FAIL: the hardware disagrees with the model, or a run failed (seed $seed, $sms SMs)"
    exit 1
fi
