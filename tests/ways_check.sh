#!/bin/sh
# docs/bank-rules.md's worked examples, each as the `bankfree ways` command the
# doc writes beside it: every command gives the wavefronts and ideal the doc
# says, and where the doc names a family's site with the same access, that
# site's ways and worst request (`bankfree model ... --sites`) equal the
# command's (its total ways, its costliest request).
# usage: ways_check.sh BANKFREE DOC
bankfree=$1
doc=$2
status=0
rows=0
fail() {
    echo "FAIL: $*"
    status=1
}
tab=$(printf '\t')
# The table's rows: | example | `bankfree ways ...` | wavefronts | ideal | family |,
# as command<TAB>wavefronts<TAB>ideal<TAB>family (the backquotes dropped).
table=$(awk -F' \\| ' '/^\| .* \| `bankfree ways / {
    cmd = $2; gsub(/`/, "", cmd); fam = $5; sub(/ *\|$/, "", fam); gsub(/`/, "", fam)
    printf "%s\t%s\t%s\t%s\n", cmd, $3, $4, fam }' "$doc")
[ -n "$table" ] || fail "$doc: no table of bankfree ways commands"
while IFS="$tab" read -r cmd want_wf want_ideal family; do
    [ -n "$cmd" ] || continue
    rows=$((rows + 1))
    # The command as the doc writes it, the runner's path for its name.
    csv=$(eval "\"$bankfree\" ${cmd#bankfree } --format csv" 2>/dev/null)
    [ $? -eq 0 ] || fail "$cmd: exit code not 0"
    # The total row: its wavefronts and ideal are the 4th and 3rd fields from
    # its end; the costliest request: the most wavefronts of a request row.
    got=$(printf '%s\n' "$csv" | awk -F, '
        NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
        $1 == "total" { wf = $col["wavefronts"]; ideal = $col["ideal"]; ways = $col["ways"]
                        if ($col["conflicts"] != wf - ideal) bad = bad " total"; next }
        { w = $col["wavefronts"] + 0; if (w > worst) worst = w
          if ($col["conflicts"] != $col["wavefronts"] - $col["ideal"]) bad = bad " " $1 }
        END { printf "%s %s %s %d%s", wf, ideal, ways, worst, bad ? " conflicts:" bad : "" }')
    set -- $got
    # conflicts = wavefronts - ideal, in every row (ncu's bank conflicts)
    [ $# -eq 4 ] || fail "$cmd: the conflicts column is not wavefronts - ideal in rows: ${got#* * * * }"
    if [ "$1" != "$want_wf" ] || [ "$2" != "$want_ideal" ]; then
        fail "$cmd: $1 wavefronts, ideal $2; $doc says $want_wf and $want_ideal"
    fi
    [ -n "$family" ] || continue
    # "transpose/conflicting --size 64x64: tile read (store phase)"
    filter=${family%%:*}
    site=${family#*: }
    site_row=$(eval "\"$bankfree\" model $filter --sites --format csv" 2>/dev/null |
        awk -F, -v site="$site" '
        NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
        $col["site"] == site { print $col["ways"], $col["worst"]; exit }')
    if [ -z "$site_row" ]; then
        fail "$cmd: bankfree model $filter has no site '$site'"
    elif [ "$site_row" != "$3 $4" ]; then
        fail "$cmd: ways $3, worst request $4; $filter's '$site': ways and worst $site_row"
    fi
done <<EOF
$table
EOF
echo "$rows commands of $doc checked"
exit $status
