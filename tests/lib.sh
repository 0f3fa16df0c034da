# Shared by sanitize.sh, hw_check.sh and counters_check.sh: find a CUDA tool; skip (exit 77, as
# CTest expects) where there is no GPU or no tool, or where ncu cannot profile.

skip() {
    echo "skipped: $*"
    exit 77
}

# Prints the path of a CUDA tool (compute-sanitizer, ncu), or fails. For ncu,
# $BANKFREE_NCU where set, as bankfree's --counters takes it (bf_ncu_path): a
# stand-in there drives the scripts without a GPU's profiler.
find_cuda_tool() {
    if [ "$1" = ncu ] && [ -n "${BANKFREE_NCU:-}" ]; then
        [ -f "$BANKFREE_NCU" ] && [ -x "$BANKFREE_NCU" ] || return 1
        echo "$BANKFREE_NCU"
        return 0
    fi
    if command -v "$1" 2>/dev/null; then
        return 0
    fi
    for dir in "${CUDA_HOME:-/usr/local/cuda}/bin" /usr/local/cuda/bin \
        /opt/nvidia/nsight-compute/*; do
        if [ -x "$dir/$1" ]; then
            echo "$dir/$1"
            return 0
        fi
    done
    return 1
}

# Exits 77 when bankfree sees no GPU, 1 when it cannot use the one it sees.
require_gpu() {
    "$1" device >/dev/null
    status=$?
    [ $status -eq 77 ] && skip "no CUDA GPU"
    [ $status -eq 0 ] || exit 1
}

# The one line that says how to let ncu read the counters (bankfree's own,
# BF_NCU_PERMISSION_HELP in common/counters.h, says the same).
NCU_PERMISSION_HELP="ncu may not read this GPU's performance counters (ERR_NVGPUCTRPERM: profiling is\
 restricted to administrators): run as root, or set the nvidia module option\
 NVreg_RestrictProfilingToAdminUsers=0 (a file in /etc/modprobe.d/ with the line\
 'options nvidia NVreg_RestrictProfilingToAdminUsers=0', then reboot); see\
 https://developer.nvidia.com/ERR_NVGPUCTRPERM"

# What ncu's output (FILE..., its log and the program's output, or bankfree
# --counters' messages) says against a run, the most telling first, as
# bf_ncu_verdict (common/counters.c) reads it: "permission" (ERR_NVGPUCTRPERM),
# "busy: LINE" (another tool holds the counters), "metric: LINE" (a metric the
# GPU lacks), or nothing.
ncu_trouble() {
    if grep -q -e ERR_NVGPUCTRPERM -e 'does not have permission to' "$@" 2>/dev/null; then
        echo permission
    elif grep -q 'driver resource was unavailable' "$@" 2>/dev/null; then
        echo "busy: $(ncu_said 'driver resource was unavailable' "$@")"
    elif grep -q -E 'Failed to (find metric|access the following)' "$@" 2>/dev/null; then
        echo "metric: $(ncu_said 'Failed to (find metric|access the following)' "$@")"
    fi
}

# The first line of FILE... that matches the extended regular expression, in
# ncu's words alone: without its "==ERROR== ", nor what bankfree said before them.
ncu_said() { # pattern FILE...
    pattern=$1
    shift
    grep -h -E "$pattern" "$@" 2>/dev/null | head -n 1 | sed -e 's/^==[A-Z]*== //' \
        -e 's/^bankfree: .*: Profiling failed/Profiling failed/' -e 's/^bankfree: .*: Failed to/Failed to/'
}

# Exits 77 with one line where ncu's output (FILE...) says it cannot profile
# here: no permission to read the counters, or another tool holds them.
ncu_skip_if_cannot_profile() {
    trouble=$(ncu_trouble "$@")
    case $trouble in
    permission) skip "$NCU_PERMISSION_HELP" ;;
    busy:*) skip "ncu cannot profile now: ${trouble#busy: }" ;;
    esac
}
