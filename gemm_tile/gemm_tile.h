/* C = A * B on tensor cores: fp16 A and B, fp32 accumulation, fp32 C (or fp16
 * C), in the "TN" layout: A row-major M x K and B column-major K x N, so that
 * both are read along K, 16 bytes at a time, with no transposes. Shared
 * tiles are filled by cp.async 16-byte copies in a multi-stage pipeline, read
 * by ldmatrix.x4 and multiplied by mma.sync.m16n8k16. The three variants
 * differ only in how a tile lies in shared memory (gemm_tile_layout.h):
 *
 *     gemm_tile_f32(GEMM_TILE_SWIZZLED, d_c, d_a, d_b, m, n, k, stream);
 *
 * fp16 values are passed as their IEEE-754 binary16 bit patterns (uint16_t,
 * the bits of CUDA's __half), so that this header is plain C.
 *
 * Status: compiled for sm_90, never run on a GPU (gemm_tile/README.md). */
#ifndef BANKFREE_GEMM_TILE_H
#define BANKFREE_GEMM_TILE_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

enum gemm_tile_variant {
    GEMM_TILE_ROWMAJOR, /* tile rows of 64 fp16 (128 B): ldmatrix reads 8 rows of one 16-byte
                         * column, all in the same 4 banks: 8-way */
    GEMM_TILE_PADDED,   /* each row 16 B longer (144 B): the 8 rows fall on 8 different groups
                         * of 4 banks */
    GEMM_TILE_SWIZZLED, /* 128-byte rows, 16-byte chunk index ^= row % 8 (CuTe's
                         * Swizzle<3,3,3>): conflict-free with no spare bytes */
    GEMM_TILE_VARIANTS
};

/* C[i * n + j] = sum over p < k of A[i * k + p] * B[j * k + p], i < m, j < n:
 * A row-major m x k, B column-major k x n (column j is k contiguous values),
 * C row-major m x n, all packed (leading dimensions k, k and n). Products
 * are exact in fp32 and summed in fp32, in an order of the kernel's own.
 *
 * k must be a positive multiple of 8 (each row of A and column of B is then
 * whole 16-byte copies); m and n any size >= 1 (edge tiles are predicated).
 * a and b must be 16-byte aligned (cudaMalloc's are). Returns
 * cudaErrorInvalidValue, and launches nothing, for a bad variant, k not a
 * positive multiple of 8, m or n < 1, more than 2^31 - 1 tiles of C (one
 * block each: 128 x 256 elements), a null pointer, or a or b not 16-byte
 * aligned; else the launch's error. */
cudaError_t gemm_tile_f32(enum gemm_tile_variant variant, float *c, const uint16_t *a,
                          const uint16_t *b, int64_t m, int64_t n, int64_t k, cudaStream_t stream);

/* The same, C rounded to fp16 (round to nearest even) as it is stored. */
cudaError_t gemm_tile_f16(enum gemm_tile_variant variant, uint16_t *c, const uint16_t *a,
                          const uint16_t *b, int64_t m, int64_t n, int64_t k, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
