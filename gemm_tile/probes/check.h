/* The probes' one error check: a failed CUDA call prints where and exits. */
#ifndef BANKFREE_GEMM_TILE_PROBES_CHECK_H
#define BANKFREE_GEMM_TILE_PROBES_CHECK_H

#include <cstdio>
#include <cstdlib>

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                               \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#endif
