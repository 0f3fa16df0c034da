#!/bin/sh
# "Copy this" holds: the files a family README lists in the fenced blocks
# under its "## Copy this" heading compile on their own, copied out of the
# repository with their folders: the .cu with nvcc (for sm_90 and sm_75, or
# sm_90a where the file says so), the .c and the API header with a C11
# compiler. The first block is a copy by itself; each later block is an
# add-on, compiled with the first block and nothing else (so two add-ons,
# such as gemm_tile's mma.sync and Hopper paths, each stand without the
# other). No GPU needed.
# usage: copy_check.sh NVCC SOURCE_DIR FAMILY [CC]
nvcc=$1 src=$2 family=$3 cc=${4:-cc}
readme=$src/$family/README.md
# One line a block: its files, space-separated.
blocks=$(awk '/^## /{on = $0 ~ /^## Copy this/; next}
    on && /^```/{if (block) print line; block = !block; line = ""; next}
    on && block {line = line (line == "" ? "" : " ") $0}' "$readme")
if [ -z "$blocks" ]; then
    echo "FAIL: $readme lists no files in a fenced block under '## Copy this'"
    exit 1
fi
base=$(echo "$blocks" | head -1)
cuda_include=$(dirname "$(command -v "$nvcc" || echo "$nvcc")")/../include
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Compiles the files $1 in an empty directory holding only them.
compile() {
    rm -rf "$tmp/copy" && mkdir "$tmp/copy" || return 1
    for f in $1; do
        mkdir -p "$tmp/copy/$(dirname "$f")" && cp "$src/$f" "$tmp/copy/$f" || return 1
    done
    ok=0
    for f in $1; do
        case $f in
        *.cu)
            # A file of sm_90a code (wgmma, setmaxnreg) says so in its opening
            # comment, and builds for that architecture alone.
            # The others build for every GPU from sm_75 (docs/running.md): for
            # sm_90 and for sm_75, where sm_80's instructions compile to a trap.
            archs="-arch=sm_90 -arch=sm_75"
            grep -q 'code=sm_90a' "$tmp/copy/$f" && archs=-gencode=arch=compute_90a,code=sm_90a
            for arch in $archs; do
                "$nvcc" -c $arch -Werror all-warnings -Xcompiler -Wall,-Wextra -I "$tmp/copy" \
                    "$tmp/copy/$f" -o "$tmp/kernels.o" || ok=1
            done
            ;;
        *.c)
            "$cc" -std=c11 -Wall -Wextra -Werror -fsyntax-only -I "$tmp/copy" -I "$cuda_include" \
                "$tmp/copy/$f" || ok=1
            ;;
        */"$family".h)
            printf '#include "%s"\nint main(void) { return 0; }\n' "$f" >"$tmp/api.c"
            "$cc" -std=c11 -Wall -Wextra -Werror -fsyntax-only -I "$tmp/copy" -I "$cuda_include" \
                "$tmp/api.c" || ok=1
            ;;
        esac
    done
    return $ok
}

status=0
compile "$base" || status=1
[ $status -eq 0 ] && echo "$family: $(echo $base | wc -w) files compile on their own: $base"
echo "$blocks" | tail -n +2 | while read -r addon; do
    if compile "$base $addon"; then
        echo "$family: and with $(echo $addon | wc -w) more alone: $addon"
    else
        echo "FAIL: $family: $addon with the first block"
        exit 1
    fi
done || status=1
exit $status
