#include "transpose/transpose_ref.h"

/* Blocked so that both matrices are walked a cache-friendly block at a time. */
void transpose_ref_f32(float *out, const float *in, int64_t rows, int64_t cols)
{
    enum { B = 64 };
    for (int64_t r0 = 0; r0 < rows; r0 += B)
        for (int64_t c0 = 0; c0 < cols; c0 += B)
            for (int64_t r = r0; r < r0 + B && r < rows; ++r)
                for (int64_t c = c0; c < c0 + B && c < cols; ++c)
                    out[c * rows + r] = in[r * cols + c];
}
