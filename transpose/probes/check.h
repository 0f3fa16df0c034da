/* The transpose probes' error checks (a failed CUDA or cuBLAS call prints
 * where and exits) and the order their medians sort by. */
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

#endif
