// Launch and layout A/B for the histogram family, timings only: the kernel of
// histogram.cu reduced to its loop (aligned input), with the layout, the way
// the address is formed, the blocks an SM and loading ahead as parameters.
// Every configuration's output is compared with the first one's of its bins.
// Run by run_check.sh; the choices it supports are in docs/notes/histogram/.
#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <vector>
#include <cub/device/device_reduce.cuh>
#include "common/check.h"
#include "histogram/histogram.h"
#include "histogram/histogram_data.h"
#include "histogram/histogram_layout.h"

__global__ void fill(uint8_t *out, int64_t n, int bins, enum histogram_input input, uint64_t seed)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        uint32_t s = histogram_sample(input, bins, seed, (uint64_t)i);
        if (bins == 256)
            out[i] = (uint8_t)s;
        else
            ((uint16_t *)out)[i] = (uint16_t)s;
    }
}

// LAY: 0 one copy; 1 copies addressed through a uint32_t * (bytes bin*32+lane,
// 16-bit copy c in banks 4c..4c+3); 2 the same, through a 32-bit shared address;
// 3 16-bit bin*8 + lane%8; 4 the same, swizzled (histogram_layout.h)
template <int LAY, int BINS> __device__ __forceinline__ uint32_t word_of(uint32_t bin, int lane)
{
    if (LAY == 0)
        return bin;
    if (BINS == 256)
        return bin * 32 + lane;
    if (LAY <= 2)
        return bin / 4 * 32 + 4 * (lane % 8) + bin % 4;
    if (LAY == 3)
        return bin * 8 + lane % 8;
    return (bin ^ (bin >> 5 & 3u)) * 8 + lane % 8;
}
template <int LAY, int BINS> __host__ __device__ constexpr int copies_of()
{
    return LAY == 0 ? 1 : BINS == 256 ? 32 : 8;
}
template <int LAY, int BINS> __device__ __forceinline__ uint32_t bin_part(uint32_t bin)
{
    return word_of<LAY, BINS>(bin, 0);
}

template <int LAY, int BINS>
__device__ __forceinline__ void cnt(uint32_t *counters, uint32_t mine, uint32_t bin, int lane)
{
    if (LAY == 1)
        atomicAdd(&counters[word_of<LAY, BINS>(bin, lane)], 1u);
    else
        atomicAdd((uint32_t *)__cvta_shared_to_generic(mine + 4u * bin_part<LAY, BINS>(bin)), 1u);
}
template <int LAY, int BINS>
__device__ __forceinline__ void cnt_word(uint32_t *c, uint32_t mine, uint32_t w, int lane)
{
    if (BINS == 256) {
#pragma unroll
        for (int k = 0; k < 4; ++k)
            cnt<LAY, BINS>(c, mine, LAY == 1 ? (w >> 8 * k & 0xff) : __byte_perm(w, 0, 0x4440 + k),
                           lane);
    } else {
        cnt<LAY, BINS>(c, mine, (w & 0xffffu) >> 4, lane);
        cnt<LAY, BINS>(c, mine, w >> 20, lane);
    }
}
template <int THREADS, int LOADS>
__device__ __forceinline__ void load_tile(uint4 *x, const uint4 *vec, int64_t first, int64_t end)
{
#pragma unroll
    for (int k = 0; k < LOADS; ++k) {
        const int64_t v = first + k * THREADS;
        x[k] = v < end ? __ldg(vec + v) : make_uint4(0, 0, 0, 0);
    }
}

template <int LAY, int BINS, int THREADS, int BPS, int PF>
__global__ void __launch_bounds__(THREADS, BPS)
    launch_kernel(uint32_t *__restrict__ hist, const uint4 *__restrict__ vec, int64_t nvec)
{
    constexpr int C = copies_of<LAY, BINS>();
    constexpr uint32_t WORDS = BINS * C;
    extern __shared__ uint4 smem[];
    uint32_t *counters = (uint32_t *)smem;
    const int tid = threadIdx.x, lane = tid % 32;
    const uint32_t mine = (uint32_t)__cvta_generic_to_shared(counters) +
                          (LAY == 0 ? 0u : 4u * (word_of<LAY, BINS>(0, lane)));
    const int64_t share = histogram_share(nvec, gridDim.x), begin = blockIdx.x * share,
                  end = begin + share < nvec ? begin + share : nvec;
    constexpr int LOADS = HISTOGRAM_LOADS;
    const int64_t tile = (int64_t)THREADS * LOADS;
    uint4 x[LOADS], next[LOADS];
    for (uint32_t i = tid; i < WORDS / 4; i += THREADS)
        smem[i] = make_uint4(0, 0, 0, 0);
    load_tile<THREADS, LOADS>(x, vec, begin + tid, end);
    __syncthreads();
    for (int64_t base = begin; base < end; base += tile) {
        if (PF)
            load_tile<THREADS, LOADS>(next, vec, base + tile + tid, end);
#pragma unroll
        for (int k = 0; k < LOADS; ++k) {
            if (base + k * THREADS + tid < end) {
                cnt_word<LAY, BINS>(counters, mine, x[k].x, lane);
                cnt_word<LAY, BINS>(counters, mine, x[k].y, lane);
                cnt_word<LAY, BINS>(counters, mine, x[k].z, lane);
                cnt_word<LAY, BINS>(counters, mine, x[k].w, lane);
            }
        }
        if (PF) {
#pragma unroll
            for (int k = 0; k < LOADS; ++k)
                x[k] = next[k];
        } else {
            load_tile<THREADS, LOADS>(x, vec, base + tile + tid, end);
        }
    }
    __syncthreads();
    for (uint32_t bin = tid; bin < BINS; bin += THREADS) {
        uint32_t total = 0;
#pragma unroll 4
        for (int i = 0; i < C; ++i)
            total += counters[word_of<LAY, BINS>(bin, (i + lane / (32 / C)) % C)];
        if (total != 0)
            atomicAdd(&hist[bin], total);
    }
}

struct cfg {
    const char *name;
    int bins, bps, threads;
    size_t smem;
    void (*k)(uint32_t *, const uint4 *, int64_t);
};
#define CFG(name, LAY, BINS, THREADS, BPS, PF)                                                     \
    {                                                                                              \
        name, BINS, BPS, THREADS, 4u * BINS *copies_of<LAY, BINS>(),                               \
            launch_kernel<LAY, BINS, THREADS, BPS, PF>                                             \
    }
static cfg cfgs[] = {
    /* the first of each bins is the reference the others are checked against */
    CFG("u8 one copy, 4/SM", 0, 256, 512, 4, 0),
    CFG("u8 32 copies, uint32_t *, 2/SM ahead", 1, 256, 512, 2, 1),
    CFG("u8 32 copies, 32-bit address, 2/SM ahead", 2, 256, 512, 2, 1), /* histogram.cu */
    CFG("u8 32 copies, 32-bit address, 3/SM", 2, 256, 512, 3, 0),
    CFG("u8 32 copies, 32-bit address, 4/SM", 2, 256, 512, 4, 0),
    CFG("u16 one copy, 2/SM", 0, 4096, 1024, 2, 0),
    CFG("u16 8 copies in 4c..4c+3, uint32_t *", 1, 4096, 1024, 1, 1),
    CFG("u16 8 copies in 4c..4c+3, 32-bit address", 2, 4096, 1024, 1, 1),
    CFG("u16 8 copies bin*8+c", 3, 4096, 1024, 1, 1),
    CFG("u16 8 copies swz(bin)*8+c", 4, 4096, 1024, 1, 1), /* histogram.cu */
};

static float median(std::vector<float> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main()
{
    int sms;
    BF_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const size_t maxbytes = (size_t)1 << 30;
    uint8_t *in;
    uint32_t *hist, *ref, *sum;
    BF_CHECK(cudaMalloc(&in, maxbytes));
    BF_CHECK(cudaMalloc(&hist, 4 * 4096));
    BF_CHECK(cudaMalloc(&ref, 4 * 4096));
    BF_CHECK(cudaMalloc(&sum, 8));
    void *tmp = nullptr;
    size_t tmpb = 0;
    BF_CHECK(cub::DeviceReduce::Sum(tmp, tmpb, (const uint32_t *)in, sum, (int)(maxbytes / 4)));
    BF_CHECK(cudaMalloc(&tmp, tmpb));
    for (auto &c : cfgs)
        BF_CHECK(
            cudaFuncSetAttribute(c.k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)c.smem));
    cudaEvent_t a, b;
    BF_CHECK(cudaEventCreate(&a));
    BF_CHECK(cudaEventCreate(&b));
    const char *inname[] = {"uniform", "same", "skewed", "onebank"};
    size_t sizes[] = {(size_t)32 << 20, maxbytes};
    printf("%-8s %-8s %-34s %8s %7s %7s %s\n", "size", "input", "config", "GB/s", "ceil", "vs-sh",
           "ok");
    for (size_t bytes : sizes)
        for (int bins : {256, 4096})
            for (int input = 0; input < 4; ++input) {
                const int64_t n = bins == 256 ? (int64_t)bytes : (int64_t)bytes / 2;
                fill<<<4096, 256>>>(in, n, bins, (enum histogram_input)input, 1);
                BF_CHECK(cudaGetLastError());
                auto timeit = [&](auto launch) {
                    for (int w = 0; w < 3; ++w)
                        launch();
                    std::vector<float> t;
                    for (int r = 0; r < 30; ++r) {
                        BF_CHECK(cudaEventRecord(a));
                        launch();
                        BF_CHECK(cudaEventRecord(b));
                        BF_CHECK(cudaEventSynchronize(b));
                        float ms;
                        BF_CHECK(cudaEventElapsedTime(&ms, a, b));
                        t.push_back(ms);
                    }
                    return bytes / (median(t) * 1e6);
                };
                double ceil = timeit([&] {
                    BF_CHECK(cub::DeviceReduce::Sum(tmp, tmpb, (const uint32_t *)in, sum,
                                                    (int)(bytes / 4)));
                });
                double shared_gbs = 0;
                std::vector<uint32_t> h0(bins), h1(bins);
                for (auto &c : cfgs) {
                    if (c.bins != bins)
                        continue;
                    const int64_t nvec = bytes / 16;
                    int64_t tile = (int64_t)c.threads * HISTOGRAM_LOADS,
                            need = (nvec + tile - 1) / tile;
                    int64_t blocks = std::min<int64_t>(need, (int64_t)sms * c.bps);
                    double g = timeit([&] {
                        BF_CHECK(cudaMemsetAsync(hist, 0, 4 * bins));
                        c.k<<<(unsigned)blocks, c.threads, c.smem>>>(hist, (const uint4 *)in, nvec);
                        BF_CHECK(cudaGetLastError());
                    });
                    BF_CHECK(cudaDeviceSynchronize());
                    bool ok = true;
                    if (shared_gbs == 0) {
                        shared_gbs = g;
                        BF_CHECK(cudaMemcpy(h0.data(), hist, 4 * bins, cudaMemcpyDeviceToHost));
                        uint64_t tot = 0;
                        for (auto v : h0)
                            tot += v;
                        ok = tot == (uint64_t)n;
                    } else {
                        BF_CHECK(cudaMemcpy(h1.data(), hist, 4 * bins, cudaMemcpyDeviceToHost));
                        ok = h0 == h1;
                    }
                    printf("%-8s %-8s %-34s %8.0f %7.3f %7.2f %s\n",
                           bytes == maxbytes ? "1GiB" : "32MiB", inname[input], c.name, g, g / ceil,
                           g / shared_gbs, ok ? "ok" : "WRONG");
                }
                printf("%-8s %-8s %-34s %8.0f\n", bytes == maxbytes ? "1GiB" : "32MiB",
                       inname[input], "ceiling cub sum u32", ceil);
            }
    return 0;
}
