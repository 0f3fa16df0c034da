/* The registers-only mma.sync loop (gemm_tile_ceiling.h): 652 TFLOP/s on an
 * H100 at 1980 MHz (`bankfree bench gemm_tile`; docs/notes/gemm_tile/). */
#include "gemm_tile/gemm_tile_ceiling.h"

#include "common/sm_limits.h"

__global__ void __launch_bounds__(GEMM_TILE_CEILING_THREADS)
    mma_sync_ceiling(float *sink, int iterations)
{
#if !BF_SM80
    (void)sink, (void)iterations;
    __trap(); /* mma.m16n8k16 is sm_80's: never launched below it */
#else
    /* Operands that depend on the thread, so that no mma folds away. */
    const uint32_t t = threadIdx.x + 1u;
    const uint32_t a[4] = {0x3c003c00u ^ t, 0x3c003c00u ^ (t << 1), 0x3c003c00u ^ (t << 2),
                           0x3c003c00u ^ (t << 3)};
    const uint32_t b0 = 0x38003800u ^ t, b1 = 0x38003800u ^ (t << 4);
    float acc[GEMM_TILE_CEILING_CHAINS][4] = {};
    for (int it = 0; it < iterations; ++it)
#pragma unroll
        for (int j = 0; j < GEMM_TILE_CEILING_CHAINS; ++j)
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                         "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                         : "+f"(acc[j][0]), "+f"(acc[j][1]), "+f"(acc[j][2]), "+f"(acc[j][3])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j < GEMM_TILE_CEILING_CHAINS; ++j)
        sum += acc[j][0] + acc[j][1] + acc[j][2] + acc[j][3];
    sink[blockIdx.x * blockDim.x + threadIdx.x] = sum;
#endif
}

extern "C" double gemm_tile_ceiling_flops(int blocks, int iterations)
{
    return (double)blocks * (GEMM_TILE_CEILING_THREADS / 32) * (double)iterations *
           GEMM_TILE_CEILING_CHAINS * (2.0 * 16 * 8 * 16);
}

extern "C" cudaError_t gemm_tile_ceiling(float *sink, int blocks, int iterations,
                                         cudaStream_t stream)
{
    if (sink == NULL || blocks < 1 || iterations < 1)
        return cudaErrorInvalidValue;
    int sm80 = 0;
    const cudaError_t err = bf_kernel_built_for((const void *)mma_sync_ceiling, 80, &sm80);
    if (err != cudaSuccess)
        return err;
    if (!sm80)
        return cudaErrorNoKernelImageForDevice;
    mma_sync_ceiling<<<blocks, GEMM_TILE_CEILING_THREADS, 0, stream>>>(sink, iterations);
    return cudaGetLastError();
}
