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
