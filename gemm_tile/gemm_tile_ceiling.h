/* The bench's ceiling for an Ampere-style GEMM: mma.sync.m16n8k16 (fp16 in,
 * fp32 accumulate) on registers only, no memory in the loop: the rate the
 * instruction itself allows. Not part of the kernel library (the suites'
 * own); its kernel is not named gemm_tile_*, so ncu's hw test, which
 * profiles the kernels named after the family, leaves it out. */
#ifndef BANKFREE_GEMM_TILE_CEILING_H
#define BANKFREE_GEMM_TILE_CEILING_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Threads a block of the ceiling kernel, and independent accumulators a warp
 * keeps (enough mma in flight to hide the instruction's latency). */
#define GEMM_TILE_CEILING_THREADS 256
#define GEMM_TILE_CEILING_CHAINS  8

/* Floating-point operations of one launch: blocks x 8 warps x iterations x
 * CHAINS mma of 2 x 16 x 8 x 16. */
double gemm_tile_ceiling_flops(int blocks, int iterations);

/* Launches blocks x GEMM_TILE_CEILING_THREADS threads, each warp issuing
 * iterations x CHAINS mma.sync; sink (blocks x THREADS floats, device
 * memory) receives the sums, so that nothing is optimised away. Returns
 * cudaErrorInvalidValue for blocks or iterations < 1 or a null sink, else
 * the launch's error. */
cudaError_t gemm_tile_ceiling(float *sink, int blocks, int iterations, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
