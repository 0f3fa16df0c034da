// Layout sweep for the histogram family: timings only (cudaEvents, median).
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_reduce.cuh>
#include "common/check.h"
#include "common/data.h"
#include "common/ceilings.h" /* built from the repository root: -I. */

enum { IN_UNIFORM, IN_SAME, IN_SKEWED, IN_ONEBANK, NIN };
static const char *inname[NIN] = {"uniform", "same", "skewed", "onebank"};
__global__ void fill(uint8_t *d, size_t nbytes, int mode, int u16)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < nbytes / 2;
         i += (size_t)gridDim.x * blockDim.x) {
        uint64_t h = bf_random_bits(12345, i);
        uint16_t v;
        if (!u16) {
            uint8_t b[2];
            for (int k = 0; k < 2; ++k) {
                uint32_t r = (uint32_t)(h >> (32 * k));
                b[k] =
                    mode == IN_UNIFORM ? r & 255
                    : mode == IN_SAME  ? 77
                    : mode == IN_SKEWED
                        ? (uint8_t)min(255u, (__ffs(r | 0x80000000u) - 1) * 16 + ((r >> 27) & 15))
                        : (uint8_t)((r & 7) << 5);
            }
            v = b[0] | (b[1] << 8);
        } else {
            uint32_t r = (uint32_t)h;
            uint32_t bin =
                mode == IN_UNIFORM ? (r >> 4) & 4095
                : mode == IN_SAME  ? 1234
                : mode == IN_SKEWED
                    ? min(4095u, (uint32_t)(__ffs((uint32_t)(h >> 32) | 0x80000000u) - 1) * 256 +
                                     ((r >> 8) & 255))
                    : ((r >> 8) & 127) * 32;
            v = (uint16_t)(bin << 4 | (r & 15));
        }
        ((uint16_t *)d)[i] = v;
    }
}

// ---- layouts ----
enum { L_GLOBAL, L_ONE, L_LANE32, L_COPY8, L_GRP8, L_GRP8_SPLIT, L_GRP16, L_GRP16_SPLIT, L_PAD8 };
static const char *lname[] = {"global",
                              "one copy",
                              "32 lane copies bin*32+lane",
                              "8 copies bin*8+lane%8",
                              "8 copies in 4-bank groups, 1 instr (<=4-way)",
                              "8 copies in 4-bank groups, 4 instrs of 8 lanes",
                              "16 copies 16-bit in 2-bank groups, 1 instr (<=2-way)",
                              "16 copies 16-bit, 2 instrs of 16 lanes",
                              "8 copies +1 word padding (Gomez-Luna)"};
template <int L, int BINS> __host__ __device__ constexpr int smem_words()
{
    return L == L_GLOBAL                          ? 1
           : L == L_ONE                           ? BINS
           : L == L_LANE32                        ? BINS * 32
           : L == L_COPY8                         ? BINS * 8
           : (L == L_GRP16 || L == L_GRP16_SPLIT) ? BINS * 8
           : L == L_PAD8                          ? 8 * (BINS + 1)
                                                  : BINS * 8;
}
template <int L>
__device__ __forceinline__ void update(uint32_t *s, uint32_t *g, uint32_t bin, int lane, int BINS)
{
    if (L == L_GLOBAL)
        atomicAdd(&g[bin], 1u);
    else if (L == L_ONE)
        atomicAdd(&s[bin], 1u);
    else if (L == L_LANE32)
        atomicAdd(&s[bin * 32 + lane], 1u);
    else if (L == L_COPY8)
        atomicAdd(&s[bin * 8 + (lane & 7)], 1u);
    else if (L == L_GRP8)
        atomicAdd(&s[(bin >> 2) * 32 + 4 * (lane & 7) + (bin & 3)], 1u);
    else if (L == L_GRP8_SPLIT) {
        uint32_t w = (bin >> 2) * 32 + 4 * (lane & 7) + (bin & 3);
#pragma unroll
        for (int q = 0; q < 4; ++q)
            if ((lane >> 3) == q)
                atomicAdd(&s[w], 1u);
    } else if (L == L_GRP16)
        atomicAdd(&s[(bin >> 2) * 32 + 2 * (lane & 15) + ((bin >> 1) & 1)], 1u << (16 * (bin & 1)));
    else if (L == L_GRP16_SPLIT) {
        uint32_t w = (bin >> 2) * 32 + 2 * (lane & 15) + ((bin >> 1) & 1),
                 v = 1u << (16 * (bin & 1));
#pragma unroll
        for (int q = 0; q < 2; ++q)
            if ((lane >> 4) == q)
                atomicAdd(&s[w], v);
    } else
        atomicAdd(&s[(lane & 7) * (BINS + 1) + bin], 1u);
}
// bins of one 4-byte word of input
template <int L, int U16>
__device__ __forceinline__ void word_update(uint32_t *s, uint32_t *g, uint32_t w, int lane)
{
    if (U16) {
        update<L>(s, g, (w & 0xffff) >> 4, lane, 4096);
        update<L>(s, g, w >> 20, lane, 4096);
    } else {
#pragma unroll
        for (int k = 0; k < 4; ++k)
            update<L>(s, g, (w >> (8 * k)) & 255, lane, 256);
    }
}
// add the block's counters into totals held by thread (rows), then zero them
template <int L, int BINS, int THREADS>
__device__ __forceinline__ void drain(uint32_t *s, uint32_t *tot, int tid)
{
    if constexpr (L == L_ONE) {
        for (int b = tid, k = 0; b < BINS; b += THREADS, ++k) {
            tot[k] += s[b];
            s[b] = 0;
        }
        return;
    } else if constexpr (L == L_LANE32 || L == L_COPY8 || L == L_PAD8) { // rows per bin
        const int C = L == L_LANE32 ? 32 : 8;
        for (int b = tid, k = 0; b < BINS; b += THREADS, ++k) {
            uint32_t t = 0;
            for (int i = 0; i < C; ++i) {
                int c = (i + tid) % C;
                uint32_t *p = L == L_PAD8 ? &s[c * (BINS + 1) + b] : &s[b * C + c];
                t += *p;
                *p = 0;
            }
            tot[k] += t;
        }
        return;
    } else {
        // rows of 32 words hold 4 bins
        for (int r = tid, k = 0; r < BINS / 4; r += THREADS, ++k) {
            for (int i = 0; i < 32; ++i) {
                int c = (i + tid) & 31;
                uint32_t v = s[r * 32 + c];
                s[r * 32 + c] = 0;
                if (L == L_GRP8 || L == L_GRP8_SPLIT)
                    tot[4 * k + (c & 3)] += v;
                else {
                    int b = 2 * (c & 1);
                    tot[4 * k + b] += v & 0xffff;
                    tot[4 * k + b + 1] += v >> 16;
                }
            }
        }
    }
}
template <int L, int U16, int THREADS, int LOADS, int MINB>
__global__ void __launch_bounds__(THREADS, MINB) hist(uint32_t *g, const uint4 *in, int64_t nvec)
{
    constexpr int BINS = U16 ? 4096 : 256;
    extern __shared__ uint32_t s[];
    const int tid = threadIdx.x, lane = tid & 31;
    constexpr int TOT = (BINS + THREADS - 1) / THREADS;
    uint32_t tot[TOT > 4 ? TOT : 4] = {0};
    if (L != L_GLOBAL) {
        for (int i = tid; i < smem_words<L, BINS>(); i += THREADS)
            s[i] = 0;
        __syncthreads();
    }
    const int64_t tile = (int64_t)THREADS * LOADS;
    // 16-bit counters: a copy is shared by 2 lanes x THREADS/32 warps; LOADS*8 samples a tile each
    const int64_t round_tiles = (L == L_GRP16 || L == L_GRP16_SPLIT)
                                    ? 65535 / (2 * (THREADS / 32) * LOADS * 8)
                                    : (int64_t)1 << 40;
    int64_t t0 = blockIdx.x * tile, step = (int64_t)gridDim.x * tile;
    int64_t done = 0;
    for (int64_t base = t0; base < nvec; base += step) {
        uint4 x[LOADS];
#pragma unroll
        for (int k = 0; k < LOADS; ++k) {
            int64_t v = base + k * THREADS + tid;
            x[k] = v < nvec ? __ldg(in + v) : make_uint4(0, 0, 0, 0);
        }
#pragma unroll
        for (int k = 0; k < LOADS; ++k) {
            if (base + k * THREADS + tid < nvec) {
                word_update<L, U16>(s, g, x[k].x, lane);
                word_update<L, U16>(s, g, x[k].y, lane);
                word_update<L, U16>(s, g, x[k].z, lane);
                word_update<L, U16>(s, g, x[k].w, lane);
            }
        }
        if (++done == round_tiles) {
            done = 0;
            __syncthreads();
            drain<L, BINS, THREADS>(s, tot, tid);
            __syncthreads();
        }
    }
    if (L == L_GLOBAL)
        return;
    __syncthreads();
    drain<L, BINS, THREADS>(s, tot, tid);
    if (L == L_ONE || L == L_LANE32 || L == L_COPY8 || L == L_PAD8) {
        for (int b = tid, k = 0; b < BINS; b += THREADS, ++k)
            if (tot[k])
                atomicAdd(&g[b], tot[k]);
    } else
        for (int r = tid, k = 0; r < BINS / 4; r += THREADS, ++k)
            for (int j = 0; j < 4; ++j)
                if (tot[4 * k + j])
                    atomicAdd(&g[4 * r + j], tot[4 * k + j]);
}

struct Cfg {
    int L, u16, threads, loads, minb;
    void (*k)(uint32_t *, const uint4 *, int64_t);
    int words;
};
#define CFG(L, U, T, LD, MB)                                                                       \
    {                                                                                              \
        L, U, T, LD, MB, hist<L, U, T, LD, MB>, smem_words<L, (U ? 4096 : 256)>()                  \
    }
static Cfg cfgs[] = {
    CFG(L_ONE, 0, 1024, 2, 2),
    CFG(L_ONE, 0, 1024, 4, 2),
    CFG(L_ONE, 0, 512, 4, 4),
    CFG(L_LANE32, 0, 1024, 2, 2),
    CFG(L_LANE32, 0, 1024, 4, 2),
    CFG(L_LANE32, 0, 512, 4, 4),
    CFG(L_LANE32, 0, 512, 8, 2),
    CFG(L_LANE32, 0, 256, 8, 4),
    CFG(L_LANE32, 0, 512, 4, 2),
    CFG(L_ONE, 1, 1024, 2, 2),
    CFG(L_ONE, 1, 1024, 4, 2),
    CFG(L_ONE, 1, 1024, 4, 1),
    CFG(L_GRP8, 1, 1024, 4, 1),
    CFG(L_GRP8, 1, 1024, 8, 1),
    CFG(L_GRP8, 1, 1024, 2, 1),
    CFG(L_PAD8, 1, 1024, 4, 1),
    /* the alternatives docs/notes/histogram/ rejects, measured here */
    CFG(L_GLOBAL, 0, 512, 4, 4),
    CFG(L_COPY8, 0, 512, 4, 4),
    CFG(L_GRP8_SPLIT, 1, 1024, 4, 1),
    CFG(L_GRP16, 1, 1024, 4, 1),
    CFG(L_GRP16_SPLIT, 1, 1024, 4, 1),
};

static float time_ms(int reps, cudaStream_t st, void (*f)(void *, cudaStream_t), void *arg)
{
    cudaEvent_t a, b;
    BF_CHECK(cudaEventCreate(&a));
    BF_CHECK(cudaEventCreate(&b));
    for (int i = 0; i < 2; ++i)
        f(arg, st);
    std::vector<float> v;
    for (int i = 0; i < reps; ++i) {
        float ms;
        BF_CHECK(cudaEventRecord(a, st));
        f(arg, st);
        BF_CHECK(cudaEventRecord(b, st));
        BF_CHECK(cudaEventSynchronize(b));
        BF_CHECK(cudaEventElapsedTime(&ms, a, b));
        v.push_back(ms);
    }
    std::sort(v.begin(), v.end());
    BF_CHECK(cudaEventDestroy(a));
    BF_CHECK(cudaEventDestroy(b));
    return v[v.size() / 2];
}
struct Run {
    Cfg *c;
    int blocks;
    uint32_t *g;
    const uint4 *in;
    int64_t nvec;
};
static void run_cfg(void *p, cudaStream_t st)
{
    Run *r = (Run *)p;
    BF_CHECK(cudaMemsetAsync(r->g, 0, 4096 * 4, st));
    r->c->k<<<r->blocks, r->c->threads, r->c->words * 4, st>>>(r->g, r->in, r->nvec);
    BF_CHECK(cudaGetLastError());
}
struct CubRun {
    int u16;
    void *tmp;
    size_t tmpb;
    uint32_t *g;
    const void *in;
    int64_t nbytes;
    int32_t *sum;
    void *work;
    size_t workb;
};
static void run_cubh(void *p, cudaStream_t st)
{
    CubRun *r = (CubRun *)p;
    if (!r->u16)
        BF_CHECK(cub::DeviceHistogram::HistogramEven(r->tmp, r->tmpb, (const uint8_t *)r->in,
                                                     (int *)r->g, 257, 0, 256, (int64_t)r->nbytes,
                                                     st));
    else
        BF_CHECK(cub::DeviceHistogram::HistogramEven(r->tmp, r->tmpb, (const uint16_t *)r->in,
                                                     (int *)r->g, 4097, 0, 65536,
                                                     (int64_t)r->nbytes / 2, st));
}
static void run_cubsum(void *p, cudaStream_t st)
{
    CubRun *r = (CubRun *)p;
    BF_CHECK(
        cub::DeviceReduce::Sum(r->tmp, r->tmpb, (const int32_t *)r->in, r->sum, r->nbytes / 4, st));
}
/* The read stream the bench holds the family to (common/ceilings.h). */
static void run_tuned(void *p, cudaStream_t st)
{
    CubRun *r = (CubRun *)p;
    BF_CHECK(bf_read_ceiling((uint32_t *)r->work, r->in, (size_t)r->nbytes, st));
}

int main()
{
    int sms;
    BF_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int64_t big = (int64_t)1 << 30, small = (int64_t)32 << 20;
    uint8_t *d;
    BF_CHECK(cudaMalloc(&d, big));
    uint32_t *g, *ref;
    BF_CHECK(cudaMalloc(&g, 4096 * 4));
    ref = (uint32_t *)malloc(4096 * 4);
    uint32_t *got = (uint32_t *)malloc(4096 * 4);
    int32_t *sum;
    BF_CHECK(cudaMalloc(&sum, 4));
    void *tmp;
    size_t tmpb = 64 << 20;
    BF_CHECK(cudaMalloc(&tmp, tmpb));
    size_t workb = 4 * (size_t)bf_read_ceiling_blocks((size_t)big);
    void *work;
    BF_CHECK(cudaMalloc(&work, workb));
    for (auto &c : cfgs)
        BF_CHECK(
            cudaFuncSetAttribute(c.k, cudaFuncAttributeMaxDynamicSharedMemorySize, c.words * 4));
    for (int u16 = 0; u16 < 2; ++u16)
        for (int in = 0; in < NIN; ++in) {
            fill<<<sms * 8, 512>>>(d, big, in, u16);
            BF_CHECK(cudaGetLastError());
            BF_CHECK(cudaDeviceSynchronize());
            for (int sz = 0; sz < 2; ++sz) {
                int64_t nb = sz ? small : big;
                CubRun cr = {u16, tmp, tmpb, g, d, nb, sum, work, workb};
                size_t need = 0;
                if (!u16)
                    BF_CHECK(cub::DeviceHistogram::HistogramEven(
                        nullptr, need, (const uint8_t *)d, (int *)g, 257, 0, 256, (int64_t)nb, 0));
                else
                    BF_CHECK(cub::DeviceHistogram::HistogramEven(nullptr, need, (const uint16_t *)d,
                                                                 (int *)g, 4097, 0, 65536,
                                                                 (int64_t)nb / 2, 0));
                if (need > tmpb) {
                    printf("cub tmp too big\n");
                    return 1;
                }
                int reps = sz ? 200 : 30;
                float tc = time_ms(reps, 0, run_cubh, &cr);
                BF_CHECK(cudaMemcpy(ref, g, 4096 * 4, cudaMemcpyDeviceToHost));
                float ts = time_ms(reps, 0, run_cubsum, &cr), tt = time_ms(reps, 0, run_tuned, &cr);
                float ceil_ms = std::min(ts, tt);
                printf("\n== %s %s %s: ceiling %.1f GB/s (cub sum %.1f, tuned %.1f); CUB histogram "
                       "%.1f GB/s (%.3f of ceiling)\n",
                       u16 ? "u16/4096" : "u8/256", inname[in], sz ? "32MiB warm" : "1GiB",
                       nb / ceil_ms / 1e6, nb / ts / 1e6, nb / tt / 1e6, nb / tc / 1e6,
                       ceil_ms / tc);
                for (auto &c : cfgs) {
                    if (c.u16 != u16)
                        continue;
                    int occ;
                    BF_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, c.k, c.threads,
                                                                           c.words * 4));
                    for (int mult = 1; mult <= 2; ++mult) {
                        if (c.L == L_GLOBAL && mult == 2)
                            continue;
                        if (mult == 2 && c.L == L_GRP8)
                            continue;
                        int blocks = c.L == L_GLOBAL
                                         ? (int)std::min<int64_t>(
                                               nb / 16 / (c.threads * c.loads) + 1, 1 << 20)
                                         : occ * sms * mult;
                        Run r = {&c, blocks, g, (const uint4 *)d, nb / 16};
                        int rr = (c.L == L_GLOBAL && !sz) ? 3 : reps;
                        float t = time_ms(rr, 0, run_cfg, &r);
                        BF_CHECK(cudaMemcpy(got, g, 4096 * 4, cudaMemcpyDeviceToHost));
                        int bad = 0;
                        for (int b = 0; b < (u16 ? 4096 : 256); ++b)
                            bad += got[b] != ref[b];
                        printf("  %-55s T%4d L%d MB%d blocks %5d (occ %d) %8.4f ms %7.1f GB/s  "
                               "%.3f of ceil  %.2fx CUB %s\n",
                               lname[c.L], c.threads, c.loads, c.minb, blocks, occ, t, nb / t / 1e6,
                               ceil_ms / t, tc / t, bad ? "WRONG" : "");
                    }
                }
            }
        }
    return 0;
}
