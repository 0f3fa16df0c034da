#!/bin/sh
# The repository's shape (issue 27), as grep sees it:
#  - a suite says what it times through common/bench.h: no ROW_ enums, no
#    negative variant indices standing for comparators;
#  - no family includes another family's header (what two families share
#    lives in common/);
#  - a family's copyable headers (_layout.h, _model.h, .cuh) include only the
#    leaf headers of common/: hostdev.h, sm_limits.h, swizzle.h, size.h,
#    bank_model.h;
#  - READMEs are reference documentation (issue 43): the top one at most 150
#    lines, a family's at most 250; no date, UTC stamp or commit hash in a
#    README or a source file (dated runs live in docs/notes/, provenance in
#    docs/results' metadata); every README section a source file cites
#    ('README, "Section"' or 'FAMILY/README.md, "Section"') is a heading there;
#    the READMEs' figures are docs/results' (tools/readme_figures.py --check).
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

# READMEs: their length.
lines=$(wc -l <README.md)
[ "$lines" -le 150 ] || fail "README.md has $lines lines (at most 150)"
for family in "$@"; do
    lines=$(wc -l <"$family/README.md")
    [ "$lines" -le 250 ] || fail "$family/README.md has $lines lines (at most 250)"
done

# No date, UTC stamp or commit hash (a 7- to 40-digit hex word with a digit and
# a letter) in the READMEs or the tracked sources.
sources=$(git ls-files 2>/dev/null | grep -E '(^|/)README\.md$|\.(c|h|cu|cuh|sh|cmake|py)$|(^|/)CMakeLists\.txt$|^\.ci/' |
    grep -v '^docs/')
[ -n "$sources" ] || sources=$(find . -path ./docs -prune -o -path './build*' -prune -o \
    -type f \( -name README.md -o -name '*.[ch]' -o -name '*.cu' -o -name '*.cuh' \
    -o -name '*.sh' -o -name '*.cmake' -o -name '*.py' -o -name CMakeLists.txt \) -print)
# In a source file only its comments count (lines that open or continue one:
# /*, *, //, #), not strings such as a date format or a test's JSON.
comments() { # grep -n output on stdin: README lines, and source comment lines
    grep -E '^[^:]*README\.md:|^[^:]*:[0-9]+:[[:space:]]*(/\*|\*|//|#)|/\*|//|[[:space:]]#[[:space:]]' |
        grep -v '^tests/shape_check.sh:'
}
# shellcheck disable=SC2086 # one word a file
hits=$(grep -nE '\b20[0-9]{2}-[01][0-9]-[0-3][0-9]\b|\bUTC\b' $sources | comments)
[ -z "$hits" ] || fail "dates or UTC stamps (dated runs go to docs/notes/):
$hits"
# shellcheck disable=SC2086
hits=$(grep -nE '(^|[^0-9A-Za-z_./-])([0-9a-f]{7,12}|[0-9a-f]{40})([^0-9A-Za-z_]|$)' $sources |
    comments | grep -E '(^|[^0-9A-Za-z_])[0-9a-f]*[0-9][0-9a-f]*([^0-9A-Za-z_]|$)' |
    while IFS= read -r line; do # a word with a digit and a letter: not a plain number or word
        words=$(echo "${line#*:*:}" | grep -oE '(^|[^0-9A-Za-z_./-])([0-9a-f]{7,12}|[0-9a-f]{40})([^0-9A-Za-z_]|$)' |
            grep -E '[0-9]' | grep -E '[a-f]')
        [ -z "$words" ] || echo "$line"
    done)
[ -z "$hits" ] || fail "commit hashes (provenance goes to docs/results' metadata):
$hits"

# Every README section a source file cites exists.
# shellcheck disable=SC2086
git ls-files 2>/dev/null | grep -E '\.(c|h|cu|cuh|sh)$' |
    grep -v '^tests/shape_check.sh$' |
    xargs grep -noE '([a-z_]+/)?README(\.md)?,? *"[^"]+"' 2>/dev/null >"${TMPDIR:-/tmp}/cites.$$"
while IFS= read -r line; do
    file=${line%%:*}
    cite=${line#*:*:}
    section=$(echo "$cite" | sed 's/.*"\(.*\)"/\1/')
    case $cite in
    [a-z]*/README*) readme=${cite%%/README*}/README.md ;;
    *) readme=$(dirname "$file")/README.md ;;
    esac
    [ "$(dirname "$file")" = . ] && case $cite in README*) readme=README.md ;; esac
    if [ ! -f "$readme" ] || ! grep -qE "^#+ .*$(echo "$section" | sed 's/[][\.*^$/]/\\&/g')" "$readme"; then
        fail "$file cites $readme, \"$section\": no such heading"
    fi
done <"${TMPDIR:-/tmp}/cites.$$"
rm -f "${TMPDIR:-/tmp}/cites.$$"

# The READMEs' figures are the ones docs/results holds (tools/readme_figures.py).
if command -v python3 >/dev/null 2>&1; then
    python3 tools/readme_figures.py --check >/dev/null ||
        fail "README figures differ from docs/results: run python3 tools/readme_figures.py"
fi

[ $status -eq 0 ] && echo "ok: $# families: no hand-numbered rows, no arrow between families," \
    "copyable headers on common/'s leaves; READMEs within their lines, no dates or hashes," \
    "every cited README section there"
exit $status
