/* The wgmma ceiling (gemm_tile_ceiling.h): sm_90a code, built beside
 * gemm_tile_wgmma.cu. */
#include "gemm_tile/gemm_tile_ceiling.h"
#include "gemm_tile/gemm_tile_hopper.cuh"
#include "gemm_tile/gemm_tile_wgmma_layout.h"

/* Shared memory: one A tile of 64 rows and one B tile of 256 rows, 128-byte
 * swizzled, on a 1024-byte boundary. */
#define CEILING_A_BYTES (GEMM_TILE_WGMMA_M * 128u)
#define CEILING_SMEM    (CEILING_A_BYTES + GEMM_TILE_WGMMA_BN * 128u + 1024u)

__global__ void __launch_bounds__(GEMM_TILE_WGMMA_CEILING_THREADS, 1)
    wgmma_ceiling(float *sink, int iterations)
{
    extern __shared__ __align__(1024) unsigned char dynamic_smem[];
    const uint32_t smem = ((uint32_t)__cvta_generic_to_shared(dynamic_smem) + 1023u) & ~1023u;
    unsigned char *tiles = dynamic_smem + (smem - (uint32_t)__cvta_generic_to_shared(dynamic_smem));
    /* fp16 values in [1/16, 1/8) with thread-dependent bits (never zeros). */
    for (uint32_t i = threadIdx.x; i < (CEILING_SMEM - 1024u) / 2; i += blockDim.x)
        reinterpret_cast<uint16_t *>(tiles)[i] = (uint16_t)(0x2c00u | (i * 2654435761u >> 22));
    /* Written by the threads, read by wgmma (the async proxy): fence, then barrier. */
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    float acc[128];
#pragma unroll
    for (int i = 0; i < 128; ++i)
        acc[i] = 0.0f;
    for (int it = 0; it < iterations; ++it) {
        wgmma_fence();
        wgmma_ktile<GEMM_TILE_WGMMA_SW128, GEMM_TILE_WGMMA_BN>(acc, smem, GEMM_TILE_WGMMA_M, 0,
                                                               smem + CEILING_A_BYTES, 1);
        wgmma_commit();
        wgmma_wait<1>();
    }
    wgmma_wait<0>();
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < 128; ++i) {
        wgmma_fence_operand(acc[i]);
        sum += acc[i];
    }
    sink[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

extern "C" double gemm_tile_wgmma_ceiling_flops(int blocks, int iterations)
{
    return (double)blocks * (GEMM_TILE_WGMMA_CEILING_THREADS / 128) * (double)iterations *
           GEMM_TILE_WGMMA_KK * (2.0 * GEMM_TILE_WGMMA_M * GEMM_TILE_WGMMA_BN * 16);
}

extern "C" cudaError_t gemm_tile_wgmma_ceiling(float *sink, int blocks, int iterations,
                                               cudaStream_t stream)
{
    if (sink == NULL || blocks < 1 || iterations < 1)
        return cudaErrorInvalidValue;
    cudaError_t err = cudaFuncSetAttribute(
        wgmma_ceiling, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)CEILING_SMEM);
    if (err != cudaSuccess)
        return err;
    wgmma_ceiling<<<blocks, GEMM_TILE_WGMMA_CEILING_THREADS, CEILING_SMEM, stream>>>(sink,
                                                                                     iterations);
    return cudaGetLastError();
}
