/* Where the Hopper kernel's time goes at small sizes: the kernel of
 * gemm_tile_wgmma.cu, built with its timeline hook stamping the global
 * timer (ns) at eight points of each block, run on an L2 flushed as the
 * bench does (bf_l2_flush: a read, which leaves L2's lines clean). Per
 * point, the median over blocks and then over reps, from the first block's
 * entry. Three questions beside it: --direct starts C 8 bytes into its
 * allocation, off TMA's 16-byte rule, so the kernel stores its pairs itself
 * (no staging buffer, barriers or bulk stores); --warm leaves L2 as the
 * last rep left it (code and operands cached), to see what the flush costs;
 * --half makes C fp16 for both (in the H200's sweep cuBLAS's fp16-C kernels
 * took 8-12% less time than its fp32-C ones from 256^3 to 1024^3, ours -1%
 * to 6% less: docs/notes/gemm_tile/sweep.md). cublasGemmEx (the bench's TN
 * call) is timed the same way, its reps interleaved with ours, for a same-
 * run ratio. Compile with -gencode=arch=compute_90a,code=sm_90a and link
 * cuBLAS; -D settings of gemm_tile_wgmma_layout.h (the clusters' shapes)
 * make variants to compare.
 *   timeline [--direct] [--warm] [--half] [M N K ...]   (default: 256 ... 2048 cubed) */
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define TIMELINE_BLOCKS 1024
__device__ unsigned long long timeline[TIMELINE_BLOCKS][8];

/* Points 3-6 are the first consumer's (thread 128), the others thread 0's. */
static __device__ __forceinline__ void timeline_mark(int point)
{
    const unsigned who = point >= 3 && point <= 6 ? 128u : 0u;
    if (threadIdx.x != who || blockIdx.x >= TIMELINE_BLOCKS)
        return;
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    timeline[blockIdx.x][point] = now;
}
#define GEMM_TILE_WGMMA_MARK(point) timeline_mark(point)

#include <cuda_fp16.h>

#include "common/l2_flush.cu" /* the bench's flush, compiled into this probe */
#include "gemm_tile/gemm_tile_wgmma.cu"
#include "gemm_tile/probes/check.h"
#include "gemm_tile/probes/cublas_tn.h"

static const char *const points[8] = {
    "entry",           "producer past the cluster wait", "first TMA issued", "first stage full",
    "last wgmma done", "C stored (TMA issued)",          "C read from smem", "exit (cluster wait)"};

static int direct, warm, half_c;
static cublasHandle_t cublas;

static void cublas_gemm(void *c, const uint16_t *a, const uint16_t *b, int64_t m, int64_t n,
                        int64_t k)
{
    if (cublas_tn_as(cublas, c, half_c ? CUDA_R_16F : CUDA_R_32F, a, b, m, n, k) !=
        CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cublasGemmEx failed\n");
        exit(1);
    }
    CHECK(cudaGetLastError());
}

/* C's count elements from the device into floats. */
static void read_c(float *to, const char *c, size_t count)
{
    if (!half_c) {
        CHECK(cudaMemcpy(to, c, count * 4, cudaMemcpyDeviceToHost));
        return;
    }
    std::vector<__half> h(count);
    CHECK(cudaMemcpy(h.data(), c, count * 2, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < count; ++i)
        to[i] = __half2float(h[i]);
}

static void run(int64_t m, int64_t n, int64_t k, void *flush, size_t flush_bytes)
{
    uint16_t *a, *b;
    char *c;
    const size_t out = half_c ? 2 : 4; /* C's element size */
    CHECK(cudaMalloc(&a, (size_t)(m * k) * 2));
    CHECK(cudaMalloc(&b, (size_t)(n * k) * 2));
    CHECK(cudaMalloc(&c, (size_t)(m * n) * out + 8));
    char *const ours_c = c + 8 * direct;
    std::vector<uint16_t> h((size_t)std::max(m, n) * k);
    fill_inputs(h.data(), h.size());
    CHECK(cudaMemcpy(a, h.data(), (size_t)(m * k) * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, h.data(), (size_t)(n * k) * 2, cudaMemcpyHostToDevice));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    const int reps = 30;
    std::vector<std::vector<double>> at(8);
    std::vector<double> times, cublas_times;
    static unsigned long long stamps[TIMELINE_BLOCKS][8], zeros[TIMELINE_BLOCKS][8];
    int blocks = 0;
    for (int rep = -3; rep < reps; ++rep) {
        CHECK(cudaMemcpyToSymbol(timeline, zeros, sizeof zeros));
        if (!warm)
            CHECK(bf_l2_flush(flush, flush_bytes, 0));
        CHECK(cudaEventRecord(start));
        CHECK(gemm_tile_wgmma_launch(GEMM_TILE_WGMMA_SW128, ours_c, half_c, a, b, m, n, k, 0));
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        float ms, cublas_ms;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        if (!warm)
            CHECK(bf_l2_flush(flush, flush_bytes, 0));
        CHECK(cudaEventRecord(start));
        cublas_gemm(c, a, b, m, n, k);
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        CHECK(cudaEventElapsedTime(&cublas_ms, start, stop));
        if (rep < 0)
            continue;
        times.push_back(1e6 * ms);
        cublas_times.push_back(1e6 * cublas_ms);
        CHECK(cudaMemcpyFromSymbol(stamps, timeline, sizeof stamps));
        unsigned long long first = ~0ull;
        blocks = 0;
        for (int i = 0; i < TIMELINE_BLOCKS && stamps[i][0] != 0; ++i, ++blocks)
            first = std::min(first, stamps[i][0]);
        for (int p = 0; p < 8; ++p) {
            std::vector<double> d;
            for (int i = 0; i < blocks; ++i)
                if (stamps[i][p] >= first)
                    d.push_back((double)(stamps[i][p] - first));
            at[p].push_back(median(d));
        }
    }
    /* Ours against cuBLAS's C, once: a probe of a wrong kernel times nothing. */
    const size_t cn = (size_t)(m * n);
    std::vector<float> ours(cn), theirs(cn);
    CHECK(cudaMemset(c, 0xff, cn * out + 8));
    CHECK(gemm_tile_wgmma_launch(GEMM_TILE_WGMMA_SW128, ours_c, half_c, a, b, m, n, k, 0));
    read_c(ours.data(), ours_c, cn);
    cublas_gemm(c, a, b, m, n, k);
    read_c(theirs.data(), c, cn);
    if (!gemm_matches(ours.data(), theirs.data(), cn, m, n, k, half_c ? 2e-3 : 1e-3))
        exit(1);
    printf("%lldx%lldx%lld: %d blocks, event time %.0f ns, cublasGemmEx %.0f ns (ratio %.3f; "
           "medians of %d reps, %s, C %s %s)\n",
           (long long)m, (long long)n, (long long)k, blocks, median(times), median(cublas_times),
           median(cublas_times) / median(times), reps, warm ? "L2 warm" : "L2 flushed",
           half_c ? "fp16" : "fp32", direct ? "8 bytes in" : "aligned");
    for (int p = 0; p < 8; ++p)
        printf("  %-30s %7.0f ns\n", points[p], median(at[p]));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(c));
}

int main(int argc, char **argv)
{
    const size_t flush_bytes = PROBE_FLUSH_BYTES;
    void *const flush = probe_flush_buffer();
    if (cublasCreate(&cublas) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cublasCreate failed\n");
        return 1;
    }
    int first = 1;
    for (; first < argc && argv[first][0] == '-'; ++first) {
        direct |= strcmp(argv[first], "--direct") == 0;
        warm |= strcmp(argv[first], "--warm") == 0;
        half_c |= strcmp(argv[first], "--half") == 0;
    }
    if (argc - first >= 3) {
        for (int i = first; i + 2 < argc; i += 3)
            run(atoll(argv[i]), atoll(argv[i + 1]), atoll(argv[i + 2]), flush, flush_bytes);
    } else {
        for (int64_t s = 256; s <= 2048; s *= 2)
            run(s, s, s, flush, flush_bytes);
    }
    cublasDestroy(cublas);
    CHECK(cudaFree(flush));
    return 0;
}
