#include "common/data.h"

static __global__ void fill_random_f32(float *d, size_t n, uint64_t seed)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        d[i] = bf_random_f32(seed, i);
}

static __global__ void fill_random_i32(int32_t *d, size_t n, uint64_t seed)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        d[i] = bf_random_i32(seed, i);
}

/* A grid-stride fill: enough blocks to cover n, at most 65536. */
static unsigned fill_blocks(size_t n)
{
    size_t blocks = (n + 255) / 256;
    return (unsigned)(blocks < 65536 ? blocks : 65536);
}

extern "C" cudaError_t bf_fill_random_f32(float *d, size_t n, uint64_t seed, cudaStream_t stream)
{
    if (n == 0)
        return cudaSuccess;
    fill_random_f32<<<fill_blocks(n), 256, 0, stream>>>(d, n, seed);
    return cudaGetLastError();
}

extern "C" cudaError_t bf_fill_random_i32(int32_t *d, size_t n, uint64_t seed, cudaStream_t stream)
{
    if (n == 0)
        return cudaSuccess;
    fill_random_i32<<<fill_blocks(n), 256, 0, stream>>>(d, n, seed);
    return cudaGetLastError();
}
