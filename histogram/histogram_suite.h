/* What the histogram suite needs from CUDA C: the inputs filled on the
 * device (its comparator: histogram_cub.h). */
#ifndef BANKFREE_HISTOGRAM_SUITE_H
#define BANKFREE_HISTOGRAM_SUITE_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "histogram/histogram_data.h"

#ifdef __cplusplus
extern "C" {
#endif

/* out[0 .. n) = histogram_sample(input, bins, seed, i), as bytes (n samples;
 * 2n bytes when bins is 4096, written byte by byte: out may be odd). */
cudaError_t histogram_fill(void *out, int64_t n, int bins, enum histogram_input input,
                           uint64_t seed, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
