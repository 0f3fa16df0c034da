#include "common/validate.h"

#include <string.h>

cudaError_t bf_poison(void *d, size_t bytes, cudaStream_t stream)
{
    return cudaMemsetAsync(d, 0xff, bytes, stream);
}

size_t bf_compare_exact(const void *got, const void *want, size_t n, size_t elem_bytes,
                        size_t *first)
{
    const unsigned char *g = got, *w = want;
    size_t bad = 0;
    *first = n;
    if (n == 0 || memcmp(g, w, n * elem_bytes) == 0)
        return 0; /* the usual case, at memcmp's speed; the count only for a wrong one */
    for (size_t i = 0; i < n; ++i) {
        if (memcmp(g + i * elem_bytes, w + i * elem_bytes, elem_bytes) != 0) {
            if (bad++ == 0)
                *first = i;
        }
    }
    return bad;
}
