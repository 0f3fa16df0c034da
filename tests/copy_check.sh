#!/bin/sh
# "Copy this" holds: the files a family README lists in the fenced block under
# its "## Copy this" heading compile on their own, copied out of the
# repository with their folders: the .cu with nvcc (for sm_90 and sm_75, or
# sm_90a where the file says so), the .c and the API header with a C11
# compiler. No GPU needed.
# usage: copy_check.sh NVCC SOURCE_DIR FAMILY [CC]
nvcc=$1 src=$2 family=$3 cc=${4:-cc}
readme=$src/$family/README.md
files=$(awk '/^## /{on = $0 ~ /^## Copy this/; next} on && /^```/{block = !block; next} on && block' \
    "$readme")
if [ -z "$files" ]; then
    echo "FAIL: $readme lists no files in a fenced block under '## Copy this'"
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in $files; do
    mkdir -p "$tmp/$(dirname "$f")" && cp "$src/$f" "$tmp/$f" || exit 1
done
cuda_include=$(dirname "$(command -v "$nvcc" || echo "$nvcc")")/../include
status=0
for f in $files; do
    case $f in
    *.cu)
        # A file of sm_90a code (wgmma, setmaxnreg) says so in its opening
        # comment, and builds for that architecture alone.
        # The others build for every GPU from sm_75 (docs/running.md): for
        # sm_90 and for sm_75, where sm_80's instructions compile to a trap.
        archs="-arch=sm_90 -arch=sm_75"
        grep -q 'code=sm_90a' "$tmp/$f" && archs=-gencode=arch=compute_90a,code=sm_90a
        for arch in $archs; do
            "$nvcc" -c $arch -Werror all-warnings -Xcompiler -Wall,-Wextra -I "$tmp" "$tmp/$f" \
                -o "$tmp/kernels.o" || status=1
        done
        ;;
    *.c)
        "$cc" -std=c11 -Wall -Wextra -Werror -fsyntax-only -I "$tmp" -I "$cuda_include" \
            "$tmp/$f" || status=1
        ;;
    */"$family".h)
        printf '#include "%s"\nint main(void) { return 0; }\n' "$f" >"$tmp/api.c"
        "$cc" -std=c11 -Wall -Wextra -Werror -fsyntax-only -I "$tmp" -I "$cuda_include" \
            "$tmp/api.c" || status=1
        ;;
    esac
done
[ $status -eq 0 ] && echo "$family: $(echo $files | wc -w) files compile on their own: $(echo $files)"
exit $status
