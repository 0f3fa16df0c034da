/* The wgmma path in a build without sm_90a code (its CUDA architectures have
 * no 90): the variants exist, and say they cannot run. */
#include "gemm_tile/gemm_tile_wgmma.h"

int gemm_tile_wgmma_built(void)
{
    return 0;
}

cudaError_t gemm_tile_wgmma_launch(enum gemm_tile_variant variant, void *c, int c_f16,
                                   const uint16_t *a, const uint16_t *b, int64_t m, int64_t n,
                                   int64_t k, cudaStream_t stream)
{
    (void)variant, (void)c, (void)c_f16, (void)a, (void)b, (void)m, (void)n, (void)k, (void)stream;
    return cudaErrorNoKernelImageForDevice;
}
