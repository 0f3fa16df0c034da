/* The wgmma path as gemm_tile.cu's launchers call it (not part of the API:
 * gemm_tile.h is). gemm_tile_wgmma.cu defines these in a build with sm_90a
 * code; gemm_tile_wgmma_absent.c, in one without, says so. */
#ifndef BANKFREE_GEMM_TILE_WGMMA_H
#define BANKFREE_GEMM_TILE_WGMMA_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "gemm_tile/gemm_tile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 if this build has the wgmma kernels' sm_90a code, else 0. */
int gemm_tile_wgmma_built(void);

/* Launches wgmma variant `variant` on arguments gemm_tile.cu has checked (c
 * fp32, or fp16 where c_f16; m, n, k below 2^31, k a multiple of 8). Returns
 * cudaErrorNoKernelImageForDevice on a GPU that is not compute capability 9.0
 * or without sm_90a code, else what setting up and launching it returned. */
cudaError_t gemm_tile_wgmma_launch(enum gemm_tile_variant variant, void *c, int c_f16,
                                   const uint16_t *a, const uint16_t *b, int64_t m, int64_t n,
                                   int64_t k, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
