/* The shared-memory bound of the table ciphers' lookups (aes_lut_ceiling.h). */
#include <stdint.h>

#include "aes_lut/aes_lut_ceiling.h"
#include "aes_lut/aes_lut_layout.h"

/* One lookup: the word at `at`, which holds the next address. */
static __device__ __forceinline__ uint32_t lookup(uint32_t at)
{
    uint32_t next;
    asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(next) : "r"(at));
    return next;
}

template <int ROUNDS>
__global__ void __launch_bounds__(AES_LUT_THREADS, 4)
    lookup_ceiling(uint4 *out, const uint4 *in, int64_t blocks, int64_t share)
{
    __shared__ uint32_t table[256 * 32];
    const int tid = threadIdx.x, lane = tid % 32;
    const uint32_t base = (uint32_t)__cvta_generic_to_shared(table);
    /* Word x * 32 + l holds the address of word (97 x + 31) % 256 * 32 + l:
     * lane l stays in bank l, and every step lands on another entry. */
    for (uint32_t w = (uint32_t)tid; w < 256u * 32u; w += AES_LUT_THREADS)
        table[w] = base + 4u * ((w / 32u * 97u + 31u) % 256u * 32u + w % 32u);
    __syncthreads();
    /* The cipher's shares: block b takes tiles [b * share, (b + 1) * share). */
    const int64_t begin = blockIdx.x * share * AES_LUT_TILE,
                  end =
                      begin + share * AES_LUT_TILE < blocks ? begin + share * AES_LUT_TILE : blocks;
    for (int64_t first = begin + tid; first < end; first += AES_LUT_TILE) {
        uint4 x[AES_LUT_PER_THREAD];
        uint32_t s[AES_LUT_PER_THREAD][4];
#pragma unroll
        for (int k = 0; k < AES_LUT_PER_THREAD; ++k) {
            const int64_t b = first + k * AES_LUT_THREADS;
            x[k] = b < end ? __ldg(in + b) : make_uint4(0, 0, 0, 0);
            const uint32_t w[4] = {x[k].x, x[k].y, x[k].z, x[k].w};
#pragma unroll
            for (int c = 0; c < 4; ++c) /* a chain a word of the block */
                s[k][c] = base + 4u * ((w[c] & 255u) * 32u + (uint32_t)lane);
        }
        /* ROUNDS x 16 lookups a block: 4 steps of its 4 chains a round */
#pragma unroll 1
        for (int r = 0; r < ROUNDS; ++r)
#pragma unroll
            for (int q = 0; q < 4; ++q)
#pragma unroll
                for (int k = 0; k < AES_LUT_PER_THREAD; ++k)
#pragma unroll
                    for (int c = 0; c < 4; ++c)
                        s[k][c] = lookup(s[k][c]);
#pragma unroll
        for (int k = 0; k < AES_LUT_PER_THREAD; ++k) {
            const int64_t b = first + k * AES_LUT_THREADS;
            if (b < end)
                out[b] = make_uint4(x[k].x ^ s[k][0], x[k].y ^ s[k][1], x[k].z ^ s[k][2],
                                    x[k].w ^ s[k][3]);
        }
    }
}

extern "C" cudaError_t aes_lut_lookup_ceiling(void *out, const void *in, int64_t blocks, int rounds,
                                              int sms, cudaStream_t stream)
{
    if (blocks < 0 || sms < 1 || (rounds != 10 && rounds != 12 && rounds != 14) ||
        (blocks > 0 && (out == NULL || in == NULL || ((uintptr_t)out | (uintptr_t)in) % 16 != 0)))
        return cudaErrorInvalidValue;
    if (blocks == 0)
        return cudaSuccess;
    const int64_t grid = aes_lut_grid(AES_LUT_REPLICATED, blocks, sms),
                  share = aes_lut_share(blocks, grid);
    uint4 *o = (uint4 *)out;
    const uint4 *i = (const uint4 *)in;
    if (rounds == 10)
        lookup_ceiling<10><<<(unsigned)grid, AES_LUT_THREADS, 0, stream>>>(o, i, blocks, share);
    else if (rounds == 12)
        lookup_ceiling<12><<<(unsigned)grid, AES_LUT_THREADS, 0, stream>>>(o, i, blocks, share);
    else
        lookup_ceiling<14><<<(unsigned)grid, AES_LUT_THREADS, 0, stream>>>(o, i, blocks, share);
    return cudaGetLastError();
}
