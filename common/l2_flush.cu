/* The timing layer's L2 flush (common/timing.h): a read of a buffer twice
 * L2's size, which leaves L2 holding the buffer's clean lines. Writing the
 * buffer instead (cudaMemsetAsync) left it full of dirty lines, and the
 * timed kernel then paid for their write-back: 3.5 us of a 12.6 us fp32
 * transpose at 2048^2 on the H100, and unequally between contenders
 * (docs/notes/transpose/runs.md). */
#include <stdint.h>

#include "common/timing.h"

#define FLUSH_THREADS 512
#define FLUSH_LOADS   4 /* 16-byte loads in flight a thread */

/* Block b reads 16-byte vectors [b VECTORS, (b + 1) VECTORS) and keeps their
 * XOR; the store that keeps the loads from being optimized away happens only
 * if the XOR is a value the buffer, written once with equal bytes (bench.c),
 * never gives: the flush writes nothing. */
#define FLUSH_VECTORS (FLUSH_THREADS * FLUSH_LOADS)

__global__ void __launch_bounds__(FLUSH_THREADS)
    l2_flush_kernel(const uint4 *buf, int64_t vectors, uint32_t *never)
{
    const int64_t v = (int64_t)blockIdx.x * FLUSH_VECTORS + threadIdx.x;
    uint32_t x = 0;
#pragma unroll
    for (int k = 0; k < FLUSH_LOADS; ++k)
        if (v + k * FLUSH_THREADS < vectors) {
            const uint4 w = buf[v + k * FLUSH_THREADS];
            x ^= w.x ^ w.y ^ w.z ^ w.w;
        }
    if (x == 0x9e3779b9u)
        *never = x;
}

extern "C" cudaError_t bf_l2_flush(const void *buf, size_t bytes, cudaStream_t stream)
{
    const int64_t vectors = (int64_t)(bytes / 16);
    if (vectors == 0)
        return cudaSuccess;
    const int64_t blocks = (vectors + FLUSH_VECTORS - 1) / FLUSH_VECTORS;
    l2_flush_kernel<<<(unsigned)blocks, FLUSH_THREADS, 0, stream>>>((const uint4 *)buf, vectors,
                                                                    (uint32_t *)buf);
    return cudaGetLastError();
}
