/* The Hopper path's own entry: the wgmma variants of gemm_tile.h, which
 * gemm_tile.cu's gemm_tile_f32 and gemm_tile_f16 call, and which a copy of
 * this path without gemm_tile.cu calls directly:
 *
 *     gemm_tile_wgmma_launch(GEMM_TILE_WGMMA_SW128, d_c, 0, d_a, d_b, m, n, k, stream);
 *
 * gemm_tile_wgmma.cu defines these in a build with sm_90a code;
 * gemm_tile_wgmma_absent.c, in one without, says so. Plain C. */
#ifndef BANKFREE_GEMM_TILE_WGMMA_H
#define BANKFREE_GEMM_TILE_WGMMA_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "gemm_tile/gemm_tile.h"
#include "gemm_tile/gemm_tile_refusal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 if this build has the wgmma kernels' sm_90a code, else 0. */
int gemm_tile_wgmma_built(void);

/* C = A * B as gemm_tile_f32 (c_f16 0: c is float *) or gemm_tile_f16
 * (c_f16 nonzero: c is fp16 bits, uint16_t *) compute it, for wgmma variant
 * `variant` (GEMM_TILE_WGMMA_INTERLEAVE .. _SW128). Returns
 * cudaErrorInvalidValue, and launches nothing, for an mma.sync or bad
 * variant and for whatever gemm_tile.h's wgmma variants refuse
 * (gemm_tile_wgmma_refusal); cudaErrorNoKernelImageForDevice, launching
 * nothing, on a GPU that is not compute capability 9.0 or from a build
 * without sm_90a code; else what setting up and launching it returned. */
cudaError_t gemm_tile_wgmma_launch(enum gemm_tile_variant variant, void *c, int c_f16,
                                   const uint16_t *a, const uint16_t *b, int64_t m, int64_t n,
                                   int64_t k, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

/* Why gemm_tile_wgmma_launch refuses these arguments (NULL: it does not):
 * gemm_tile_launch_refusal's rule, and only the wgmma variants. */
static inline const char *gemm_tile_wgmma_refusal(enum gemm_tile_variant variant, const void *c,
                                                  const void *a, const void *b, int64_t m,
                                                  int64_t n, int64_t k)
{
    if ((unsigned)variant < GEMM_TILE_MMA_SYNC_VARIANTS)
        return "not a wgmma variant";
    return gemm_tile_launch_refusal(variant, c, a, b, m, n, k);
}

#endif
