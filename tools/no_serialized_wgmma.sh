#!/bin/sh
# The CUDA compiler launcher of the sm_90a objects under BANKFREE_WERROR
# (cmake/bankfree.cmake): runs the compile given and fails it where ptxas
# serialized wgmma.mma_async (C7514, "Potential Performance Loss"), which
# ptxas reports as info, so -Werror=all-warnings lets it pass.
#   sh tools/no_serialized_wgmma.sh COMPILER ARGS...
log=$(mktemp) || exit 1
rc=0
"$@" >"$log" 2>&1 || rc=$?
cat "$log" >&2
if [ "$rc" -eq 0 ] && grep -q 'C7514' "$log"; then
    echo "error: ptxas serialized wgmma (C7514 above): keep the accumulators in registers" >&2
    rc=1
fi
rm -f "$log"
exit "$rc"
