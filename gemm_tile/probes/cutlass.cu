/* CUTLASS's GEMMs beside ours, in one run: CUTLASS 2.x's Ampere kernels
 * (mma.sync, the path of our mma.sync variants) and CUTLASS 3.x's Hopper
 * kernels (TMA + wgmma, the path of our wgmma variants and of cuBLAS), at
 * several tiles each (probes/cutlass_gemm.cu, one object a tile, built by
 * probes/cutlass.sh, which writes the list cutlass_kernels.h), with our
 * variants, cublasGemmEx and both instruction ceilings. The bench's TN GEMM
 * (fp16 A and B, fp32 C), every C checked against cuBLAS's first; then all
 * timed in turns (bf_time_together: L2 flushed before every rep, the SM
 * clock read around each), medians. Per kernel: of_ceiling (its path's
 * ceiling), vs_cublas (cuBLAS's time over its) and vs_ours (the time of
 * our fastest variant of its path over its). Hopper only.
 *   cutlass [M N K ...]   (default: the bench's GEMM sweep) */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "common/device.h"
#include "common/timing.h"
#include "gemm_tile/gemm_tile.h"
#include "gemm_tile/gemm_tile_ceiling.h"
#include "gemm_tile/probes/check.h"
#include "gemm_tile/probes/cublas_tn.h"

typedef cudaError_t (*cutlass_run_fn)(float *c, const uint16_t *a, const uint16_t *b, int m, int n,
                                      int k, cudaStream_t stream);
#define X(name)                                                                                    \
    extern "C" const char *name##_desc(void);                                                      \
    extern "C" cudaError_t name##_run(float *, const uint16_t *, const uint16_t *, int, int, int,  \
                                      cudaStream_t);
#include "cutlass_kernels.h"
#undef X
struct cutlass_kernel {
    const char *(*desc)(void);
    cutlass_run_fn run;
};
#define X(name) {name##_desc, name##_run},
static const cutlass_kernel cutlass_kernels[] = {
#include "cutlass_kernels.h"
};
#undef X

enum path { MMA_SYNC, WGMMA };
enum kind { CUTLASS, OURS, CUBLAS, CEILING };

struct job {
    kind what;
    path on;
    int which; /* CUTLASS: index in cutlass_kernels; OURS: the variant */
    std::string name;
    float *c;
    const uint16_t *a, *b;
    int m, n, k;
    cublasHandle_t cublas;
    float *sink;
    int blocks, iterations; /* the ceilings' launches, as the bench's */
};

static cudaError_t run(void *arg, cudaStream_t stream)
{
    const job *j = (const job *)arg;
    switch (j->what) {
    case CUTLASS:
        return cutlass_kernels[j->which].run(j->c, j->a, j->b, j->m, j->n, j->k, stream);
    case OURS:
        return gemm_tile_f32((enum gemm_tile_variant)j->which, j->c, j->a, j->b, j->m, j->n, j->k,
                             stream);
    case CUBLAS:
        if (cublasSetStream(j->cublas, stream) != CUBLAS_STATUS_SUCCESS ||
            cublas_tn(j->cublas, j->c, j->a, j->b, j->m, j->n, j->k) != CUBLAS_STATUS_SUCCESS)
            return cudaErrorUnknown;
        return cudaSuccess;
    default:
        return j->on == MMA_SYNC
                   ? gemm_tile_ceiling(j->sink, j->blocks, j->iterations, stream)
                   : gemm_tile_wgmma_ceiling(j->sink, j->blocks, j->iterations, stream);
    }
}

static double ceiling_flops(const job &j)
{
    return j.on == MMA_SYNC ? gemm_tile_ceiling_flops(j.blocks, j.iterations)
                            : gemm_tile_wgmma_ceiling_flops(j.blocks, j.iterations);
}

static void one_shape(const bf_device &dev, cublasHandle_t cublas, cudaStream_t stream,
                      const bf_timing_opts &opts, float *sink, int m, int n, int k)
{
    const size_t na = (size_t)m * k, nb = (size_t)n * k, nc = (size_t)m * n;
    std::vector<uint16_t> host_a(na), host_b(nb);
    fill_inputs(host_a.data(), na);
    fill_inputs(host_b.data(), nb);
    for (size_t i = 0; i < nb; ++i) /* B unlike A */
        host_b[i] ^= (uint16_t)((i * 7919u) & 0x7fu);
    uint16_t *a, *b;
    float *reference;
    CHECK(cudaMalloc(&a, na * 2));
    CHECK(cudaMalloc(&b, nb * 2));
    CHECK(cudaMalloc(&reference, nc * 4));
    CHECK(cudaMemcpy(a, host_a.data(), na * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, host_b.data(), nb * 2, cudaMemcpyHostToDevice));
    if (cublas_tn(cublas, reference, a, b, m, n, k) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cublasGemmEx failed\n");
        exit(1);
    }
    std::vector<float> want(nc), got(nc);
    CHECK(cudaMemcpy(want.data(), reference, nc * 4, cudaMemcpyDeviceToHost));

    std::vector<job> all;
    for (int i = 0; i < (int)(sizeof cutlass_kernels / sizeof cutlass_kernels[0]); ++i) {
        const std::string name = cutlass_kernels[i].desc();
        all.push_back(
            {CUTLASS, name.find("sm80") != std::string::npos ? MMA_SYNC : WGMMA, i, name});
    }
    all.push_back({OURS, MMA_SYNC, GEMM_TILE_SWIZZLED, "ours: swizzled"});
    all.push_back({OURS, MMA_SYNC, GEMM_TILE_PADDED, "ours: padded"});
    all.push_back({OURS, WGMMA, GEMM_TILE_WGMMA_SW128, "ours: wgmma_sw128"});
    all.push_back({OURS, WGMMA, GEMM_TILE_WGMMA_SW64, "ours: wgmma_sw64"});
    all.push_back({CUBLAS, WGMMA, 0, "cublasGemmEx"});
    all.push_back({CEILING, MMA_SYNC, 0, "mma.sync ceiling (registers only)"});
    all.push_back({CEILING, WGMMA, 0, "wgmma ceiling (resident tile)"});

    std::vector<job *> timed;
    for (job &j : all) {
        j.a = a, j.b = b, j.m = m, j.n = n, j.k = k, j.cublas = cublas, j.sink = sink;
        j.blocks = j.on == MMA_SYNC ? 8 * dev.sms : dev.sms, j.iterations = 4096;
        if (j.what == CEILING) {
            timed.push_back(&j);
            continue;
        }
        CHECK(cudaMalloc(&j.c, nc * 4));
        CHECK(cudaMemset(j.c, 0xff, nc * 4)); /* poisoned: NaN */
        cudaError_t err = run(&j, stream);
        if (err == cudaSuccess)
            err = cudaStreamSynchronize(stream);
        if (err != cudaSuccess) {
            printf("%dx%dx%d: %s: %s: left out\n", m, n, k, j.name.c_str(),
                   cudaGetErrorString(err));
            (void)cudaGetLastError();
            continue;
        }
        CHECK(cudaMemcpy(got.data(), j.c, nc * 4, cudaMemcpyDeviceToHost));
        if (gemm_matches(got.data(), want.data(), nc, m, n, k))
            timed.push_back(&j);
        else
            printf("  (%s: left out)\n", j.name.c_str());
    }
    std::vector<void *> args(timed.begin(), timed.end());
    std::vector<bf_timing> t(timed.size());
    CHECK(bf_time_together((int)timed.size(), run, args.data(), stream, &opts, t.data()));

    double ceiling_rate[2] = {0, 0}, ours_ms[2] = {0, 0}, cublas_ms = 0;
    for (size_t q = 0; q < timed.size(); ++q) {
        const job &j = *timed[q];
        if (j.what == CEILING)
            ceiling_rate[j.on] = ceiling_flops(j) / (t[q].median_ms * 1e-3);
        if (j.what == OURS && (ours_ms[j.on] == 0 || t[q].median_ms < ours_ms[j.on]))
            ours_ms[j.on] = t[q].median_ms;
        if (j.what == CUBLAS)
            cublas_ms = t[q].median_ms;
    }
    const double flops = 2.0 * m * n * k;
    printf("\n%dx%dx%d: fp16 in, fp32 C; L2 flushed, medians, timed in turns\n", m, n, k);
    printf("| kernel | path | ms | reps | TFLOP/s | SM MHz | of_ceiling | vs_cublas | vs_ours |\n");
    printf("|---|---|--:|--:|--:|--:|--:|--:|--:|\n");
    for (size_t q = 0; q < timed.size(); ++q) {
        const job &j = *timed[q];
        const double ms = t[q].median_ms, rate = j.what == CEILING ? ceiling_flops(j) / (ms * 1e-3)
                                                                   : flops / (ms * 1e-3);
        printf("| %s | %s | %.4f | %d | %.1f | %.0f | %.3f |", j.name.c_str(),
               j.on == MMA_SYNC ? "mma.sync" : "wgmma", ms, t[q].reps, rate * 1e-12, t[q].mhz,
               ceiling_rate[j.on] > 0 ? rate / ceiling_rate[j.on] : 0.0);
        if (j.what == CEILING)
            printf(" - | - |\n");
        else
            printf(" %.3f | %.3f |\n", cublas_ms / ms, ours_ms[j.on] / ms);
    }
    for (job &j : all)
        if (j.what != CEILING)
            cudaFree(j.c);
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(reference));
}

int main(int argc, char **argv)
{
    static const int sweep[] = {256,  256,  256,  512,  512,  512,  1024,  1024,
                                1024, 2048, 2048, 2048, 4096, 4096, 4096,  8192,
                                8192, 8192, 8192, 1024, 8192, 1000, 11008, 4096};
    std::vector<int> shapes(sweep, sweep + sizeof sweep / sizeof sweep[0]);
    if (argc > 1) {
        if ((argc - 1) % 3 != 0) {
            fprintf(stderr, "usage: cutlass [M N K ...]\n");
            return 2;
        }
        shapes.clear();
        for (int i = 1; i < argc; ++i)
            shapes.push_back(atoi(argv[i]));
    }
    bf_device dev;
    const int open = bf_device_open(&dev, -1);
    if (open != 0)
        return open;
    cublasHandle_t cublas;
    if (cublasCreate(&cublas) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cublasCreate failed\n");
        return 1;
    }
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    float *sink;
    CHECK(cudaMalloc(&sink, (size_t)8 * dev.sms * GEMM_TILE_CEILING_THREADS * sizeof(float)));
    bf_timing_opts opts = bf_timing_defaults();
    const size_t flush_bytes = 2 * dev.l2_bytes; /* as the bench flushes */
    CHECK(cudaMalloc(&opts.flush, flush_bytes));
    opts.flush_bytes = flush_bytes;
    opts.sms = dev.sms;
    opts.max_mhz = dev.max_sm_clock_mhz;
    opts.min_reps = 30;
    opts.max_reps = 200;
    opts.max_seconds = 1.5;
    printf("%s, %d SMs, SM clock max %d MHz, CUDA runtime %d\n", dev.name, dev.sms,
           dev.max_sm_clock_mhz, dev.runtime_version);
    for (size_t i = 0; i + 2 < shapes.size(); i += 3)
        one_shape(dev, cublas, stream, opts, sink, shapes[i], shapes[i + 1], shapes[i + 2]);
    return 0;
}
