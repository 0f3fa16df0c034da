/* The shared comparators (common/ceilings.h). C++ only because CUB is. */
#include <cub/device/device_reduce.cuh>

#include "common/ceilings.h"

#define READ_THREADS 512
#define READ_LOADS   4                               /* 16-byte loads in flight a thread */
#define READ_WORDS   (READ_THREADS * READ_LOADS * 4) /* 4-byte words a block */

extern "C" cudaError_t bf_copy_ceiling(void *dst, const void *src, size_t bytes,
                                       cudaStream_t stream)
{
    return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream);
}

/* Block b copies 16-byte vectors [b COPY_VECTORS, (b + 1) COPY_VECTORS): all
 * its loads in flight before any store; the last block also the bytes past
 * the last whole vector. */
#define COPY_VECTORS (READ_THREADS * READ_LOADS)

__global__ void __launch_bounds__(READ_THREADS)
    copy_kernel_ceiling(uint4 *__restrict__ dst, const uint4 *__restrict__ src, int64_t vectors,
                        int tail_bytes)
{
    const int64_t v = (int64_t)blockIdx.x * COPY_VECTORS + threadIdx.x;
    uint4 x[READ_LOADS];
#pragma unroll
    for (int k = 0; k < READ_LOADS; ++k)
        if (v + k * READ_THREADS < vectors)
            x[k] = __ldg(src + v + k * READ_THREADS);
#pragma unroll
    for (int k = 0; k < READ_LOADS; ++k)
        if (v + k * READ_THREADS < vectors)
            dst[v + k * READ_THREADS] = x[k];
    if (blockIdx.x == gridDim.x - 1 && (int)threadIdx.x < tail_bytes)
        ((unsigned char *)(dst + vectors))[threadIdx.x] =
            ((const unsigned char *)(src + vectors))[threadIdx.x];
}

extern "C" cudaError_t bf_copy_kernel_ceiling(void *dst, const void *src, size_t bytes,
                                              cudaStream_t stream)
{
    if (dst == NULL || src == NULL || (uintptr_t)dst % 16 != 0 || (uintptr_t)src % 16 != 0)
        return cudaErrorInvalidValue;
    const int64_t vectors = (int64_t)(bytes / 16),
                  blocks = vectors == 0 ? 1 : (vectors + COPY_VECTORS - 1) / COPY_VECTORS;
    if (blocks > 0x7fffffff)
        return cudaErrorInvalidValue;
    copy_kernel_ceiling<<<(unsigned)blocks, READ_THREADS, 0, stream>>>(
        static_cast<uint4 *>(dst), static_cast<const uint4 *>(src), vectors, (int)(bytes % 16));
    return cudaGetLastError();
}

extern "C" int64_t bf_read_ceiling_blocks(size_t bytes)
{
    const int64_t words = (int64_t)(bytes / 4);
    return words == 0 ? 1 : (words + READ_WORDS - 1) / READ_WORDS;
}

/* Block b reads words [b READ_WORDS, (b + 1) READ_WORDS) of in as 16-byte
 * vectors, the last few singly; the warps' sums meet in shared memory. */
__global__ void __launch_bounds__(READ_THREADS)
    read_ceiling(uint32_t *__restrict__ partial, const uint32_t *__restrict__ in, int64_t words)
{
    __shared__ uint32_t warp_sums[READ_THREADS / 32];
    const int tid = threadIdx.x;
    const int64_t lo = (int64_t)blockIdx.x * READ_WORDS,
                  hi = lo + READ_WORDS < words ? lo + READ_WORDS : words;
    const int64_t vectors = (hi - lo) / 4, tail = lo + 4 * vectors;
    const uint4 *vec = reinterpret_cast<const uint4 *>(in + lo);
    uint32_t acc = tid < hi - tail ? in[tail + tid] : 0u;
    int64_t v = tid;
    for (; v + (READ_LOADS - 1) * READ_THREADS < vectors; v += READ_LOADS * READ_THREADS) {
        uint4 x[READ_LOADS];
#pragma unroll
        for (int k = 0; k < READ_LOADS; ++k)
            x[k] = __ldg(vec + v + k * READ_THREADS);
#pragma unroll
        for (int k = 0; k < READ_LOADS; ++k)
            acc += (x[k].x + x[k].y) + (x[k].z + x[k].w);
    }
    uint4 x[READ_LOADS]; /* the rest: all loads issued first, one round trip */
#pragma unroll
    for (int k = 0; k < READ_LOADS; ++k)
        if (v + k * READ_THREADS < vectors)
            x[k] = __ldg(vec + v + k * READ_THREADS);
#pragma unroll
    for (int k = 0; k < READ_LOADS; ++k)
        if (v + k * READ_THREADS < vectors)
            acc += (x[k].x + x[k].y) + (x[k].z + x[k].w);
#pragma unroll
    for (int lanes = 16; lanes > 0; lanes /= 2)
        acc += __shfl_xor_sync(0xffffffffu, acc, lanes);
    if (tid % 32 == 0)
        warp_sums[tid / 32] = acc;
    __syncthreads();
    if (tid < 32) {
        acc = tid < READ_THREADS / 32 ? warp_sums[tid] : 0u;
#pragma unroll
        for (int lanes = 16; lanes > 0; lanes /= 2)
            acc += __shfl_xor_sync(0xffffffffu, acc, lanes);
        if (tid == 0)
            partial[blockIdx.x] = acc;
    }
}

extern "C" cudaError_t bf_read_ceiling(uint32_t *partial, const void *in, size_t bytes,
                                       cudaStream_t stream)
{
    if (partial == NULL || (in == NULL && bytes >= 4) || (uintptr_t)in % 16 != 0)
        return cudaErrorInvalidValue;
    const int64_t blocks = bf_read_ceiling_blocks(bytes);
    if (blocks > 0x7fffffff)
        return cudaErrorInvalidValue;
    read_ceiling<<<(unsigned)blocks, READ_THREADS, 0, stream>>>(
        partial, static_cast<const uint32_t *>(in), (int64_t)(bytes / 4));
    return cudaGetLastError();
}

extern "C" cudaError_t bf_cub_sum_f32(float *out, const float *in, int64_t n, void *tmp,
                                      size_t *tmp_bytes, cudaStream_t stream)
{
    cudaError_t err = cub::DeviceReduce::Sum(tmp, *tmp_bytes, in, out, n, stream);
    return err != cudaSuccess || tmp == NULL ? err : cudaGetLastError();
}

extern "C" cudaError_t bf_cub_sum_i32(int32_t *out, const int32_t *in, int64_t n, void *tmp,
                                      size_t *tmp_bytes, cudaStream_t stream)
{
    cudaError_t err = cub::DeviceReduce::Sum(tmp, *tmp_bytes, in, out, n, stream);
    return err != cudaSuccess || tmp == NULL ? err : cudaGetLastError();
}
