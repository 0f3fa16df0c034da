/* Storing C from tensor-core accumulators, for both GEMM kernels: mma.sync's
 * m16n8 fragments and wgmma's m64nN ones put the same pair in a thread, C[row]
 * [col] and C[row][col + 1] with col = 8 j + 2 (lane % 4) (PTX ISA, "Matrix
 * Fragments for mma.m16n8k16" and "wgmma .m64nNk16 register fragments"). */
#ifndef BANKFREE_GEMM_TILE_STORE_CUH
#define BANKFREE_GEMM_TILE_STORE_CUH

#include <stdint.h>

#include <cuda_fp16.h>

static __device__ __forceinline__ void store_one(float *c, float v)
{
    *c = v;
}
static __device__ __forceinline__ void store_one(__half *c, float v)
{
    *c = __float2half_rn(v);
}
/* Two neighbours at once; c is aligned to both (the launcher checks). */
static __device__ __forceinline__ void store_pair(float *c, float v0, float v1)
{
    *reinterpret_cast<float2 *>(c) = make_float2(v0, v1);
}
static __device__ __forceinline__ void store_pair(__half *c, float v0, float v1)
{
    *reinterpret_cast<__half2 *>(c) = __floats2half2_rn(v0, v1);
}

/* fp16 pairs four at a time: the pairs of two neighbouring n8 tiles (a0,
 * a1 of tile j, b0, b1 of tile j + 1, at out = &C[row][8 j + 2 q], q = lane
 * % 4), lanes q and q ^ 1 trading one packed pair so that the even lane
 * stores C[row][8 j + 2 q .. + 3] and the odd one C[row][8 j + 8 + 2 (q -
 * 1) .. + 3]: a quad's 32 bytes of a row in four 8-byte stores, whole
 * sectors, where its 4-byte pairs write each sector half at a time. out
 * is aligned to 4 bytes, C's rows to 8 (the launcher's pairs == 2) and
 * 8 j to 4 elements (every tile and launch starts on a multiple of 8
 * columns). Every lane of the warp takes part. */
static __device__ __forceinline__ void store_quad(__half *out, int lane, float a0, float a1,
                                                  float b0, float b1)
{
    const __half2 a = __floats2half2_rn(a0, a1), b = __floats2half2_rn(b0, b1);
    const uint32_t mine_a = *reinterpret_cast<const uint32_t *>(&a),
                   mine_b = *reinterpret_cast<const uint32_t *>(&b);
    const bool odd = lane & 1;
    const uint32_t got = __shfl_xor_sync(0xffffffffu, odd ? mine_a : mine_b, 1);
    *reinterpret_cast<uint2 *>(odd ? out + 6 : out) =
        odd ? make_uint2(got, mine_b) : make_uint2(mine_a, got);
}

/* C[row][col] = v0 and C[row][col + 1] = v1 of a row-major m x n C, each only
 * inside C. pairs: n is even and c aligned to two elements, so that the two
 * go out in one store (col is even). */
template <typename Out>
static __device__ __forceinline__ void store_c_pair(Out *c, int64_t m, int64_t n, int64_t row,
                                                    int64_t col, float v0, float v1, int pairs)
{
    if (row >= m)
        return;
    Out *out = c + row * n + col;
    if (pairs && col + 1 < n) {
        store_pair(out, v0, v1);
    } else {
        if (col < n)
            store_one(out, v0);
        if (col + 1 < n)
            store_one(out + 1, v1);
    }
}

#endif
