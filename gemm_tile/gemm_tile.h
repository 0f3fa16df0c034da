/* C = A * B on tensor cores: fp16 A and B, fp32 accumulation, fp32 C (or fp16
 * C), in the "TN" layout: A row-major M x K and B column-major K x N, so that
 * both are read along K, 16 bytes at a time, with no transposes. Two paths,
 * one API:
 *
 *   - mma.sync (sm_80 and later: Ampere, Ada, Hopper; gemm_tile.cu): shared
 *     tiles filled by cp.async 16-byte copies in a multi-stage pipeline, read
 *     by ldmatrix.x4 and multiplied by mma.sync.m16n8k16. Its three variants
 *     differ only in how a tile lies in shared memory (gemm_tile_layout.h).
 *   - wgmma (sm_90a only: H100, H200; gemm_tile_wgmma.cu): tiles loaded by the
 *     tensor memory accelerator (TMA), which writes them already swizzled, and
 *     multiplied by wgmma.mma_async straight from shared memory. Its four
 *     variants are the layouts wgmma accepts (gemm_tile_wgmma_layout.h).
 *     Copied without gemm_tile.cu, its entry is gemm_tile_wgmma_launch
 *     (gemm_tile_wgmma.h), which refuses what these functions refuse.
 *
 *     gemm_tile_f32(GEMM_TILE_WGMMA_SW128, d_c, d_a, d_b, m, n, k, stream);
 *
 * fp16 values are passed as their IEEE-754 binary16 bit patterns (uint16_t,
 * the bits of CUDA's __half), so that this header is plain C.
 *
 * Every variant is tested, profiled and timed on an H100
 * (docs/notes/gemm_tile/). */
#ifndef BANKFREE_GEMM_TILE_H
#define BANKFREE_GEMM_TILE_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

enum gemm_tile_variant {
    /* mma.sync, cp.async and ldmatrix (sm_80 and later) */
    GEMM_TILE_ROWMAJOR, /* tile rows of 64 fp16 (128 B): ldmatrix reads 8 rows of one 16-byte
                         * column, all in the same 4 banks: 8-way */
    GEMM_TILE_PADDED,   /* each row 16 B longer (144 B): the 8 rows fall on 8 different groups
                         * of 4 banks */
    GEMM_TILE_SWIZZLED, /* 128-byte rows, 16-byte chunk index ^= row % 8 (CuTe's
                         * Swizzle<3,3,3>): conflict-free with no spare bytes */
    /* TMA and wgmma (sm_90a): the tile in each layout wgmma reads, TMA writing it */
    GEMM_TILE_WGMMA_INTERLEAVE, /* no swizzle: 8 x 16-byte "core matrices", each 128
                                 * contiguous bytes; TMA writes 16-byte-wide columns */
    GEMM_TILE_WGMMA_SW32,       /* 32-byte rows, chunk ^= (row / 4) % 2 (TMA's 32B swizzle) */
    GEMM_TILE_WGMMA_SW64,       /* 64-byte rows, chunk ^= (row / 2) % 4 (TMA's 64B swizzle) */
    GEMM_TILE_WGMMA_SW128,      /* 128-byte rows, chunk ^= row % 8 (TMA's 128B swizzle): the
                                 * swizzled variant's layout, byte for byte */
    GEMM_TILE_VARIANTS
};
/* The first GEMM_TILE_MMA_SYNC_VARIANTS variants are the mma.sync path, the
 * rest the wgmma path. */
#define GEMM_TILE_MMA_SYNC_VARIANTS 3

/* C[i * n + j] = sum over p < k of A[i * k + p] * B[j * k + p], i < m, j < n:
 * A row-major m x k, B column-major k x n (column j is k contiguous values),
 * C row-major m x n, all packed (leading dimensions k, k and n). Products
 * are exact in fp32 and summed in fp32, in an order of the kernel's own.
 *
 * k must be a positive multiple of 8 (each row of A and column of B is then
 * whole 16-byte pieces); m and n any size >= 1 (edge tiles are predicated, or
 * zero-filled by TMA). a and b must be 16-byte aligned (cudaMalloc's are).
 * Returns cudaErrorInvalidValue, and launches nothing, for a bad variant, k
 * not a positive multiple of 8, m or n < 1, more than 2^31 - 1 tiles of C
 * (counted as 128 x 128 elements each), a null pointer, or a or b not 16-byte
 * aligned;
 * for the wgmma variants also m, n or k of 2^31 or more (TMA's coordinates
 * are 32-bit). One rule decides: gemm_tile_refusal.h. A wgmma variant
 * returns cudaErrorNoKernelImageForDevice, and launches nothing, on a GPU
 * that is not compute capability 9.0 or from a build without sm_90a code;
 * an mma.sync variant on a GPU below compute capability 8.0 (cp.async,
 * mma.m16n8k16), from a build without code for 8.0 or later, and `padded`
 * where a block may not have the 108 KiB of its narrow tile's stages
 * (sm_86, sm_89, sm_120: 99 KiB). gemm_tile_supported says which
 * beforehand.
 * Else the launch's error. */
cudaError_t gemm_tile_f32(enum gemm_tile_variant variant, float *c, const uint16_t *a,
                          const uint16_t *b, int64_t m, int64_t n, int64_t k, cudaStream_t stream);

/* The same, C rounded to fp16 (round to nearest even) as it is stored. */
cudaError_t gemm_tile_f16(enum gemm_tile_variant variant, uint16_t *c, const uint16_t *a,
                          const uint16_t *b, int64_t m, int64_t n, int64_t k, cudaStream_t stream);

/* cudaSuccess if `variant` can run on CUDA device `device`;
 * cudaErrorNoKernelImageForDevice if it needs code this build lacks (sm_90a
 * for the wgmma variants, 8.0 or later for the others), a GPU of another
 * compute capability or more shared memory a block (above);
 * cudaErrorInvalidValue for a bad variant; a CUDA error if the device cannot be
 * asked. device < 0 asks only whether this build has the code. */
cudaError_t gemm_tile_supported(enum gemm_tile_variant variant, int device);

#ifdef __cplusplus
}
#endif

#endif
