/* C++ only because CUB is: the vendor's histogram, as a user would call it. */
#include <cub/device/device_histogram.cuh>

#include "histogram/histogram_cub.h"

extern "C" cudaError_t histogram_cub(int bins, uint32_t *hist, const void *in, int64_t n, void *tmp,
                                     size_t *tmp_bytes, cudaStream_t stream)
{
    cudaError_t err;
    if (bins == 256)
        err = cub::DeviceHistogram::HistogramEven(tmp, *tmp_bytes, (const uint8_t *)in, (int *)hist,
                                                  257, 0, 256, n, stream);
    else
        err = cub::DeviceHistogram::HistogramEven(tmp, *tmp_bytes, (const uint16_t *)in,
                                                  (int *)hist, 4097, 0, 65536, n, stream);
    return err != cudaSuccess || tmp == NULL ? err : cudaGetLastError();
}
