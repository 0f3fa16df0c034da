/* What a block of the 16-bit histogram kernels spends where: the kernels of
 * histogram.cu, built with their phase hook (HISTOGRAM_MARK, empty in the
 * library) stamping each block's SM clock (clock64) and the global timer
 * (%globaltimer, ns) at its four points: entry, counters cleared, samples
 * counted, counts merged. The clear, the count and the merge of a block are
 * its clock's differences (ns at the clock measured below), the kernel's
 * span the global timer's, from the first block's entry to the last block's
 * end; beside them the CUDA events around the call (the memset of hist and
 * the kernel, as bankfree bench times it). Per phase, the median over the
 * blocks, then over the reps; L2 flushed before every rep as the sweep does
 * (--warm: left as the last rep left it, as bench's 32 MiB).
 *
 * Variants: shared (one copy), replicated with the copies the library picks
 * for the size (histogram_copies), and replicated with 4 and 8 copies forced,
 * on 16-bit uniform, all-equal and one-bank samples. Each output is checked
 * against the shared variant's and its total against n.
 *   phases [--warm] [BYTES ...]   (default: 65536 1048576 16777216 33554432) */
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define PHASES_BLOCKS 2048
__device__ unsigned long long phases_clock[PHASES_BLOCKS][4], phases_timer[PHASES_BLOCKS][4];

/* In the shared-memory variants (the only ones run here) every thread of the
 * block passes each point; thread 0 stamps it once all have (the barrier is
 * the probe's, not the library's). */
static __device__ __forceinline__ void phases_mark(int point)
{
    __syncthreads();
    if (threadIdx.x != 0 || blockIdx.x >= PHASES_BLOCKS)
        return;
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    phases_timer[blockIdx.x][point] = now;
    phases_clock[blockIdx.x][point] = (unsigned long long)clock64();
}
#define HISTOGRAM_MARK(point) phases_mark(point)
/* This file holds its own copy of the library's kernels: its entry points
 * renamed, so that none can clash with bankfree_kernels'. Its template
 * kernels, built with the hook, stay its own through nvcc's default
 * --static-global-template-stub=true (CUDA 13.0: static host stubs), as the
 * gemm_tile and transpose probes' included kernels do. */
#define histogram_u8          phases_histogram_u8
#define histogram_u16         phases_histogram_u16
#include "histogram/histogram.cu"

#include "common/check.h"
#include "histogram/histogram_suite.h"

/* The SM clock against the global timer over `ns` of spinning, and the
 * global timer's step (the smallest change it shows). */
__global__ void calibrate(unsigned long long *out, unsigned long long ns)
{
    unsigned long long t0, t1, a, b, step = ~0ull;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    const long long c0 = clock64();
    do
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    while (t1 - t0 < ns);
    const long long c1 = clock64();
    for (int i = 0; i < 64; ++i) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(a));
        do
            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(b));
        while (b == a);
        step = b - a < step ? b - a : step;
    }
    out[0] = (unsigned long long)(c1 - c0);
    out[1] = t1 - t0;
    out[2] = step;
}

static double mhz(unsigned long long *d_out, unsigned long long *step)
{
    unsigned long long h[3];
    calibrate<<<1, 1>>>(d_out, 2000000ull); /* 2 ms */
    BF_CHECK(cudaGetLastError());
    BF_CHECK(cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost));
    *step = h[2];
    return (double)h[0] / (double)h[1] * 1e3;
}

template <class T> static T median(std::vector<T> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? T() : v[v.size() / 2];
}

enum { SHARED, LIBRARY, FORCED4, FORCED8, CONFIGS };
static const char *const config_names[CONFIGS] = {"shared", "replicated", "replicated, 4 forced",
                                                  "replicated, 8 forced"};

/* One call as the library makes it: hist cleared on the stream, then the
 * kernel; the forced ones through the launcher with the copies given. */
static cudaError_t run(int config, uint32_t *hist, const uint8_t *in, int64_t n)
{
    if (config == SHARED)
        return phases_histogram_u16(HISTOGRAM_SHARED, hist, in, n, 0);
    if (config == LIBRARY)
        return phases_histogram_u16(HISTOGRAM_REPLICATED, hist, in, n, 0);
    cudaError_t err = cudaMemsetAsync(hist, 0, 4u * HISTOGRAM_U16_BINS, 0);
    if (err != cudaSuccess)
        return err;
    int device, sms;
    struct bf_sm_limits sm;
    BF_CHECK(cudaGetDevice(&device));
    BF_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    BF_CHECK(bf_sm_limits_query(device, &sm));
    const struct histogram_split split = histogram_split_input((uintptr_t)in, 2, n);
    const int64_t blocks =
        histogram_blocks(HISTOGRAM_REPLICATED, HISTOGRAM_U16_BINS, split.vectors, sms, sm);
    if (config == FORCED4)
        return launch<HISTOGRAM_REPLICATED, HISTOGRAM_U16_BINS, 4>(hist, in, split, blocks, 0);
    return launch<HISTOGRAM_REPLICATED, HISTOGRAM_U16_BINS, 8>(hist, in, split, blocks, 0);
}

static int warm;

int main(int argc, char **argv)
{
    int first = 1;
    for (; first < argc && argv[first][0] == '-'; ++first)
        warm |= strcmp(argv[first], "--warm") == 0;
    std::vector<int64_t> sizes;
    for (int i = first; i < argc; ++i)
        sizes.push_back(atoll(argv[i]));
    if (sizes.empty())
        sizes = {65536, 1048576, 16777216, 33554432};
    int64_t most = 0;
    for (int64_t s : sizes)
        most = std::max(most, s);

    int device, sms, l2, optin;
    cudaDeviceProp prop;
    BF_CHECK(cudaGetDevice(&device));
    BF_CHECK(cudaGetDeviceProperties(&prop, device));
    BF_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    struct bf_sm_limits sm;
    BF_CHECK(bf_sm_limits_query(device, &sm));
    BF_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    BF_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    const size_t flush_bytes = std::max((size_t)256 << 20, 4 * (size_t)l2);
    void *flush;
    uint8_t *in;
    uint32_t *hist, *ref;
    unsigned long long *cal, *d_clock, *d_timer;
    BF_CHECK(cudaMalloc(&flush, flush_bytes));
    BF_CHECK(cudaMalloc((void **)&in, (size_t)most));
    BF_CHECK(cudaMalloc((void **)&hist, 4 * HISTOGRAM_U16_BINS));
    BF_CHECK(cudaMalloc((void **)&ref, 4 * HISTOGRAM_U16_BINS));
    BF_CHECK(cudaMalloc((void **)&cal, 3 * sizeof(unsigned long long)));
    BF_CHECK(cudaGetSymbolAddress((void **)&d_clock, phases_clock));
    BF_CHECK(cudaGetSymbolAddress((void **)&d_timer, phases_timer));
    unsigned long long step;
    const double clock_mhz = mhz(cal, &step);
    printf("# %s, %d SMs; SM clock %.0f MHz against the global timer (step %llu ns); L2 %s\n",
           prop.name, sms, clock_mhz, step, warm ? "warm" : "flushed before every rep");
    printf("# ns, medians over blocks then reps; span: first entry to last end (global timer); "
           "event: memset + kernel\n");
    printf("%-9s %-8s %-21s %6s %6s %7s %8s %7s %8s %8s %7s %8s %s\n", "bytes", "input", "variant",
           "copies", "blocks", "clear", "count", "merge", "block", "span", "spread", "event",
           "check");

    static unsigned long long clk[PHASES_BLOCKS][4], tim[PHASES_BLOCKS][4];
    cudaEvent_t start, stop;
    BF_CHECK(cudaEventCreate(&start));
    BF_CHECK(cudaEventCreate(&stop));
    const enum histogram_input inputs[] = {HISTOGRAM_UNIFORM, HISTOGRAM_SAME, HISTOGRAM_ONEBANK};
    const char *const input_names[] = {"uniform", "same", "onebank"};
    const int reps = 30;
    for (int64_t bytes : sizes)
        for (int k = 0; k < 3; ++k) {
            const int64_t n = bytes / 2;
            BF_CHECK(histogram_fill(in, n, HISTOGRAM_U16_BINS, inputs[k], 1, 0));
            const struct histogram_split split = histogram_split_input((uintptr_t)in, 2, n);
            for (int config = 0; config < CONFIGS; ++config) {
                const enum histogram_variant v =
                    config == SHARED ? HISTOGRAM_SHARED : HISTOGRAM_REPLICATED;
                const int64_t blocks =
                    histogram_blocks(v, HISTOGRAM_U16_BINS, split.vectors, sms, sm);
                const int copies =
                    config == FORCED4 ? 4
                    : config == FORCED8
                        ? 8
                        : histogram_copies(v, HISTOGRAM_U16_BINS,
                                           histogram_share(split.vectors, blocks), optin);
                const int stamped = (int)std::min<int64_t>(blocks, PHASES_BLOCKS);
                std::vector<double> clear, count, merge, block, span, spread, event;
                for (int rep = -3; rep < reps; ++rep) {
                    BF_CHECK(cudaMemsetAsync(d_clock, 0, sizeof clk));
                    BF_CHECK(cudaMemsetAsync(d_timer, 0, sizeof tim));
                    if (!warm)
                        BF_CHECK(cudaMemsetAsync(flush, rep & 0xff, flush_bytes));
                    BF_CHECK(cudaEventRecord(start));
                    BF_CHECK(run(config, hist, in, n));
                    BF_CHECK(cudaEventRecord(stop));
                    BF_CHECK(cudaEventSynchronize(stop));
                    if (rep < 0)
                        continue;
                    float ms;
                    BF_CHECK(cudaEventElapsedTime(&ms, start, stop));
                    event.push_back(1e6 * ms);
                    BF_CHECK(cudaMemcpy(clk, d_clock, sizeof clk, cudaMemcpyDeviceToHost));
                    BF_CHECK(cudaMemcpy(tim, d_timer, sizeof tim, cudaMemcpyDeviceToHost));
                    std::vector<double> c[4];
                    unsigned long long entry = ~0ull, last_entry = 0, end = 0;
                    for (int b = 0; b < stamped; ++b) {
                        for (int p = 0; p < 3; ++p)
                            c[p].push_back((double)(clk[b][p + 1] - clk[b][p]));
                        c[3].push_back((double)(clk[b][3] - clk[b][0]));
                        entry = std::min(entry, tim[b][0]);
                        last_entry = std::max(last_entry, tim[b][0]);
                        end = std::max(end, tim[b][3]);
                    }
                    const double ns = 1e3 / clock_mhz;
                    clear.push_back(median(c[0]) * ns);
                    count.push_back(median(c[1]) * ns);
                    merge.push_back(median(c[2]) * ns);
                    block.push_back(median(c[3]) * ns);
                    span.push_back((double)(end - entry));
                    spread.push_back((double)(last_entry - entry));
                }
                /* the output: the shared variant's is the reference of the others */
                std::vector<uint32_t> got(HISTOGRAM_U16_BINS), want(HISTOGRAM_U16_BINS);
                BF_CHECK(
                    cudaMemcpy(got.data(), hist, 4 * HISTOGRAM_U16_BINS, cudaMemcpyDeviceToHost));
                if (config == SHARED)
                    BF_CHECK(
                        cudaMemcpy(ref, hist, 4 * HISTOGRAM_U16_BINS, cudaMemcpyDeviceToDevice));
                BF_CHECK(
                    cudaMemcpy(want.data(), ref, 4 * HISTOGRAM_U16_BINS, cudaMemcpyDeviceToHost));
                uint32_t total = 0;
                for (uint32_t x : got)
                    total += x;
                const bool ok = got == want && total == (uint32_t)n;
                printf("%-9lld %-8s %-21s %6d %6lld %7.0f %8.0f %7.0f %8.0f %8.0f %7.0f %8.0f %s\n",
                       (long long)bytes, input_names[k], config_names[config], copies,
                       (long long)blocks, median(clear), median(count), median(merge),
                       median(block), median(span), median(spread), median(event),
                       ok ? "ok" : "WRONG");
                fflush(stdout);
            }
        }
    const double after = mhz(cal, &step);
    printf("# SM clock after the runs: %.0f MHz\n", after);
    BF_CHECK(cudaFree(flush));
    BF_CHECK(cudaFree(in));
    BF_CHECK(cudaFree(hist));
    BF_CHECK(cudaFree(ref));
    BF_CHECK(cudaFree(cal));
    return 0;
}
