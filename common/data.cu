#include "common/data.h"

static __global__ void fill_random_f32(float *d, size_t n, uint64_t seed)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        d[i] = bf_random_f32(seed, i);
}

extern "C" cudaError_t bf_fill_random_f32(float *d, size_t n, uint64_t seed, cudaStream_t stream)
{
    if (n == 0)
        return cudaSuccess;
    size_t blocks = (n + 255) / 256;
    fill_random_f32<<<(unsigned)(blocks < 65536 ? blocks : 65536), 256, 0, stream>>>(d, n, seed);
    return cudaGetLastError();
}
