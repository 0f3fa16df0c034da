/* The probes' comparator: cuBLAS's C = A B as the bench calls it
 * (gemm_tile_suite.c: the TN GEMM, fp16 A and B, fp32 or fp16 C, fp32
 * accumulation), and the inputs the probes give both (fp16 in [1/16, 1/8),
 * never zeros). */
#ifndef BANKFREE_GEMM_TILE_PROBES_CUBLAS_TN_H
#define BANKFREE_GEMM_TILE_PROBES_CUBLAS_TN_H

#include <cstddef>
#include <cstdint>

#include <cublas_v2.h>

/* C of type c_type: CUDA_R_32F or CUDA_R_16F. */
static inline cublasStatus_t cublas_tn_as(cublasHandle_t cublas, void *c, cudaDataType c_type,
                                          const uint16_t *a, const uint16_t *b, int64_t m,
                                          int64_t n, int64_t k)
{
    const float one = 1.0f, zero = 0.0f;
    return cublasGemmEx(cublas, CUBLAS_OP_T, CUBLAS_OP_N, (int)n, (int)m, (int)k, &one, b,
                        CUDA_R_16F, (int)k, a, CUDA_R_16F, (int)k, &zero, c, c_type, (int)n,
                        CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}
static inline cublasStatus_t cublas_tn(cublasHandle_t cublas, float *c, const uint16_t *a,
                                       const uint16_t *b, int64_t m, int64_t n, int64_t k)
{
    return cublas_tn_as(cublas, c, CUDA_R_32F, a, b, m, n, k);
}

/* count fp16 values from a 32-bit hash of their index */
static inline void fill_inputs(uint16_t *h, size_t count)
{
    for (size_t i = 0; i < count; ++i)
        h[i] = (uint16_t)(0x2c00u | ((uint32_t)i * 2654435761u) >> 22);
}

#endif
