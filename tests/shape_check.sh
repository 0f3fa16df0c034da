#!/bin/sh
# The repository's shape (issue 27), as grep sees it:
#  - a suite says what it times through common/bench.h: no ROW_ enums, no
#    negative variant indices standing for comparators;
#  - no family includes another family's header (what two families share
#    lives in common/);
#  - a family's copyable headers (_layout.h, _model.h, .cuh) include only the
#    leaf headers of common/: hostdev.h, swizzle.h, size.h, bank_model.h.
# usage: shape_check.sh SOURCE_DIR FAMILY...
src=$1
shift
cd "$src" || exit 1
status=0
fail() {
    echo "FAIL: $*"
    status=1
}
for family in "$@"; do
    hits=$(grep -nE '\bROW_|case -1|-1 - |\(enum [a-z_]+_variant\)-' "$family/${family}_suite.c")
    [ -z "$hits" ] || fail "$family/${family}_suite.c numbers rows or comparators by hand:
$hits"
    for other in "$@"; do
        [ "$other" = "$family" ] && continue
        hits=$(grep -rnE "#include \"$other/" "$family" --include='*.c' --include='*.h' \
            --include='*.cu' --include='*.cuh')
        [ -z "$hits" ] || fail "$family includes $other's headers:
$hits"
    done
    for header in "$family"/*_layout.h "$family"/*_model.h "$family"/*.cuh; do
        [ -f "$header" ] || continue
        hits=$(grep -nE '#include "common/' "$header" |
            grep -vE '"common/(hostdev|sm_limits|swizzle|size|bank_model)\.h"')
        [ -z "$hits" ] || fail "$header (copyable) includes the runner's headers:
$hits"
    done
done
[ $status -eq 0 ] && echo "ok: $# families: no hand-numbered rows, no arrow between families," \
    "copyable headers on common/'s leaves"
exit $status
