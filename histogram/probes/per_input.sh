#!/bin/sh
# The per-input table (docs/notes/histogram/): per input, at the bench sizes, ncu's SASS
# shared-memory wavefronts (loads, stores, atomics) of each variant against the
# model's, the pipe counter beside them: tests/hw_check.sh, one input at a time.
# On a GPU machine, from the repository root, after a build:
#   sh histogram/probes/per_input.sh build-gpu/bankfree
set -u
bankfree=${1:-build-gpu/bankfree}
status=0
for variant in shared replicated; do
    for type in u8-uniform u8-same u8-skewed u8-onebank u16-uniform u16-same u16-skewed u16-onebank; do
        HW_TYPE=$type HW_SIZES="33554432 1073741824" \
            sh tests/hw_check.sh "$bankfree" "histogram/$variant" || status=1
    done
done
exit $status
