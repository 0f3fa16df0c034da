/* The shared-memory bound of the table ciphers' lookups (aes_lut_ceiling.h),
 * in the layout replicated takes on this GPU (aes_lut_layout_of). */
#include <stdint.h>

#include "aes_lut/aes_lut_ceiling.h"
#include "aes_lut/aes_lut_layout.h"

/* Entry x's word: four entry numbers, one a byte (any bytes do; these are
 * four permutations of 0 ... 255, so every step lands on other entries). */
static __device__ __forceinline__ uint32_t entry_value(uint32_t x)
{
    return (x * 97u + 31u) % 256u | (x * 89u + 7u) % 256u << 8 | (x * 73u + 101u) % 256u << 16 |
           (x * 61u + 3u) % 256u << 24;
}

extern __shared__ uint4 aes_lut_ceiling_table[]; /* T0T1's 64 KiB: dynamic */

/* One lookup: the entry byte k of w names, in this lane's copy of the table,
 * where the replicated cipher keeps its T_0 or T_1 for row 3 - k (T0T1) or
 * its T_0 (T0), in bank `lane`, addressed as the cipher addresses it: T0T1
 * one PRMT of w and the lane's part (aes_lut_byte_perm_address), T0 a PRMT
 * and an IMAD onto `mine`, the lane's copy. */
template <enum aes_lut_layout L>
static __device__ __forceinline__ uint32_t lookup(const uint32_t (&part)[2], uint32_t mine,
                                                  uint32_t w, int k)
{
    uint32_t v, at;
    if constexpr (L == AES_LUT_LAYOUT_T0T1)
        at = (uint32_t)__cvta_generic_to_shared(aes_lut_ceiling_table) +
             __byte_perm(w, part[(3 - k) % 2], 0x7604u + 16u * (uint32_t)k);
    else
        at = mine + 4u * aes_lut_entry_word(L, 0, __byte_perm(w, 0, 0x4440u + (uint32_t)k));
    asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(v) : "r"(at));
    return v;
}

template <enum aes_lut_layout L, int ROUNDS, int K>
static __device__ __forceinline__ void rounds(uint32_t (&s)[K][4], const uint32_t (&part)[2],
                                              uint32_t mine)
{
#pragma unroll 1
    for (int r = 0; r < ROUNDS; ++r)
#pragma unroll
        for (int k = 0; k < K; ++k) {
            uint32_t t[4];
#pragma unroll
            for (int c = 0; c < 4; ++c)
                t[c] = lookup<L>(part, mine, s[k][c], 3) ^
                       lookup<L>(part, mine, s[k][(c + 1) & 3], 2) ^
                       lookup<L>(part, mine, s[k][(c + 2) & 3], 1) ^
                       lookup<L>(part, mine, s[k][(c + 3) & 3], 0);
#pragma unroll
            for (int c = 0; c < 4; ++c)
                s[k][c] = t[c];
        }
}

template <enum aes_lut_layout L, int ROUNDS>
__global__ void __launch_bounds__(AES_LUT_THREADS,
                                  BF_MIN_BLOCKS(AES_LUT_THREADS, AES_LUT_BLOCKS_PER_SM(L)))
    lookup_ceiling(uint4 *out, const uint4 *in, int64_t blocks, int64_t share)
{
    const int tid = threadIdx.x, lane = tid % 32;
    /* Every table holds entry x's word: 16-byte stores, as the cipher's
     * set-up (a vector's 4 words are one entry: 32-word runs). */
    constexpr uint32_t VECTORS = AES_LUT_WORDS(L) / 4;
    static_assert(VECTORS % AES_LUT_THREADS == 0, "whole vectors a thread");
#pragma unroll
    for (uint32_t i = 0; i < VECTORS / AES_LUT_THREADS; ++i) {
        const uint32_t v = (uint32_t)tid + i * AES_LUT_THREADS;
        int table;
        uint32_t x;
        aes_lut_entry(L, 4 * v, &table, &x);
        const uint32_t e = entry_value(x);
        aes_lut_ceiling_table[v] = make_uint4(e, e, e, e);
    }
    __syncthreads();
    const uint32_t part[2] = {4u * aes_lut_word(L, 0, 0u, lane), 4u * aes_lut_word(L, 1, 0u, lane)},
                   mine = (uint32_t)__cvta_generic_to_shared(aes_lut_ceiling_table) +
                          4u * aes_lut_lane_word(L, lane);
    /* The cipher's shares: block b takes tiles [b * share, (b + 1) * share);
     * a whole tile AES_LUT_PER_THREAD blocks a thread at once, the last,
     * partial one a block at a time (only those that exist), as the cipher. */
    const int64_t begin = blockIdx.x * share * AES_LUT_TILE,
                  end =
                      begin + share * AES_LUT_TILE < blocks ? begin + share * AES_LUT_TILE : blocks;
    for (int64_t base = begin; base < end; base += AES_LUT_TILE) {
        if (base + AES_LUT_TILE <= end) {
            uint32_t s[AES_LUT_PER_THREAD][4];
#pragma unroll
            for (int k = 0; k < AES_LUT_PER_THREAD; ++k) {
                const uint4 x = __ldg(in + base + k * AES_LUT_THREADS + tid);
                s[k][0] = x.x, s[k][1] = x.y, s[k][2] = x.z, s[k][3] = x.w;
            }
            rounds<L, ROUNDS>(s, part, mine);
#pragma unroll
            for (int k = 0; k < AES_LUT_PER_THREAD; ++k)
                out[base + k * AES_LUT_THREADS + tid] =
                    make_uint4(s[k][0], s[k][1], s[k][2], s[k][3]);
        } else {
            for (int64_t b = base + tid; b < end; b += AES_LUT_THREADS) {
                const uint4 x = __ldg(in + b);
                uint32_t s[1][4] = {{x.x, x.y, x.z, x.w}};
                rounds<L, ROUNDS>(s, part, mine);
                out[b] = make_uint4(s[0][0], s[0][1], s[0][2], s[0][3]);
            }
        }
    }
}

template <enum aes_lut_layout L>
static cudaError_t launch(void *out, const void *in, int64_t blocks, int rounds, int64_t grid,
                          int64_t share, cudaStream_t stream)
{
    auto kernel = rounds == 10   ? lookup_ceiling<L, 10>
                  : rounds == 12 ? lookup_ceiling<L, 12>
                                 : lookup_ceiling<L, 14>;
    const cudaError_t err = aes_lut_allow_tables<L>(kernel);
    if (err != cudaSuccess)
        return err;
    kernel<<<(unsigned)grid, AES_LUT_THREADS, 4u * AES_LUT_WORDS(L), stream>>>(
        (uint4 *)out, (const uint4 *)in, blocks, share);
    return cudaGetLastError();
}

extern "C" cudaError_t aes_lut_lookup_ceiling(void *out, const void *in, int64_t blocks, int rounds,
                                              int sms, cudaStream_t stream)
{
    if (blocks < 0 || sms < 1 || (rounds != 10 && rounds != 12 && rounds != 14) ||
        (blocks > 0 && (out == NULL || in == NULL || ((uintptr_t)out | (uintptr_t)in) % 16 != 0)))
        return cudaErrorInvalidValue;
    if (blocks == 0)
        return cudaSuccess;
    struct bf_sm_limits sm;
    int device;
    cudaError_t err;
    if ((err = cudaGetDevice(&device)) != cudaSuccess ||
        (err = bf_sm_limits_query(device, &sm)) != cudaSuccess)
        return err;
    const enum aes_lut_layout layout = aes_lut_layout_of(AES_LUT_REPLICATED, sm);
    const int64_t grid = aes_lut_grid(layout, blocks, sms, sm), share = aes_lut_share(blocks, grid);
    return layout == AES_LUT_LAYOUT_T0T1
               ? launch<AES_LUT_LAYOUT_T0T1>(out, in, blocks, rounds, grid, share, stream)
               : launch<AES_LUT_LAYOUT_T0>(out, in, blocks, rounds, grid, share, stream);
}
