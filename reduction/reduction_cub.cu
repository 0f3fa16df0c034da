/* C++ only because CUB is: the vendor's sum, as a user would call it. */
#include <cub/device/device_reduce.cuh>

#include "reduction/reduction_cub.h"

extern "C" cudaError_t reduction_cub_sum_f32(float *out, const float *in, int64_t n, void *tmp,
                                             size_t *tmp_bytes, cudaStream_t stream)
{
    cudaError_t err = cub::DeviceReduce::Sum(tmp, *tmp_bytes, in, out, n, stream);
    return err != cudaSuccess || tmp == NULL ? err : cudaGetLastError();
}

extern "C" cudaError_t reduction_cub_sum_i32(int32_t *out, const int32_t *in, int64_t n, void *tmp,
                                             size_t *tmp_bytes, cudaStream_t stream)
{
    cudaError_t err = cub::DeviceReduce::Sum(tmp, *tmp_bytes, in, out, n, stream);
    return err != cudaSuccess || tmp == NULL ? err : cudaGetLastError();
}
