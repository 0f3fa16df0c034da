/* The bench's ceilings, one a path: the rate each path's multiply
 * instruction itself allows, with no loads in the loop. For the Ampere-style
 * kernels, mma.sync.m16n8k16 (fp16 in, fp32 accumulate) on registers only;
 * for the Hopper kernels, wgmma.m64n256k16 reading one resident shared tile
 * (sm_90a: built, in gemm_tile_wgmma_ceiling.cu, where the wgmma kernels
 * are). Not part of the kernel library (the suites' own); they run outside
 * BF_PROFILED, so ncu's hw test and --counters never profile them. */
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

/* Threads a block of the wgmma ceiling: two warpgroups, as the wgmma GEMM's
 * consumers; one block an SM. */
#define GEMM_TILE_WGMMA_CEILING_THREADS 256

/* blocks x 2 warpgroups x iterations x 4 wgmma of 2 x 64 x 256 x 16. */
double gemm_tile_wgmma_ceiling_flops(int blocks, int iterations);

/* Launches blocks x GEMM_TILE_WGMMA_CEILING_THREADS threads, each warpgroup
 * issuing iterations x 4 wgmma.m64n256k16 (a K tile of 64) on the same
 * shared tiles; sink as above. sm_90a only. */
cudaError_t gemm_tile_wgmma_ceiling(float *sink, int blocks, int iterations, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
