/* The wgmma path in a build without sm_90a code (its CUDA architectures have
 * no 90): the variants exist, refuse what gemm_tile_wgmma.cu refuses, and
 * say they cannot run. */
#include "gemm_tile/gemm_tile_wgmma.h"

int gemm_tile_wgmma_built(void)
{
    return 0;
}

cudaError_t gemm_tile_wgmma_launch(enum gemm_tile_variant variant, void *c, int c_f16,
                                   const uint16_t *a, const uint16_t *b, int64_t m, int64_t n,
                                   int64_t k, cudaStream_t stream)
{
    (void)c_f16, (void)stream;
    if (gemm_tile_wgmma_refusal(variant, c, a, b, m, n, k) != NULL)
        return cudaErrorInvalidValue;
    return cudaErrorNoKernelImageForDevice;
}
