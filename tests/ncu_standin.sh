#!/bin/sh
# A stand-in for Nsight Compute's ncu, for the CPU tests (ncu_check.sh,
# test_counters.c), chosen through $BANKFREE_NCU: it runs no program and reads
# no GPU; it answers as ncu does in the case $NCU_STANDIN names, its messages
# in its log (--log-file) where given, as ncu writes them. Where
# $NCU_STANDIN_ARGS is set, it appends its arguments there, one a line.
#   permission   ERR_NVGPUCTRPERM (profiling restricted to administrators); exit 1
#   permission0  the same, but exit 0, as the program itself ran unprofiled
#   busy         another tool (DCGM) holds the counters; exit 1
#   metric       a metric this GPU lacks; exit 1
#   error        another of ncu's errors; exit 1
#   crash        killed by a signal, nothing said
#   ok           profiled: a CSV log with a row for each metric asked, the
#                value of "METRIC VALUE" in $NCU_STANDIN_VALUES (else 0).
#                Under bankfree's counting pass ($BANKFREE_COUNTERS_PASS): a
#                marker, one kernel, and the pass's list of one variant
#                (transpose f32 64x64 conflicting); under `bankfree test`, the
#                line of a clean run on stdout.
# usage: ncu [--log-file FILE] [--metrics M,...] [other ncu options] PROGRAM ARGS...
log="" metrics="" program=""
[ -n "${NCU_STANDIN_ARGS:-}" ] && printf '%s\n' "$@" >>"$NCU_STANDIN_ARGS"
while [ $# -gt 0 ]; do
    case $1 in
    --log-file) log=$2 && shift 2 ;;
    --metrics) metrics=$2 && shift 2 ;;
    --clock-control | --nvtx-include | --target-processes) shift 2 ;;
    -*) shift ;;
    *) program=$1 && shift && break ;;
    esac
done
say() { # one line of ncu's (its words joined), to its log where given
    if [ -n "$log" ]; then echo "$*" >>"$log"; else echo "$*"; fi
}
[ -n "$log" ] && : >"$log"
say "==PROF== Connected to process $$ ($program)"
case ${NCU_STANDIN:-ok} in
permission | permission0)
    say "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU" \
        "Performance Counters on the target device 0. For instructions on enabling permissions and" \
        "to get more information see https://developer.nvidia.com/ERR_NVGPUCTRPERM"
    say "==PROF== Disconnected from process $$"
    [ "$NCU_STANDIN" = permission0 ] && exit 0
    exit 1
    ;;
busy)
    say "==ERROR== An error was reported by the driver"
    say "==ERROR== Profiling failed because a driver resource was unavailable. Ensure that no other" \
        "tool (like DCGM) is concurrently collecting profiling data. See" \
        "https://docs.nvidia.com/nsight-compute/ProfilingGuide/index.html#faq for more details."
    exit 1
    ;;
metric)
    say "==ERROR== Failed to find metric ${metrics%%,*}"
    exit 1
    ;;
error)
    say "==ERROR== Unknown Error on device 0."
    say "==PROF== Disconnected from process $$"
    exit 1
    ;;
crash)
    kill -SEGV $$
    exit 1
    ;;
esac
value() { # metric: its value from $NCU_STANDIN_VALUES, else 0
    v=""
    [ -n "${NCU_STANDIN_VALUES:-}" ] && v=$(awk -v m="$1" '$1 == m { print $2; exit }' "$NCU_STANDIN_VALUES")
    echo "${v:-0}"
}
rows() { # id kernel: a row for each metric asked
    for m in $(echo "$metrics" | tr ',' ' '); do
        printf '"%s","%s","%s","","%s","","%s"\n' "$1" $$ "$2" "$m" "$(value "$m")"
    done
}
{
    printf '"ID","Process ID","Kernel Name","Section Name","Metric Name","Metric Unit","Metric Value"\n'
    [ -n "${BANKFREE_COUNTERS_PASS:-}" ] && rows 0 "bankfree_counters_mark()"
    rows 1 "stand_in_kernel(float *)"
} >>"${log:-/dev/stdout}"
if [ -n "${BANKFREE_COUNTERS_PASS:-}" ]; then
    printf 'transpose\tf32\t64x64\tconflicting\n' >"$BANKFREE_COUNTERS_PASS"
elif [ "${1:-}" = test ]; then
    echo "# 1 passed, 0 failed, 0 skipped"
fi
say "==PROF== Disconnected from process $$"
exit 0
