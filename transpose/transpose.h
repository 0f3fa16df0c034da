/* fp32 matrix transpose: out (cols x rows) = in^T, in (rows x cols), both
 * row-major and densely packed, any rows, cols >= 1. Four variants of one
 * kernel, from the conflicting shared tile to its two fixes. */
#ifndef BANKFREE_TRANSPOSE_H
#define BANKFREE_TRANSPOSE_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

enum transpose_variant {
    TRANSPOSE_NAIVE,       /* no shared memory: reads coalesced, writes strided */
    TRANSPOSE_CONFLICTING, /* tile[64][64] read by column: 32-way bank conflict */
    TRANSPOSE_PADDED,      /* tile[64][65]: conflict-free */
    TRANSPOSE_SWIZZLED,    /* tile[64][64], column ^ (row % 32): conflict-free, no padding */
    TRANSPOSE_VARIANTS
};

/* Launches the variant on the stream. Returns cudaErrorInvalidValue for a bad
 * variant, a null pointer, or a size transpose_refusal (transpose_layout.h)
 * refuses: rows or cols < 1, rows x cols past 2^63 - 1, more than 2^31 - 1
 * tiles of 64 rows; else the launch's error. out and in must not overlap. */
cudaError_t transpose_f32(enum transpose_variant variant, float *out, const float *in, int64_t rows,
                          int64_t cols, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
