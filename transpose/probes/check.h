/* The transpose probes' error checks (a failed CUDA or cuBLAS call prints
 * where and exits), the order their medians sort by, and the L2 flush
 * before a timed rep. */
#ifndef BANKFREE_TRANSPOSE_PROBES_CHECK_H
#define BANKFREE_TRANSPOSE_PROBES_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));            \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define CHECK_BLAS(call)                                                                           \
    do {                                                                                           \
        if ((call) != CUBLAS_STATUS_SUCCESS) {                                                     \
            fprintf(stderr, "%s:%d: cuBLAS failed\n", __FILE__, __LINE__);                         \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* For qsort over float times. */
static int by_value(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Reads n words and writes nothing (the branch is never taken). */
__global__ void read_all(const unsigned *p, size_t n, unsigned *never)
{
    unsigned x = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        x ^= p[i];
    if (x == 0x9e3779b9u)
        *never = x;
}

/* Flushes the L2 by writing `bytes` of `flush` (dirty lines, written back
 * while the next kernel runs, as the bench does) or, by_reading, by
 * reading them (clean lines). */
static inline void flush_l2(void *flush, size_t bytes, int by_reading, int rep)
{
    if (by_reading) {
        read_all<<<1056, 512>>>((const unsigned *)flush, bytes / 4, (unsigned *)flush);
        CHECK(cudaGetLastError());
    } else {
        CHECK(cudaMemsetAsync(flush, rep & 0xff, bytes, 0));
    }
}

#endif
