# Shared by sanitize.sh, hw_check.sh and counters_check.sh: find a CUDA tool; skip (exit 77, as
# CTest expects) where there is no GPU or no tool.

skip() {
    echo "skipped: $*"
    exit 77
}

# Prints the path of a CUDA tool (compute-sanitizer, ncu), or fails.
find_cuda_tool() {
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
