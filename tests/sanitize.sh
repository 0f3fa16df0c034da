#!/bin/sh
# compute-sanitizer TOOL over `bankfree test FILTER --sizes quick`: every variant on
# the short size list, zero errors allowed.
# usage: sanitize.sh memcheck|racecheck|synccheck|initcheck BANKFREE FILTER
tool=$1 bankfree=$2 filter=$3
. "$(dirname "$0")/lib.sh"

sanitizer=$(find_cuda_tool compute-sanitizer) || skip "compute-sanitizer not found"
require_gpu "$bankfree"
extra=
[ "$tool" = memcheck ] && extra="--leak-check full"
# shellcheck disable=SC2086
exec "$sanitizer" --tool "$tool" --error-exitcode 1 $extra "$bankfree" test "$filter" --sizes quick
