/* Histograms with three homes for the counters: global memory, one shared
 * copy per block, and shared copies laid out per lane (histogram_layout.h).
 * One kernel body serves all three; they differ only in the copies of each
 * bin a block keeps (histogram_bin_word and histogram_lane_word of them) and
 * so in how many words a block clears and merges. */
#include "histogram/histogram.h"
#include "histogram/histogram_layout.h"

/* A probe's hook (histogram/probes/phases.cu stamps the clocks there), empty
 * here. In the shared-memory variants every thread of the block passes each
 * point, in order: 0 the entry, 1 the counters cleared, 2 the samples
 * counted, 3 the counts merged; the global variant passes 0 and 1 only (it
 * returns after counting, with no counters to merge). */
#ifndef HISTOGRAM_MARK
#define HISTOGRAM_MARK(point) ((void)0)
#endif

/* Counts one bin: into the output (global variant) or into the block's
 * shared counters, `mine` being the byte address in shared memory of this
 * lane's copy. atomicAdd with its result unused compiles to ATOMS.POPC.INC,
 * which serves lanes on one word together. */
template <enum histogram_variant V, int COPIES>
static __device__ __forceinline__ void count(uint32_t mine, uint32_t *hist, uint32_t bin)
{
    if (V == HISTOGRAM_GLOBAL)
        atomicAdd(&hist[bin], 1u);
    else
        atomicAdd((uint32_t *)__cvta_shared_to_generic(mine + 4u * histogram_bin_word(COPIES, bin)),
                  1u);
}

/* The bins of the samples in one 32-bit word: four bytes, or two 16-bit
 * samples >> 4 (little-endian, as the samples lie in memory). */
template <enum histogram_variant V, int BINS, int COPIES>
static __device__ __forceinline__ void count_word(uint32_t mine, uint32_t *hist, uint32_t w)
{
    if (BINS == HISTOGRAM_U8_BINS) {
#pragma unroll
        for (int k = 0; k < 4; ++k)
            count<V, COPIES>(mine, hist, __byte_perm(w, 0, 0x4440 + k)); /* byte k: PRMT */
    } else {
        count<V, COPIES>(mine, hist, (w & 0xffffu) >> 4);
        count<V, COPIES>(mine, hist, w >> 20);
    }
}

/* Sample i read singly, from bytes (any alignment). */
template <int BINS> static __device__ __forceinline__ uint32_t bin_at(const uint8_t *in, int64_t i)
{
    if (BINS == HISTOGRAM_U8_BINS)
        return in[i];
    return ((uint32_t)in[2 * i] | (uint32_t)in[2 * i + 1] << 8) >> 4;
}

/* A thread's HISTOGRAM_LOADS vectors of a tile: first, first + THREADS, ...
 * (zeros past end, not counted). */
template <int THREADS>
static __device__ __forceinline__ void load_tile(uint4 x[HISTOGRAM_LOADS], const uint4 *vec,
                                                 int64_t first, int64_t end)
{
#pragma unroll
    for (int k = 0; k < HISTOGRAM_LOADS; ++k) {
        const int64_t v = first + k * THREADS;
        x[k] = v < end ? __ldg(vec + v) : make_uint4(0, 0, 0, 0);
    }
}

/* Each block issues the loads of its first tile, clears its counters while they are in flight,
 * counts its share of the vectors a tile at a time (HISTOGRAM_LOADS vectors a thread), and adds
 * its counts into hist. The last block also counts the head and tail samples. STRADDLE: 16-bit
 * samples at an odd address; the vectors' words are shifted by one byte, the last byte coming from
 * the next vector (the next lane's, or loaded). COPIES: histogram_copies for the block's share (the
 * launcher picks the kernel).
 */
template <enum histogram_variant V, int BINS, int STRADDLE, int COPIES>
__global__ void __launch_bounds__(BINS == HISTOGRAM_U8_BINS ? 512 : 1024,
                                  BF_MIN_BLOCKS(BINS == HISTOGRAM_U8_BINS ? 512 : 1024,
                                                HISTOGRAM_BLOCKS_PER_SM(V, BINS)))
    histogram_kernel(uint32_t *__restrict__ hist, const uint8_t *__restrict__ in,
                     struct histogram_split split)
{
    HISTOGRAM_MARK(0);
    constexpr int THREADS = BINS == HISTOGRAM_U8_BINS ? 512 : 1024;
    const uint32_t WORDS = histogram_words(V, BINS, COPIES); /* constants once inlined */
    extern __shared__ uint4 smem[];
    uint32_t *counters = (uint32_t *)smem;
    const int tid = threadIdx.x, lane = tid % 32;
    /* This lane's copy, as a 32-bit shared-memory address: nvcc then adds the
     * lane's part once, not once a sample (through a uint32_t pointer it
     * rebuilt bin * 32 + lane for each sample: 5 instructions a byte, now 3;
     * 1.04-1.21x at 32 MiB on the H100, histogram/probes/launch.cu). */
    const uint32_t mine =
        (uint32_t)__cvta_generic_to_shared(counters) + 4u * histogram_lane_word(COPIES, lane);

    /* Block b counts the vectors [begin, end): an equal share, in whole
     * groups of 32 so that each warp's lanes read 32 consecutive vectors. */
    const uint4 *vec = (const uint4 *)split.first_vector;
    const int64_t share = histogram_share(split.vectors, gridDim.x), begin = blockIdx.x * share,
                  end = begin + share < split.vectors ? begin + share : split.vectors;
    const int64_t tile = (int64_t)THREADS * HISTOGRAM_LOADS;
    /* The replicated kernels load the next tile while they count this one
     * (1.5x the registers; 2 or 1 blocks an SM have them). Measured A/B in
     * one run on the H100, 1 GiB: bytes 0.970-0.971 -> 0.975-0.977 of the
     * read ceiling, 16-bit samples 0.963-0.966 -> 0.963-0.970. The one-copy
     * kernels, at 4 or 2 blocks of 32 registers, would spill (0.57-0.61). */
    constexpr bool PREFETCH = V == HISTOGRAM_REPLICATED;
    uint4 x[HISTOGRAM_LOADS], next[HISTOGRAM_LOADS];
    /* The first tile's loads go out before the clear, which then runs while
     * they are in flight: 8 copies of 4096 bins are 128 KiB to clear, 1024
     * clocks of shared-memory stores, about a DRAM latency. */
    load_tile<THREADS>(x, vec, begin + tid, end);

    for (uint32_t i = tid; i < WORDS / 4; i += THREADS)
        smem[i] = make_uint4(0, 0, 0, 0);
    if (WORDS > 0)
        __syncthreads();
    HISTOGRAM_MARK(1);

    if (blockIdx.x == gridDim.x - 1) {
        const int64_t tail_start = split.head + split.vectors * split.per_vector;
        if (tid < split.head)
            count<V, COPIES>(mine, hist, bin_at<BINS>(in, tid));
        if (tid < split.tail)
            count<V, COPIES>(mine, hist, bin_at<BINS>(in, tail_start + tid));
    }

    for (int64_t base = begin; base < end; base += tile) {
        if (PREFETCH) /* the next tile's loads in flight while this one counts */
            load_tile<THREADS>(next, vec, base + tile + tid, end);
#pragma unroll
        for (int k = 0; k < HISTOGRAM_LOADS; ++k) {
            const int64_t v = base + k * THREADS + tid;
            uint4 w = x[k];
            if (STRADDLE) {
                /* byte 16 of this vector's samples: the next vector's first */
                uint32_t after = __shfl_down_sync(0xffffffffu, x[k].x, 1);
                if (v < end && (lane == 31 || v + 1 >= end))
                    after = *(const uint8_t *)(vec + v + 1);
                w = make_uint4(
                    __funnelshift_r(x[k].x, x[k].y, 8), __funnelshift_r(x[k].y, x[k].z, 8),
                    __funnelshift_r(x[k].z, x[k].w, 8), __funnelshift_r(x[k].w, after, 8));
            }
            if (v < end) {
                count_word<V, BINS, COPIES>(mine, hist, w.x);
                count_word<V, BINS, COPIES>(mine, hist, w.y);
                count_word<V, BINS, COPIES>(mine, hist, w.z);
                count_word<V, BINS, COPIES>(mine, hist, w.w);
            }
        }
        if (PREFETCH) {
#pragma unroll
            for (int k = 0; k < HISTOGRAM_LOADS; ++k)
                x[k] = next[k];
        } else {
            load_tile<THREADS>(x, vec, base + tile + tid, end);
        }
    }
    if (WORDS == 0)
        return;

    /* Merge: thread t sums the copies of bin t (and t + THREADS, ...) and adds
     * the total into hist: a warp adds 32 consecutive bins with one coalesced
     * atomic (integer atomics: exact in any order). Lane l starts at copy
     * l / (32 / copies), so the 32 lanes read 32 different banks each step. */
    __syncthreads();
    HISTOGRAM_MARK(2);
    for (uint32_t bin = tid; bin < BINS; bin += THREADS) {
        uint32_t total = 0;
        for (int i = 0; i < COPIES; ++i)
            total += counters[histogram_merge_word(COPIES, bin, i, lane)];
        if (total != 0)
            atomicAdd(&hist[bin], total);
    }
    HISTOGRAM_MARK(3);
}

/* ---- launchers ---- */

template <enum histogram_variant V, int BINS, int COPIES>
static cudaError_t launch(uint32_t *hist, const uint8_t *in, struct histogram_split split,
                          int64_t blocks, cudaStream_t stream)
{
    /* Only 16-bit samples can straddle vectors: bytes never build that kernel. */
    auto kernel = split.straddle ? histogram_kernel<V, BINS, BINS == HISTOGRAM_U16_BINS, COPIES>
                                 : histogram_kernel<V, BINS, 0, COPIES>;
    const size_t bytes = 4u * histogram_words(V, BINS, COPIES);
    if (bytes > 48 * 1024) { /* above the default limit: ask for it */
        cudaError_t err =
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
        if (err != cudaSuccess)
            return err;
    }
    kernel<<<(unsigned)blocks, histogram_threads(BINS), bytes, stream>>>(hist, in, split);
    return cudaGetLastError();
}

/* The replicated kernel of C copies, where it is built: the layouts that
 * histogram_copies returns for BINS (HISTOGRAM_REPLICATED_BUILT). Any other
 * count is an error, never another layout. */
template <int BINS, int C>
static cudaError_t launch_replicated(uint32_t *hist, const uint8_t *in,
                                     struct histogram_split split, int64_t blocks,
                                     cudaStream_t stream)
{
    if constexpr (HISTOGRAM_REPLICATED_BUILT(BINS, C))
        return launch<HISTOGRAM_REPLICATED, BINS, C>(hist, in, split, blocks, stream);
    else
        return cudaErrorInvalidValue;
}

template <int BINS>
static cudaError_t histogram(enum histogram_variant variant, uint32_t *hist, const uint8_t *in,
                             int64_t n, cudaStream_t stream)
{
    /* n < 2^62: the byte counts (n x 2 and what is rounded up from it) stay far from overflow. */
    if ((unsigned)variant >= HISTOGRAM_VARIANTS || hist == NULL || n < 0 || n >= (int64_t)1 << 62 ||
        (in == NULL && n > 0))
        return cudaErrorInvalidValue;
    cudaError_t err = cudaMemsetAsync(hist, 0, 4u * BINS, stream);
    if (err != cudaSuccess || n == 0)
        return err;

    const int sample_bytes = BINS == HISTOGRAM_U8_BINS ? 1 : 2;
    const struct histogram_split split = histogram_split_input((uintptr_t)in, sample_bytes, n);
    int device, sms;
    struct bf_sm_limits sm;
    if ((err = cudaGetDevice(&device)) != cudaSuccess ||
        (err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device)) !=
            cudaSuccess ||
        (err = bf_sm_limits_query(device, &sm)) != cudaSuccess)
        return err;
    const int64_t blocks = histogram_blocks(variant, BINS, split.vectors, sms, sm);
    switch (variant) {
    case HISTOGRAM_GLOBAL:
        return launch<HISTOGRAM_GLOBAL, BINS, 1>(hist, in, split, blocks, stream);
    case HISTOGRAM_SHARED:
        return launch<HISTOGRAM_SHARED, BINS, 1>(hist, in, split, blocks, stream);
    default:
        break;
    }
    /* The kernel of the copies histogram_copies picks for this share and this
     * GPU's shared memory, the layout the model replays: the one source of
     * the count. */
    switch (
        histogram_copies(variant, BINS, histogram_share(split.vectors, blocks), sm.block_shared)) {
    case 4:
        return launch_replicated<BINS, 4>(hist, in, split, blocks, stream);
    case 8:
        return launch_replicated<BINS, 8>(hist, in, split, blocks, stream);
    case 32:
        return launch_replicated<BINS, 32>(hist, in, split, blocks, stream);
    default:
        return cudaErrorInvalidValue;
    }
}

extern "C" cudaError_t histogram_u8(enum histogram_variant variant, uint32_t *hist,
                                    const uint8_t *in, int64_t n, cudaStream_t stream)
{
    return histogram<HISTOGRAM_U8_BINS>(variant, hist, in, n, stream);
}

extern "C" cudaError_t histogram_u16(enum histogram_variant variant, uint32_t *hist, const void *in,
                                     int64_t n, cudaStream_t stream)
{
    return histogram<HISTOGRAM_U16_BINS>(variant, hist, (const uint8_t *)in, n, stream);
}
