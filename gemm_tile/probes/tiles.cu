/* Tile sizes for the gemm_tile kernels, A/B on one GPU: this file includes
 * gemm_tile.cu itself, so each build of it (-D GEMM_TILE_BM, _BN, _WARP_N,
 * _STAGES, _BLOCKS_PER_SM; gemm_tile_layout.h) times the family's own
 * kernels at that tile. Per variant and size: median of 20 timed runs after
 * 3 warm-ups (CUDA events), TFLOP/s, and C against cublasGemmEx (relative L2
 * error; cuBLAS timed in the same run). `tiles N` runs the first N sizes
 * only. Built and run by gemm_tile/probes/run_probes.sh. */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cublas_v2.h>

#include "gemm_tile/gemm_tile.cu"

#include "gemm_tile/probes/check.h"

static float median_ms(cublasHandle_t h, int which, float *c, const uint16_t *a, const uint16_t *b,
                       int64_t m, int64_t n, int64_t k)
{
    const float one = 1.0f, zero = 0.0f;
    auto run = [&]() {
        if (which < 0) { /* cuBLAS: C^T = B^T A^T, the TN GEMM (gemm_tile_suite.c) */
            cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, (int)n, (int)m, (int)k, &one, b, CUDA_R_16F,
                         (int)k, a, CUDA_R_16F, (int)k, &zero, c, CUDA_R_32F, (int)n,
                         CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        } else {
            CHECK(gemm_tile_f32((enum gemm_tile_variant)which, c, a, b, m, n, k, 0));
        }
    };
    cudaEvent_t t0, t1;
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    for (int i = 0; i < 3; ++i)
        run();
    std::vector<float> ms;
    for (int i = 0; i < 20; ++i) {
        CHECK(cudaEventRecord(t0));
        run();
        CHECK(cudaEventRecord(t1));
        CHECK(cudaEventSynchronize(t1));
        float x;
        CHECK(cudaEventElapsedTime(&x, t0, t1));
        ms.push_back(x);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

int main(int argc, char **argv)
{
    const int64_t sizes[][3] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {8192, 1024, 8192}};
    /* these sizes take the wide tile (gemm_tile_bn) */
    printf("tile %dx%dx%d, %d warps of 64x%d, %d stages, %d blocks an SM (launch bounds), %u B "
           "shared, order in groups of %d tile rows\n",
           GEMM_TILE_BM, GEMM_TILE_BN, GEMM_TILE_BK, GEMM_TILE_THREADS_OF(GEMM_TILE_BN) / 32,
           GEMM_TILE_WARP_N, GEMM_TILE_STAGES, GEMM_TILE_BLOCKS_PER_SM,
           gemm_tile_smem_bytes(GEMM_TILE_SWIZZLED, GEMM_TILE_BN), GEMM_TILE_GROUP_M);
    cublasHandle_t h;
    cublasCreate(&h);
    const int count = argc > 1 ? atoi(argv[1]) : 3; /* the first `count` sizes */
    for (int i = 0; i < count && i < 3; ++i) {
        const auto &s = sizes[i];
        const int64_t m = s[0], n = s[1], k = s[2];
        uint16_t *a, *b;
        float *c, *want;
        CHECK(cudaMalloc(&a, (size_t)(m * k) * 2));
        CHECK(cudaMalloc(&b, (size_t)(n * k) * 2));
        CHECK(cudaMalloc(&c, (size_t)(m * n) * 4));
        CHECK(cudaMalloc(&want, (size_t)(m * n) * 4));
        std::vector<uint16_t> h16((size_t)(std::max(m, n) * k));
        for (size_t i = 0; i < h16.size(); ++i) /* fp16 in (-1, 1): sign, exponent 0..14 */
            h16[i] = (uint16_t)(((i * 2654435761u) >> 7 & 0x83ffu) | ((i * 40503u) % 15u) << 10);
        CHECK(cudaMemcpy(a, h16.data(), (size_t)(m * k) * 2, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(b, h16.data(), (size_t)(n * k) * 2, cudaMemcpyHostToDevice));
        const double flop = 2.0 * (double)m * (double)n * (double)k;
        const float ms_cublas = median_ms(h, -1, want, a, b, m, n, k);
        std::vector<float> got((size_t)(m * n)), ref((size_t)(m * n));
        CHECK(cudaMemcpy(ref.data(), want, ref.size() * 4, cudaMemcpyDeviceToHost));
        printf("  %lldx%lldx%lld cublasGemmEx %.1f TFLOP/s\n", (long long)m, (long long)n,
               (long long)k, flop / ms_cublas / 1e9);
        for (int v = GEMM_TILE_PADDED; v < GEMM_TILE_MMA_SYNC_VARIANTS; ++v) {
            CHECK(cudaMemset(c, 0xff, (size_t)(m * n) * 4));
            const float ms = median_ms(h, v, c, a, b, m, n, k);
            CHECK(cudaMemcpy(got.data(), c, got.size() * 4, cudaMemcpyDeviceToHost));
            double num = 0, den = 0;
            for (size_t i = 0; i < got.size(); ++i) {
                num += ((double)got[i] - ref[i]) * ((double)got[i] - ref[i]);
                den += (double)ref[i] * ref[i];
            }
            printf("  %lldx%lldx%lld %-8s %.1f TFLOP/s, %.3fx cuBLAS, rel L2 %.2g\n", (long long)m,
                   (long long)n, (long long)k, v == GEMM_TILE_PADDED ? "padded" : "swizzled",
                   flop / ms / 1e9, ms_cublas / ms, std::sqrt(num / den));
        }
        CHECK(cudaFree(a));
        CHECK(cudaFree(b));
        CHECK(cudaFree(c));
        CHECK(cudaFree(want));
    }
    cublasDestroy(h);
    return 0;
}
