/* Parallel sum of fp32 or int32 arrays of any length, after Harris's
 * "Optimizing Parallel Reduction": the shared-memory tree with the strided
 * index that conflicts, the same tree with sequential addressing, and a tuned
 * kernel that runs at the memory-bandwidth limit.
 *
 * A sum takes one or more passes, each a kernel launch that reduces its input
 * to one partial sum per block, the last to the result. The partial sums live
 * in a workspace the caller provides, as with CUB:
 *
 *     size_t bytes = reduction_workspace_bytes(REDUCTION_TUNED, n);
 *     cudaMalloc(&work, bytes);   (any contents; may be NULL when bytes is 0)
 *     reduction_sum_f32(REDUCTION_TUNED, d_sum, d_in, n, work, bytes, stream);
 *
 * The order of the additions depends only on the variant and n, never on the
 * GPU or the run: the same input gives the same bits every time. */
#ifndef BANKFREE_REDUCTION_H
#define BANKFREE_REDUCTION_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

enum reduction_variant {
    REDUCTION_INTERLEAVED, /* tree with index = 2*s*tid: 2, 4, ... 32-way bank conflicts */
    REDUCTION_SEQUENTIAL,  /* tree with index = tid, partner tid + s: conflict-free */
    REDUCTION_TUNED,       /* 16-byte loads, up to 16 elements a thread, warp shuffles */
    REDUCTION_VARIANTS
};

/* Bytes of workspace a sum of n elements needs (0 when one pass does). It
 * never falls as n grows: the workspace for the largest n a caller sums
 * serves every smaller n too. */
size_t reduction_workspace_bytes(enum reduction_variant variant, int64_t n);

/* *out (device memory) = in[0] + ... + in[n - 1], on the stream; n = 0 gives 0.
 * fp32 adds in fp32: the error is at most depth * 2^-24 * sum |in[i]| to first
 * order, with depth from reduction_depth() (reduction_layout.h). int32 adds
 * modulo 2^32, as two's complement hardware does: the result is the exact sum
 * wrapped into int32. Returns cudaErrorInvalidValue for a bad variant, n < 0,
 * a null pointer, or a workspace smaller than reduction_workspace_bytes(), else
 * the launches' error. */
cudaError_t reduction_sum_f32(enum reduction_variant variant, float *out, const float *in,
                              int64_t n, void *workspace, size_t workspace_bytes,
                              cudaStream_t stream);
cudaError_t reduction_sum_i32(enum reduction_variant variant, int32_t *out, const int32_t *in,
                              int64_t n, void *workspace, size_t workspace_bytes,
                              cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
