/* Matrix transpose of any element size: out (cols x rows) = in^T, in (rows x
 * cols), both row-major and densely packed, any rows, cols >= 1. Elements of
 * 1, 2, 4, 8 or 16 bytes are moved bit for bit (their type does not matter).
 * Five variants of one kernel, from the conflicting shared tile to its fixes. */
#ifndef BANKFREE_TRANSPOSE_H
#define BANKFREE_TRANSPOSE_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

enum transpose_variant {
    TRANSPOSE_NAIVE,       /* no shared memory: reads coalesced, writes strided */
    TRANSPOSE_CONFLICTING, /* tile[64][64] read by column: 32-way bank conflict (fp32) */
    TRANSPOSE_PADDED,      /* a spare max(4, element) bytes a tile row: conflict-free */
    TRANSPOSE_SWIZZLED,    /* no padding, 4-byte words (or elements) XORed with the row */
    TRANSPOSE_PACKED,      /* 1- and 2-byte elements: 4x4 / 2x2 blocks transposed in registers,
                            * each shared access 16 / 8 bytes, padded: conflict-free */
    TRANSPOSE_VARIANTS
};

/* Launches the variant on the stream for elements of elem_bytes (1, 2, 4, 8
 * or 16). Returns cudaErrorInvalidValue for what transpose_refusal_elem
 * (transpose_layout.h) refuses: another element size, a bad variant, packed
 * for elements of 4 bytes or more, rows or cols < 1, rows x cols past
 * 2^63 - 1 (or its bytes), more than 2^31 - 1 tiles of 64 rows; and for a
 * null pointer or one not aligned to elem_bytes. Else the launch's error.
 * out and in must not overlap. Packed picks one of three kernels by shape
 * and pointers (transpose_packed_layout.h says which where). */
cudaError_t transpose(enum transpose_variant variant, int elem_bytes, void *out, const void *in,
                      int64_t rows, int64_t cols, cudaStream_t stream);

/* transpose(variant, 4, out, in, rows, cols, stream): the fp32 launcher, as
 * it always was (it refuses packed, which is for smaller elements). */
cudaError_t transpose_f32(enum transpose_variant variant, float *out, const float *in, int64_t rows,
                          int64_t cols, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
