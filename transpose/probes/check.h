/* The transpose probes' error checks (a failed CUDA or cuBLAS call prints
 * where and exits), their shapes, the order their medians sort by, and the
 * L2 flush before a timed rep. */
#ifndef BANKFREE_TRANSPOSE_PROBES_CHECK_H
#define BANKFREE_TRANSPOSE_PROBES_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/timing.h"

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

/* A shape: element bytes, rows, columns. */
struct probe_case {
    int e;
    int64_t rows, cols;
};

/* The bytes of the largest of `count` shapes: what the buffers hold. */
static inline size_t probe_most_bytes(const struct probe_case *cases, size_t count)
{
    size_t most = 0;
    for (size_t c = 0; c < count; ++c)
        if ((size_t)(cases[c].rows * cases[c].cols * cases[c].e) > most)
            most = (size_t)(cases[c].rows * cases[c].cols * cases[c].e);
    return most;
}

/* For qsort over float times. */
static inline int by_value(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Whether FLUSH=write is in the environment: the probes then flush L2 by
 * writing (dirty lines, written back while the next kernel runs), as the
 * bench did before it flushed by reading (docs/notes/transpose/runs.md). */
static inline int flush_by_writing(void)
{
    const char *how = getenv("FLUSH");
    return how != NULL && strcmp(how, "write") == 0;
}

/* Flushes the L2 before a timed rep as the bench does, by reading `bytes` of
 * `flush` (bf_l2_flush: clean lines), or by writing them (above). */
static inline void flush_l2(void *flush, size_t bytes, int rep)
{
    if (flush_by_writing())
        CHECK(cudaMemsetAsync(flush, rep & 0xff, bytes, 0));
    else
        CHECK(bf_l2_flush(flush, bytes, 0));
}

#endif
