#include "transpose/transpose_ref.h"

#include <string.h>

/* Blocked so that both matrices are walked a cache-friendly block at a time;
 * memcpy of a constant size compiles to one move. */
#define TRANSPOSE_REF_BLOCKED(E)                                                                   \
    for (int64_t r0 = 0; r0 < rows; r0 += B)                                                       \
        for (int64_t c0 = 0; c0 < cols; c0 += B)                                                   \
            for (int64_t r = r0; r < r0 + B && r < rows; ++r)                                      \
                for (int64_t c = c0; c < c0 + B && c < cols; ++c)                                  \
                    memcpy(dst + (c * rows + r) * (E), src + (r * cols + c) * (E), (E));

void transpose_ref(void *out, const void *in, int elem_bytes, int64_t rows, int64_t cols)
{
    enum { B = 64 };
    unsigned char *dst = out;
    const unsigned char *src = in;
    switch (elem_bytes) {
    case 1:
        TRANSPOSE_REF_BLOCKED(1);
        break;
    case 2:
        TRANSPOSE_REF_BLOCKED(2);
        break;
    case 4:
        TRANSPOSE_REF_BLOCKED(4);
        break;
    case 8:
        TRANSPOSE_REF_BLOCKED(8);
        break;
    case 16:
        TRANSPOSE_REF_BLOCKED(16);
        break;
    default:
        TRANSPOSE_REF_BLOCKED((int64_t)elem_bytes);
        break;
    }
}

void transpose_ref_f32(float *out, const float *in, int64_t rows, int64_t cols)
{
    transpose_ref(out, in, (int)sizeof(float), rows, cols);
}
