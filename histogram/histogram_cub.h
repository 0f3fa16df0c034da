/* The histogram family's comparator, cub::DeviceHistogram::HistogramEven,
 * behind a C call (histogram_cub.cu: C++ only because CUB is). */
#ifndef BANKFREE_HISTOGRAM_CUB_H
#define BANKFREE_HISTOGRAM_CUB_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CUB's histogram of n samples into `bins` bins: 257 levels over [0, 256) for
 * bytes, 4097 levels over [0, 65536) for 16-bit samples. Call once with tmp
 * NULL to learn *tmp_bytes, as with CUB. */
cudaError_t histogram_cub(int bins, uint32_t *hist, const void *in, int64_t n, void *tmp,
                          size_t *tmp_bytes, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
