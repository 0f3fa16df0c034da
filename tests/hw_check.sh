#!/bin/sh
# The hardware agrees with the model: for FAMILY/VARIANT at each of the
# family's hw sizes (one wave of blocks, and more work than one wave: more
# waves, or many tiles a block), ncu's SASS counts of
# shared-memory wavefronts, loads, stores and atomics, over the launches of
# the variant's run in `bankfree test FAMILY/VARIANT --size S --seed SEED`
# (inside its NVTX range, below) must equal the bank
# model's count for the same size and seed (`bankfree model ... --seed SEED`
# replays the inputs test makes from it) on this GPU's SMs (`--sms N`, for
# kernels whose grid follows the GPU). Which counter holds each of the model's
# ops is the map `bankfree counters` prints (common/counters.c, the one that
# bench --counters reads): wavefronts, or TMA's boxes by instructions; ldc
# (the constant cache, not shared memory) has none and is not checked here;
# cp.async is held exactly where every copy is aligned, else to at least the
# ideal and within 10% of the model (docs/bank-rules.md, "cp.async"). The
# pipe counters, where an op has one, are printed beside them: they also book
# the data banks' arbitration with other L1 traffic, and run a few percent
# over once blocks run in more than one wave (docs/bank-rules.md).
#
# ncu profiles the launches `bankfree test` makes inside its NVTX range
# "bankfree" (a variant's run: BF_PROFILED, common/counters.h), whatever
# their names; the inputs and the checks run outside it. It is asked only for
# the counters this GPU has (the map's from_cc and to_cc): a model op whose
# counter the GPU lacks is reported "not counted on this GPU", not held. The
# model replays this GPU (`--gpu sm_CC`). Where ncu cannot profile (no
# permission to read the counters: ERR_NVGPUCTRPERM; or another tool, DCGM,
# holds them), the test is skipped with one line that says how to allow it.
# usage: hw_check.sh BANKFREE FAMILY/VARIANT
# HW_TYPE=T checks type T alone (bankfree's --type T); HW_SIZES="S ..." checks
# those sizes instead of the family's hw list: per-input tables (docs/notes/).
# Where the model samples a type at a size (its site names say "sampled"),
# that type is profiled apart and held to within 1%; the others exactly.
bankfree=$1 filter=$2
type_opt=${HW_TYPE:+--type $HW_TYPE}
seed=1 # the inputs' base seed, the same for test and model: reruns repeat
. "$(dirname "$0")/lib.sh"

ncu=$(find_cuda_tool ncu) || skip "ncu not found"
require_gpu "$bankfree"

# The GPU's SMs: bankfree device's "sms" fact, else the "N SMs" of its device line.
facts=$("$bankfree" device --format csv 2>/dev/null) || exit 1
sms=$(echo "$facts" | awk -F, '$1 == "sms" { print $2; exit }')
[ -n "$sms" ] || sms=$(echo "$facts" | sed -n 's/.*[^0-9]\([0-9][0-9]*\) SMs.*/\1/p' | head -n 1)
case $sms in
'' | *[!0-9]*) echo "FAIL: bankfree device gave no SM count:" && echo "$facts" && exit 1 ;;
esac
# Its compute capability, 10 x major + minor: the "(sm_90, ..." of the device line.
cc=$(echo "$facts" | sed -n 's/^device,.*(sm_\([0-9][0-9]*\),.*/\1/p' | head -n 1)
case $cc in
'' | *[!0-9]*) echo "FAIL: bankfree device gave no compute capability (sm_NN):" && echo "$facts" &&
    exit 1 ;;
esac

# A variant this GPU or build cannot run (bankfree list says why) is skipped.
case $filter in
*/*)
    available=$("$bankfree" list "$filter" --format csv 2>/dev/null | awk -F, 'NR == 2 { print $NF }')
    case $available in no:*) skip "$filter: ${available#no: }" ;; esac
    ;;
esac

# Model CSV: family,type,size,variant,site,op,bytes,requests,wavefronts,...
# A row whose type reads "f32/i32" stands for both, and `test` runs both.
sizes_opt="--sizes hw"
[ -n "${HW_SIZES:-}" ] && sizes_opt=$(for s in $HW_SIZES; do printf -- '--size %s ' "$s"; done)
# shellcheck disable=SC2086 # the options split into words on purpose
model=$("$bankfree" model "$filter" $sizes_opt $type_opt --seed "$seed" --sms "$sms" \
    --gpu "sm_$cc" --format csv 2>/dev/null) || exit 1
# The map, a row an op: op,ncu_op,sass_metric,pipe_metric,held_by,from_cc,to_cc
# ("-": none; to_cc "-": and every newer GPU).
map=$("$bankfree" counters --format csv 2>/dev/null) || exit 1
entry() { # op column: the op's cell in that column of the map, "" if no row
    echo "$map" | awk -F, -v op="$1" -v c="$2" 'NR > 1 && $1 == op { print $c }'
}
counted_here() { # op: whether this GPU has the op's counters (the map's from_cc to to_cc)
    echo "$map" | awk -F, -v op="$1" -v cc="$cc" 'NR > 1 && $1 == op {
        split($6, lo, "."); split($7, hi, ".")
        ok = $6 != "-" && cc >= 10 * lo[1] + lo[2] && ($7 == "-" || cc <= 10 * hi[1] + hi[2]) }
        END { exit !ok }'
}
# The ops held: ld, st and red always (a kernel has no shared-memory traffic
# the model lacks), then the model's own.
model_ops=$(echo "$model" | awk -F, 'NR > 1 && $6 != "" { print $6 }' | sort -u)
ops=$({
    printf 'ld\nst\nred\n'
    echo "$model_ops"
} | awk 'NF && !seen[$0]++')
held="" metrics="" uncounted=""
for op in $ops; do
    case $(entry "$op" 3) in
    "") echo "FAIL: the model has '$op' sites, and \`bankfree counters\` maps no ncu counter to" \
        "$op: add it to bf_op_counters (common/counters.c; docs/bank-rules.md)" && exit 1 ;;
    -) continue ;; # no counter sees it (ldc)
    esac
    if ! counted_here "$op"; then # asking ncu for it would fail the whole run
        echo "$model_ops" | grep -qx "$op" && uncounted="$uncounted $op"
        continue
    fi
    held="$held $op"
    metrics="$metrics,$(entry "$op" 3)"
    [ "$(entry "$op" 4)" = - ] || metrics="$metrics,$(entry "$op" 4)"
done
metrics=${metrics#,}
[ -n "$held" ] || skip "ncu has none of the model's counters on sm_$cc (bankfree counters)"
want() { # model-csv size op [column: 9 wavefronts (default), 10 ideal]
    echo "$1" | awk -F, -v size="$2" -v op="$3" -v col="${4:-9}" \
        'NR > 1 && $3 == size && $6 == op { s += $col * split($2, t, "/") } END { printf "%.0f\n", s }'
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

# One ncu run of `bankfree test` at a size over the types in $2 (options),
# held to the model's CSV $3: equal, or within 1% where $4 is "sampled".
check_run() { # size type-options model-csv exact|sampled label
    : >"$log" # no message of an earlier run
    # shellcheck disable=SC2086 # the options split into words on purpose
    "$ncu" --clock-control none --csv --log-file "$log" --nvtx --nvtx-include "bankfree/" \
        --metrics "$metrics" \
        "$bankfree" test "$filter" --size "$1" $2 --seed "$seed" >"$out" 2>&1
    # ncu may exit 0 and the run pass when it could not read a counter: its
    # messages decide first.
    ncu_skip_if_cannot_profile "$out" "$log"
    trouble=$(ncu_trouble "$out" "$log")
    if [ "${trouble#metric: }" != "$trouble" ]; then
        echo "FAIL: $filter $1: ncu lacks a counter that bf_op_counters (common/counters.c)" \
            "gives sm_$cc: ${trouble#metric: }"
        exit 1 # and so at every size
    fi
    if ! grep -q '^# [1-9][0-9]* passed, 0 failed, 0 skipped' "$out"; then
        cat "$out" "$log"
        echo "FAIL: $filter $1 did not run cleanly under ncu"
        failed=1
        return
    fi
    line="$filter $1$5:"
    for op in $held; do
        name=$(entry "$op" 2) sass_m=$(entry "$op" 3) pipe_m=$(entry "$op" 4)
        column=9 what="shared-$name wavefronts ncu SASS" # the model's wavefronts
        if [ "$(entry "$op" 5)" = requests ]; then # its requests: instructions
            column=8 what="$(echo "$name" | tr "[:lower:]" "[:upper:]") instructions ncu SASS"
        fi
        m=$(want "$3" "$1" "$op" $column) s=$(got "$sass_m") p=none
        [ "$pipe_m" = - ] || p=$(got "$pipe_m")
        [ "$s" = none ] && s=0 # no profiled launch: no wavefronts
        [ "$p" = none ] && p=0
        verdict="="
        if [ "$s" != "$m" ] && [ "$4" = sampled ]; then
            verdict=$(awk -v s="$s" -v m="$m" 'BEGIN { d = s - m; if (d < 0) d = -d
                if (d <= 0.01 * m) printf "~"; else printf "!=" }')
            [ "$verdict" = "~" ] && verdict="~ ($(excess "$s" "$m") of the sampled)"
        elif [ "$s" != "$m" ] && [ "$op" = ldgsts ] && [ "$m" != "$(want "$3" "$1" ldgsts 10)" ]; then
            # Misaligned cp.async (pieces of global lines): the model's count is
            # what one warp alone costs; in a running kernel the H100 merges
            # some pieces or splits others, as timing falls (docs/bank-rules.md).
            # Held to at least the ideal and within 10% of the model.
            ideal=$(want "$3" "$1" ldgsts 10)
            verdict=$(awk -v s="$s" -v m="$m" -v i="$ideal" \
                'BEGIN { if (s >= i && s <= 1.1 * m && s >= 0.9 * m) printf "~"; else printf "!=" }')
            [ "$verdict" = "~" ] && verdict="~ ($(excess "$s" "$m"); misaligned cp.async: within 10%)"
        elif [ "$s" != "$m" ]; then
            verdict="!="
        fi
        [ "$verdict" = "!=" ] && failed=1
        beside="pipe $p, $(excess "$p" "$m")"
        [ "$pipe_m" = - ] && beside="pipe not read"
        line="$line $what $s $verdict model $m ($beside);"
    done
    for op in $uncounted; do
        line="$line $op: not counted on this GPU (sm_$cc);"
    done
    echo "$line"
}

failed=0
for size in $(echo "$model" | awk -F, 'NR > 1 { print $3 }' | uniq); do
    # The model of this size alone: `test --size S` runs it as its first size,
    # and a case's seed follows its size's place in the list.
    # shellcheck disable=SC2086
    one=$("$bankfree" model "$filter" --size "$size" $type_opt --seed "$seed" --sms "$sms" \
        --gpu "sm_$cc" --format csv 2>/dev/null) || exit 1
    # A model may sample a large input (its site names then say "sampled",
    # as aes_lut's CTR past 4 MiB): the exact types are held to ncu alone,
    # exactly; the sampled ones in a run of their own, to within 1%.
    sampled=$(echo "$one" | awk -F, 'NR > 1 && $5 ~ /sampled/ { print $2 }' | sort -u)
    if [ -z "$sampled" ]; then
        check_run "$size" "$type_opt" "$one" exact "${HW_TYPE:+ $HW_TYPE}"
        continue
    fi
    exact=$(echo "$one" | awk -F, 'NR > 1 { print $2 }' | sort -u | grep -vxF "$sampled" || true)
    for kind in exact sampled; do
        types=$exact
        [ $kind = sampled ] && types=$sampled
        [ -n "$types" ] || continue
        opt=$(for t in $types; do printf -- '--type %s ' "$t"; done)
        # shellcheck disable=SC2086
        part=$("$bankfree" model "$filter" --size "$size" $opt --seed "$seed" --sms "$sms" \
            --gpu "sm_$cc" --format csv 2>/dev/null) || exit 1
        check_run "$size" "$opt" "$part" $kind " ($kind: $(echo "$types" | tr '\n' ' ' | sed 's/ $//'))"
    done
done
if [ $failed -ne 0 ]; then
    echo "FAIL: the hardware disagrees with the model, or a run failed (seed $seed, $sms SMs, sm_$cc)"
    exit 1
fi
