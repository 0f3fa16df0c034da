// Standalone GPU check of the histogram family's kernels (before the runner
// knows the family): correctness at edge sizes and alignments against the CPU
// reference, then timing against CUB and the read ceiling.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include "histogram/histogram.h"
#include "histogram/histogram_suite.h"
#include "reduction/reduction.h"
#include "reduction/reduction_cub.h"
extern "C" {
#include "histogram/histogram_ref.h"
}
#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e = (x);                                                                       \
        if (e) {                                                                                   \
            printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e));                       \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
static const char *vn[] = {"global", "shared", "replicated"},
                  *inn[] = {"uniform", "same", "skewed", "onebank"};
static void ref(const uint8_t *d, size_t bytes, int bins, uint32_t *want)
{
    memset(want, 0, 4096 * 4);
    size_t chunk = 1 << 26;
    std::vector<uint8_t> h(chunk);
    for (size_t i = 0; i < bytes; i += chunk) {
        size_t m = std::min(chunk, bytes - i);
        CK(cudaMemcpy(h.data(), d + i, m, cudaMemcpyDeviceToHost));
        if (bins == 256)
            histogram_ref_add_u8(want, h.data(), m);
        else
            histogram_ref_add_u16(want, h.data(), m / 2);
    }
}
static cudaError_t run(int v, int bins, uint32_t *hist, const void *in, int64_t n, cudaStream_t s)
{
    return bins == 256 ? histogram_u8((histogram_variant)v, hist, (const uint8_t *)in, n, s)
                       : histogram_u16((histogram_variant)v, hist, (const uint16_t *)in, n, s);
}
int main(int argc, char **argv)
{
    const int64_t sizes[] = {0,  1,    2,    3,     15,      16,       17,         31,
                             33, 1021, 4099, 65537, 1000003, 16777259, 1073741824, 4294967301LL};
    uint8_t *base;
    CK(cudaMalloc(&base, (size_t)4294967301LL + 64));
    uint32_t *hist;
    CK(cudaMalloc(&hist, 4096 * 4));
    static uint32_t want[4096], got[4096];
    int fails = 0, cases = 0;
    for (int bi = 0; bi < 2; ++bi)
        for (int in = 0; in < 4; ++in)
            for (int64_t size : sizes) {
                int bins = bi ? 4096 : 256, sb = bi ? 2 : 1;
                int64_t n = size / sb;
                size_t off = size % 16;
                if (size > 1073741824 && in != 1 && in != 0)
                    continue;
                CK(histogram_fill(base + off, n, bins, (histogram_input)in, 1234 + size, 0));
                ref(base + off, (size_t)n * sb, bins, want);
                for (int v = 0; v < 3; ++v) {
                    if (v == 0 && size > 1073741824)
                        continue;
                    CK(cudaMemset(hist, 0xff, 4096 * 4));
                    CK(run(v, bins, hist, base + off, n, 0));
                    CK(cudaDeviceSynchronize());
                    CK(cudaMemcpy(got, hist, bins * 4, cudaMemcpyDeviceToHost));
                    ++cases;
                    int bad = 0, first = -1;
                    for (int b = 0; b < bins; ++b)
                        if (got[b] != want[b]) {
                            if (first < 0)
                                first = b;
                            ++bad;
                        }
                    if (bad) {
                        ++fails;
                        printf("FAIL %s bins %d %s size %lld off %zu: %d bins wrong, bin %d got %u "
                               "want %u\n",
                               vn[v], bins, inn[in], (long long)size, off, bad, first, got[first],
                               want[first]);
                    }
                }
                if (size == 4294967301LL && bins == 256 && in == 1) {
                    int b = 0;
                    for (; b < 256 && !want[b]; ++b)
                        ;
                    printf("overflow case: bin %d count %u (2^32+5 mod 2^32 = 5)\n", b, want[b]);
                }
            }
    printf("correctness: %d cases, %d failed\n", cases, fails);
    // timing
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    void *tmp;
    size_t tmpb = 256 << 20;
    CK(cudaMalloc(&tmp, tmpb));
    int32_t *sum;
    CK(cudaMalloc(&sum, 4));
    void *flush;
    CK(cudaMalloc(&flush, 100 << 20));
    for (int bi = 0; bi < 2; ++bi)
        for (int in = 0; in < 4; ++in)
            for (int64_t bytes : {1073741824LL, 33554432LL}) {
                int bins = bi ? 4096 : 256, sb = bi ? 2 : 1;
                int64_t n = bytes / sb;
                CK(histogram_fill(base, n, bins, (histogram_input)in, 99, 0));
                CK(cudaDeviceSynchronize());
                auto timeit = [&](auto f, int reps) {
                    for (int i = 0; i < 3; ++i)
                        f();
                    std::vector<float> v;
                    for (int i = 0; i < reps; ++i) {
                        float ms;
                        CK(cudaEventRecord(a));
                        f();
                        CK(cudaEventRecord(b));
                        CK(cudaEventSynchronize(b));
                        CK(cudaEventElapsedTime(&ms, a, b));
                        v.push_back(ms);
                    }
                    std::sort(v.begin(), v.end());
                    return v[v.size() / 2];
                };
                size_t wb = reduction_workspace_bytes(REDUCTION_TUNED, bytes / 4);
                float tt = timeit(
                    [&] {
                        CK(reduction_sum_i32(REDUCTION_TUNED, sum, (const int32_t *)base, bytes / 4,
                                             tmp, wb, 0));
                    },
                    30);
                float ts = timeit(
                    [&] {
                        size_t t = tmpb;
                        CK(reduction_cub_sum_i32(sum, (const int32_t *)base, bytes / 4, tmp, &t,
                                                 0));
                    },
                    30);
                float tc = timeit(
                    [&] {
                        size_t t = tmpb;
                        CK(histogram_cub(bins, hist, base, n, tmp, &t, 0));
                    },
                    30);
                float ceil_ms = std::min(tt, ts);
                printf("%s %-8s %5lld MiB: ceiling %.0f GB/s, CUB %.0f GB/s |", bi ? "u16" : "u8 ",
                       inn[in], (long long)(bytes >> 20), bytes / ceil_ms / 1e6, bytes / tc / 1e6);
                for (int v = 1; v < 3; ++v) {
                    float t = timeit([&] { CK(run(v, bins, hist, base, n, 0)); }, 30);
                    printf(" %s %.0f GB/s = %.3f of ceiling, %.2fx CUB |", vn[v], bytes / t / 1e6,
                           ceil_ms / t, tc / t);
                }
                printf("\n");
            }
    return fails != 0;
}
