/* The comparators that more than one family is timed against (a family's
 * own stay in its folder): the copy ceiling (transpose, aes_lut),
 * the read stream (the ceiling of reduction and histogram, whose kernels
 * only read) and CUB's sum (reduction's vendor row, histogram's second read
 * ceiling). The runner's, not the kernel library's. */
#ifndef BANKFREE_CEILINGS_H
#define BANKFREE_CEILINGS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A device-to-device copy of `bytes` (cudaMemcpyAsync): it reads and writes
 * them, the ceiling of a kernel that does both. */
cudaError_t bf_copy_ceiling(void *dst, const void *src, size_t bytes, cudaStream_t stream);

/* The same as a kernel of 16-byte loads and stores, 4 in flight a thread
 * (as the read stream below): at a few MB it runs ahead of cudaMemcpyAsync,
 * which a transpose of the same bytes outran (1.27x at 1000 x 999 fp32 on the
 * H100), so a family times both and divides by the faster. dst and src
 * 16-byte aligned; any bytes. */
cudaError_t bf_copy_kernel_ceiling(void *dst, const void *src, size_t bytes, cudaStream_t stream);

/* A read-only stream over the whole 4-byte words of in[0, bytes): each block
 * of 512 threads sums 8192 of them from 16-byte loads, 4 in flight a thread
 * (as the reduction family's tuned kernel reads), and writes its sum to
 * partial[block], bf_read_ceiling_blocks(bytes) words; the ceiling of a
 * kernel that only reads. `in` must be 16-byte aligned. */
int64_t bf_read_ceiling_blocks(size_t bytes);
cudaError_t bf_read_ceiling(uint32_t *partial, const void *in, size_t bytes, cudaStream_t stream);

/* cub::DeviceReduce::Sum of n values, as a user would call it: with tmp NULL
 * it sets *tmp_bytes, the temporary storage to give it next. */
cudaError_t bf_cub_sum_f32(float *out, const float *in, int64_t n, void *tmp, size_t *tmp_bytes,
                           cudaStream_t stream);
cudaError_t bf_cub_sum_i32(int32_t *out, const int32_t *in, int64_t n, void *tmp, size_t *tmp_bytes,
                           cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
