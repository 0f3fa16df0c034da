/* The probes' checks: a failed CUDA call prints where and exits; a GEMM's C
 * is held to cuBLAS's. And what their timing shares: a median, and the
 * buffer the bench's flush reads. */
#ifndef BANKFREE_GEMM_TILE_PROBES_CHECK_H
#define BANKFREE_GEMM_TILE_PROBES_CHECK_H

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                               \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* Our C against cuBLAS's, each element within `tolerance` (1e-3; 2e-3 for
 * fp16 C, whose two roundings may differ by an ulp) of |cuBLAS's| + 1e-3 (a
 * NaN fails): a probe of a wrong kernel measures nothing. */
static inline bool gemm_matches(const float *ours, const float *theirs, size_t count, long long m,
                                long long n, long long k, double tolerance = 1e-3)
{
    double worst = 0;
    for (size_t i = 0; i < count; ++i) {
        const double d = fabs((double)ours[i] - theirs[i]) / (fabs((double)theirs[i]) + 1e-3);
        worst = d > worst || d != d ? d : worst;
    }
    if (worst < tolerance)
        return true;
    printf("%lldx%lldx%lld: C WRONG (worst relative difference to cuBLAS %g)\n", m, n, k, worst);
    return false;
}

/* v's median (the upper of the middle two; 0 for none). */
static inline double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

/* A buffer for bf_l2_flush (common/l2_flush.cu), of equal bytes as it
 * asks: more than twice L2 on the H100 and H200. */
#define PROBE_FLUSH_BYTES ((size_t)256 << 20)
static inline void *probe_flush_buffer(void)
{
    void *flush = NULL;
    CHECK(cudaMalloc(&flush, PROBE_FLUSH_BYTES));
    CHECK(cudaMemset(flush, 1, PROBE_FLUSH_BYTES));
    return flush;
}

#endif
