#!/bin/sh
# The ways table (docs/notes/aes_lut/): per type, at the bench size, ncu's SASS
# shared-memory wavefronts of `shared` and `replicated` against the model's
# (tests/hw_check.sh, one type at a time; CTR's model samples at this size,
# held to within 1%, ECB's exactly). On a GPU machine, from the repository
# root, after a build:
#   sh aes_lut/probes/per_type.sh build-gpu/bankfree [SIZE]
set -u
bankfree=${1:-build-gpu/bankfree}
size=${2:-1073741824}
status=0
for variant in shared replicated; do
    for type in aes128-ctr aes192-ctr aes256-ctr aes128-ecb aes192-ecb aes256-ecb aes128-onebank; do
        HW_TYPE=$type HW_SIZES=$size sh tests/hw_check.sh "$bankfree" "aes_lut/$variant" || status=1
    done
done
exit $status
