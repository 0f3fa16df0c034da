/* The comparator: cub::DeviceReduce::Sum, behind a C call. As with CUB, call
 * once with tmp NULL to learn *tmp_bytes, then with that much device memory. */
#ifndef BANKFREE_REDUCTION_CUB_H
#define BANKFREE_REDUCTION_CUB_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t reduction_cub_sum_f32(float *out, const float *in, int64_t n, void *tmp,
                                  size_t *tmp_bytes, cudaStream_t stream);
cudaError_t reduction_cub_sum_i32(int32_t *out, const int32_t *in, int64_t n, void *tmp,
                                  size_t *tmp_bytes, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
