#!/bin/sh
# ncu's paths through the scripts, without a GPU or a profiler: tests/lib.sh
# (find_cuda_tool, ncu_trouble), hw_check.sh and counters_check.sh driven by a
# stand-in ncu (ncu_standin.sh, through $BANKFREE_NCU) and a stand-in GPU
# (bankfree with made-up device facts, the rest the real one), beside
# bankfree's own counting pass (test_counters measure). No permission to read
# the counters (ERR_NVGPUCTRPERM), or the counters busy, is a skip (77) with
# one line; a metric the GPU lacks, another error or a crash is a failure.
# The metrics asked follow the GPU (no gmma or tma before 9.0, no ldgsts
# before 8.0), the model replays it (--gpu sm_CC), and a model op whose
# counter the GPU lacks is reported "not counted on this GPU".
# usage: ncu_check.sh BANKFREE TEST_COUNTERS
bankfree=$1 test_counters=$2
tests=$(cd "$(dirname "$0")" && pwd)
. "$tests/lib.sh"
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
cp "$tests/ncu_standin.sh" "$dir/ncu" && chmod 755 "$dir/ncu" || exit 1
export BANKFREE_NCU="$dir/ncu" NCU_STANDIN_ARGS="$dir/args"

# bankfree on a stand-in GPU, sm_$STANDIN_CC with 58 SMs: `device` says so;
# bench --counters runs its counting pass as bankfree does
# (bf_counters_measure) and has no GPU to time on; the rest is bankfree's.
cat >"$dir/bankfree" <<EOF
#!/bin/sh
echo "\$*" >>"$dir/calls"
case \$1 in
device)
    printf 'fact,value\ndevice,"Stand-in GPU (sm_%s, 58 SMs, 50 MB L2, 24.0 GB)"\nsms,58\n' \\
        "\$STANDIN_CC"
    exit 0
    ;;
esac
case " \$* " in
*" --counters "*)
    why=\$("$test_counters" measure "\$STANDIN_CC")
    case \$? in
    0) echo "family,type,size,variant" ;;
    77) echo "bankfree: no counters, the bench alone: \$why" >&2 && echo "family,type,size,variant" ;;
    *) echo "bankfree: \$why" >&2 && exit 1 ;;
    esac
    exit 0
    ;;
esac
exec "$bankfree" "\$@"
EOF
chmod 755 "$dir/bankfree"

failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}
# Runs a command, its output in $dir/out and its status in $status.
run() {
    : >"$dir/args"
    : >"$dir/calls"
    "$@" >"$dir/out" 2>&1
    status=$?
}
# The case's output is the skip line alone, exit 77.
expect_skip() { # what line
    [ $status -eq 77 ] && [ "$(cat "$dir/out")" = "skipped: $2" ] ||
        fail "$1: want exit 77 and the one line 'skipped: $2'; got $status: $(cat "$dir/out")"
}
expect_fail() { # what pattern
    [ $status -eq 1 ] && grep -q "$2" "$dir/out" ||
        fail "$1: want exit 1 and '$2'; got $status: $(cat "$dir/out")"
}
asked() { # pattern: whether ncu was asked for a metric that matches
    awk 'asked { print; asked = 0 } $0 == "--metrics" { asked = 1 }' "$dir/args" | grep -q -- "$1"
}

# lib.sh: ncu is $BANKFREE_NCU, as bankfree takes it (bf_ncu_path).
[ "$(find_cuda_tool ncu)" = "$dir/ncu" ] || fail "find_cuda_tool ncu: not \$BANKFREE_NCU"
BANKFREE_NCU=$dir/none find_cuda_tool ncu >/dev/null && fail "find_cuda_tool: a missing \$BANKFREE_NCU found"

# lib.sh's ncu_trouble on what the stand-in says, as ncu says it.
for case in permission:permission permission0:permission "busy:busy: Profiling failed" \
    "metric:metric: Failed to find metric x" error: crash: ok:; do
    mode=${case%%:*} want=${case#*:}
    NCU_STANDIN=$mode "$dir/ncu" --log-file "$dir/log" --metrics x,y "$bankfree" test >"$dir/out" 2>&1
    got=$(ncu_trouble "$dir/out" "$dir/log")
    case $got in
    "$want"*) ;;
    *) fail "ncu_trouble, $mode: '$got', want '$want...'" ;;
    esac
    [ -n "$want" ] || [ -z "$got" ] || fail "ncu_trouble, $mode: '$got', want nothing"
done
(ncu_skip_if_cannot_profile "$dir/log") >"$dir/out" 2>&1
status=$?
[ $status -eq 0 ] || fail "ncu_skip_if_cannot_profile: a clean log skipped ($status)"

# bankfree's pass says the same line as lib.sh, and the same verdicts.
for case in permission:77 permission0:77 busy:77 metric:1 error:1 crash:1; do
    mode=${case%%:*}
    NCU_STANDIN=$mode run "$test_counters" measure 89
    [ $status -eq "${case#*:}" ] || fail "test_counters measure, $mode: exit $status: $(cat "$dir/out")"
done
NCU_STANDIN=permission run "$test_counters" measure 89
[ "$(cat "$dir/out")" = "$NCU_PERMISSION_HELP" ] ||
    fail "bankfree's line is not lib.sh's: $(cat "$dir/out") / $NCU_PERMISSION_HELP"

# hw_check.sh: skipped without permission, whatever ncu's exit status; failed
# on a metric the GPU lacks, on ncu's other errors and on a crash.
export STANDIN_CC=89
for mode in permission permission0; do
    NCU_STANDIN=$mode run sh "$tests/hw_check.sh" "$dir/bankfree" transpose/conflicting
    expect_skip "hw_check.sh, $mode" "$NCU_PERMISSION_HELP"
done
NCU_STANDIN=busy run sh "$tests/hw_check.sh" "$dir/bankfree" transpose/conflicting
[ $status -eq 77 ] && [ "$(wc -l <"$dir/out")" -eq 1 ] &&
    grep -q '^skipped: ncu cannot profile now: Profiling failed because a driver resource' "$dir/out" ||
    fail "hw_check.sh, busy: want one skip line, exit 77; got $status: $(cat "$dir/out")"
grep '^model ' "$dir/calls" | grep -qv -- '--gpu sm_89' &&
    fail "hw_check.sh: a model call without --gpu sm_89: $(grep '^model ' "$dir/calls")"
grep -q '^model .*--gpu sm_89' "$dir/calls" || fail "hw_check.sh: no model call with --gpu sm_89"
NCU_STANDIN=metric run sh "$tests/hw_check.sh" "$dir/bankfree" transpose/conflicting
expect_fail "hw_check.sh, metric" "ncu lacks a counter .*Failed to find metric"
NCU_STANDIN=error run sh "$tests/hw_check.sh" "$dir/bankfree" transpose/conflicting
expect_fail "hw_check.sh, error" "did not run cleanly"
NCU_STANDIN=crash run sh "$tests/hw_check.sh" "$dir/bankfree" transpose/conflicting
expect_fail "hw_check.sh, crash" "did not run cleanly"

# The values ncu would give FILTER at SIZE on sm_CC: the model's, a line a
# metric ("METRIC VALUE"), each plus `off`.
values() { # filter size cc off
    "$bankfree" counters --format csv >"$dir/map"
    "$bankfree" model "$1" --size "$2" --gpu "sm_$3" --sms 58 --seed 1 --format csv 2>/dev/null |
        awk -F, -v map="$dir/map" -v off="$4" '
        BEGIN { while ((getline l < map) > 0) { split(l, f, ","); sass[f[1]] = f[3]
                    pipe[f[1]] = f[4]; by[f[1]] = f[5] } }
        NR > 1 && $6 != "" { v[$6] += (by[$6] == "requests" ? $8 : $9) * split($2, t, "/") }
        END { for (op in v) { if (sass[op] != "-") printf "%s %.0f\n", sass[op], v[op] + off
                              if (pipe[op] != "-") printf "%s %.0f\n", pipe[op], v[op] + off } }' \
            >"$dir/values"
}
export NCU_STANDIN_VALUES="$dir/values"

# Whether the model of FILTER at SIZE on sm_CC has sites of OP.
model_has() { # filter size cc op
    "$bankfree" model "$1" --size "$2" --gpu "sm_$3" --sms 58 --seed 1 --format csv 2>/dev/null |
        awk -F, -v op="$4" 'NR > 1 && $6 == op { found = 1 } END { exit !found }'
}

# sm_89 has no wgmma or TMA counters: not asked; where the model has such
# sites, "not counted on this GPU". The stores held, and a count off is still
# a failure.
size=1024x1024x1024
values gemm_tile/wgmma_sw128 $size 89 0
NCU_STANDIN=ok HW_SIZES=$size run sh "$tests/hw_check.sh" "$dir/bankfree" gemm_tile/wgmma_sw128
[ $status -eq 0 ] || fail "hw_check.sh, sm_89 wgmma_sw128: exit $status: $(cat "$dir/out")"
for op in gmma tma; do
    if model_has gemm_tile/wgmma_sw128 $size 89 $op; then
        grep -q "$op: not counted on this GPU (sm_89);" "$dir/out" ||
            fail "hw_check.sh, sm_89: $op not reported as not counted: $(cat "$dir/out")"
    fi
done
grep -q 'shared-st wavefronts ncu SASS [0-9]* = model' "$dir/out" ||
    fail "hw_check.sh, sm_89: the stores not held: $(cat "$dir/out")"
asked _op_gmma && fail "hw_check.sh, sm_89: ncu asked for gmma"
asked _op_tma && fail "hw_check.sh, sm_89: ncu asked for tma"
asked _op_st.sum || fail "hw_check.sh, sm_89: ncu not asked for stores"
values gemm_tile/wgmma_sw128 $size 89 1
NCU_STANDIN=ok HW_SIZES=$size run sh "$tests/hw_check.sh" "$dir/bankfree" gemm_tile/wgmma_sw128
expect_fail "hw_check.sh, sm_89, one wavefront off" "!= model"

# sm_90 has them: asked and held.
export STANDIN_CC=90
values gemm_tile/wgmma_sw128 $size 90 0
NCU_STANDIN=ok HW_SIZES=$size run sh "$tests/hw_check.sh" "$dir/bankfree" gemm_tile/wgmma_sw128
[ $status -eq 0 ] && grep -q 'shared-gmma wavefronts ncu SASS [1-9][0-9]* = model' "$dir/out" &&
    grep -q 'TMA instructions ncu SASS [1-9][0-9]* = model' "$dir/out" ||
    fail "hw_check.sh, sm_90 wgmma_sw128: gmma and tma not held: $status: $(cat "$dir/out")"
asked _op_gmma && asked _op_tma || fail "hw_check.sh, sm_90: ncu not asked for gmma and tma"

# sm_75 has no cp.async counter: ldgsts not asked, ldmatrix held.
export STANDIN_CC=75
values gemm_tile/padded $size 75 0
NCU_STANDIN=ok HW_SIZES=$size run sh "$tests/hw_check.sh" "$dir/bankfree" gemm_tile/padded
[ $status -eq 0 ] || fail "hw_check.sh, sm_75 padded: exit $status: $(cat "$dir/out")"
asked _op_ldgsts && fail "hw_check.sh, sm_75: ncu asked for ldgsts"
asked _op_ldsm || fail "hw_check.sh, sm_75: ncu not asked for ldsm"
model_has gemm_tile/padded $size 75 ldgsts && ! grep -q 'ldgsts: not counted on this GPU (sm_75)' "$dir/out" &&
    fail "hw_check.sh, sm_75: the model's ldgsts not reported as not counted: $(cat "$dir/out")"

# counters_check.sh: skipped where bench --counters could not profile, failed
# where its pass failed.
export STANDIN_CC=89
NCU_STANDIN=permission run sh "$tests/counters_check.sh" "$dir/bankfree"
expect_skip "counters_check.sh, permission" "$NCU_PERMISSION_HELP"
NCU_STANDIN=busy run sh "$tests/counters_check.sh" "$dir/bankfree"
[ $status -eq 77 ] && grep -qx 'skipped: ncu cannot profile now: Profiling failed because a driver resource.*' "$dir/out" ||
    fail "counters_check.sh, busy: want a skip; got $status: $(cat "$dir/out")"
NCU_STANDIN=metric run sh "$tests/counters_check.sh" "$dir/bankfree"
expect_fail "counters_check.sh, metric" "exited non-zero"

echo "ncu_check: $failures failed"
[ $failures -eq 0 ]
