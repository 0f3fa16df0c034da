/* How the H100 serves cp.async's shared-memory writes (LDGSTS), for the bank
 * model: one warp issues ITER cp.async.cg of 16 bytes a lane with a given
 * pattern of shared and global offsets; ncu's SASS counter
 * smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts over the
 * launch, divided by ITER, is the wavefronts of one instruction. Lane l is
 * row q = l / 8 (a quarter-warp) and chunk j = l % 8 of a tile, as in the
 * gemm_tile kernels; a lane whose zero-fill predicate holds copies with
 * src-size 0 (the kernels' rows past M). Run by
 * gemm_tile/probes/run_probes.sh under ncu. */
#include <cstdint>
#include <cstdio>

#include <cuda_runtime.h>

#define ITER 64

[[maybe_unused]] static __host__ __device__ uint32_t row_of(int l)
{
    return (uint32_t)l / 8u;
}
[[maybe_unused]] static __host__ __device__ uint32_t chunk_of(int l)
{
    return (uint32_t)l % 8u;
}

#define PATTERNS(X)                                                                                \
    X(0, "contiguous 512 B, both 128-B aligned", 16u * l, 16u * l, 0)                              \
    X(1, "rowmajor tile: rows 128 B (shared) / 2048 B (global)",                                   \
      128u * row_of(l) + 16u * chunk_of(l), 2048u * row_of(l) + 16u * chunk_of(l), 0)              \
    X(2, "padded tile rows 0-3: 144 B a row", 144u * row_of(l) + 16u * chunk_of(l),                \
      2048u * row_of(l) + 16u * chunk_of(l), 0)                                                    \
    X(3, "padded tile rows 4-7", 144u * (row_of(l) + 4) + 16u * chunk_of(l),                       \
      2048u * row_of(l) + 16u * chunk_of(l), 0)                                                    \
    X(4, "swizzled tile: chunk j ^ row", 128u * row_of(l) + 16u * (chunk_of(l) ^ row_of(l)),       \
      2048u * row_of(l) + 16u * chunk_of(l), 0)                                                    \
    X(5, "global rows 2000 B apart (k = 1000)", 128u * row_of(l) + 16u * chunk_of(l),              \
      2000u * row_of(l) + 16u * chunk_of(l), 0)                                                    \
    X(6, "global +16 B", 16u * l, 16u * l + 16u, 0)                                                \
    X(7, "shared +16 B", 16u * l + 16u, 16u * l, 0)                                                \
    X(8, "shared +64 B", 16u * l + 64u, 16u * l, 0)                                                \
    X(9, "zero fill (src-size 0), aligned", 16u * l, 16u * l, 1)                                   \
    X(10, "zero fill, global rows 2000 B apart", 16u * l, 2000u * row_of(l) + 16u * chunk_of(l),   \
      1)                                                                                           \
    X(11, "8 lanes of a quarter in 4 banks (128 B apart)", 128u * l, 16u * l, 0)                   \
    X(12, "2-way in each quarter (lanes 4 apart share banks)", 128u * (l / 4) + 16u * (l % 4),     \
      16u * l, 0)                                                                                  \
    X(13, "shared +16, global +16", 16u * l + 16u, 16u * l + 16u, 0)                               \
    X(14, "quarter-warps reversed row order", 128u * (3 - row_of(l)) + 16u * chunk_of(l), 16u * l, \
      0)                                                                                           \
    X(15, "each line's chunks rotated by 1 (32-byte sectors split)",                               \
      128u * row_of(l) + 16u * ((chunk_of(l) + 1) % 8), 16u * l, 0)                                \
    X(16, "each line's chunks rotated by 2", 128u * row_of(l) + 16u * ((chunk_of(l) + 2) % 8),     \
      16u * l, 0)                                                                                  \
    X(17, "each line's chunks XOR 5", 128u * row_of(l) + 16u * (chunk_of(l) ^ 5u), 16u * l, 0)     \
    X(18, "line 1's chunks rotated by 3, the others not",                                          \
      128u * row_of(l) + 16u * ((chunk_of(l) + (row_of(l) == 1 ? 3u : 0u)) % 8), 16u * l, 0)       \
    X(19, "padded tile rows 0-3, zero fill", 144u * row_of(l) + 16u * chunk_of(l),                 \
      2048u * row_of(l) + 16u * chunk_of(l), 1)                                                    \
    X(20, "padded tile rows 4-7, zero fill", 144u * (row_of(l) + 4) + 16u * chunk_of(l),           \
      2048u * row_of(l) + 16u * chunk_of(l), 1)                                                    \
    X(21, "rowmajor tile, row 0 copied, rows 1-3 zero fill", 128u * row_of(l) + 16u * chunk_of(l), \
      2048u * row_of(l) + 16u * chunk_of(l), row_of(l) >= 1)                                       \
    X(22, "rowmajor tile, rows 0-2 copied, row 3 zero fill", 128u * row_of(l) + 16u * chunk_of(l), \
      2048u * row_of(l) + 16u * chunk_of(l), row_of(l) >= 3)                                       \
    X(23, "padded tile rows 0-3, row 0 copied, rows 1-3 zero fill",                                \
      144u * row_of(l) + 16u * chunk_of(l), 2048u * row_of(l) + 16u * chunk_of(l), row_of(l) >= 1) \
    X(24, "rowmajor, zero fill, every lane from one address (the kernels' base)",                  \
      128u * row_of(l) + 16u * chunk_of(l), 0u, 1)                                                 \
    X(25, "padded rows 0-3, zero fill from one address", 144u * row_of(l) + 16u * chunk_of(l), 0u, \
      1)                                                                                           \
    X(26, "padded rows 4-7, zero fill from one address",                                           \
      144u * (row_of(l) + 4) + 16u * chunk_of(l), 0u, 1)                                           \
    X(27, "rowmajor, row 0 copied, rows 1-3 zero fill from one address",                           \
      128u * row_of(l) + 16u * chunk_of(l), row_of(l) == 0 ? 16u * chunk_of(l) : 0u,               \
      row_of(l) >= 1)                                                                              \
    X(28, "swizzled rows 4-7, row 4 copied, rows 5-7 zero fill from one address",                  \
      128u * row_of(l) + 16u * (chunk_of(l) ^ (row_of(l) + 4)),                                    \
      row_of(l) == 0 ? 16u * chunk_of(l) : 0u, row_of(l) >= 1)                                     \
    X(29, "padded rows 4-7, row 4 copied, rows 5-7 zero fill from one address",                    \
      144u * (row_of(l) + 4) + 16u * chunk_of(l), row_of(l) == 0 ? 16u * chunk_of(l) : 0u,         \
      row_of(l) >= 1)                                                                              \
    X(30, "rowmajor, row 0 copied, rows 1-3 zero fill from one address in another line",           \
      128u * row_of(l) + 16u * chunk_of(l), row_of(l) == 0 ? 2048u + 16u * chunk_of(l) : 0u,       \
      row_of(l) >= 1)                                                                              \
    X(31, "swizzled rows 4-7, row 4 copied, rows 5-7 zero fill from one address in another line",  \
      128u * row_of(l) + 16u * (chunk_of(l) ^ (row_of(l) + 4)),                                    \
      row_of(l) == 0 ? 2048u + 16u * chunk_of(l) : 0u, row_of(l) >= 1)                             \
    X(32, "padded rows 4-7, row 4 copied, rows 5-7 zero fill from one address in another line",    \
      144u * (row_of(l) + 4) + 16u * chunk_of(l), row_of(l) == 0 ? 2048u + 16u * chunk_of(l) : 0u, \
      row_of(l) >= 1)

template <int P> __device__ __forceinline__ uint32_t s_off(int l);
template <int P> __device__ __forceinline__ uint32_t g_off(int l);
template <int P> __device__ __forceinline__ int zero_fill(int l);
#define DEFINE(p, name, s, g, z)                                                                   \
    template <> __device__ __forceinline__ uint32_t s_off<p>(int l)                                \
    {                                                                                              \
        return s;                                                                                  \
    }                                                                                              \
    template <> __device__ __forceinline__ uint32_t g_off<p>(int l)                                \
    {                                                                                              \
        return g;                                                                                  \
    }                                                                                              \
    template <> __device__ __forceinline__ int zero_fill<p>(int l)                                 \
    {                                                                                              \
        (void)l;                                                                                   \
        return z;                                                                                  \
    }
PATTERNS(DEFINE)

template <int P> __global__ void ldgsts_probe(const unsigned char *src, unsigned *out)
{
    __shared__ __align__(1024) unsigned char tile[8192];
    const int l = (int)threadIdx.x;
    const uint32_t dst = (uint32_t)__cvta_generic_to_shared(tile) + s_off<P>(l);
    for (int i = 0; i < ITER; ++i) {
        const unsigned char *from = src + (size_t)i * 16384 + g_off<P>(l);
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst),
                     "l"(__cvta_generic_to_global(from)), "r"(zero_fill<P>(l) ? 0 : 16)
                     : "memory");
    }
    asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::: "memory");
    __syncthreads();
    out[l] = tile[s_off<P>(l)];
}

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                               \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

int main(void)
{
    unsigned char *src;
    unsigned *out;
    CHECK(cudaMalloc(&src, (size_t)ITER * 16384 + 65536));
    CHECK(cudaMemset(src, 1, (size_t)ITER * 16384 + 65536));
    CHECK(cudaMalloc(&out, 32 * sizeof(unsigned)));
#define LAUNCH(p, name, s, g, z)                                                                   \
    printf("pattern %d: %s\n", p, name);                                                           \
    ldgsts_probe<p><<<1, 32>>>(src, out);                                                          \
    CHECK(cudaGetLastError());                                                                     \
    CHECK(cudaDeviceSynchronize());
    PATTERNS(LAUNCH)
    printf("ITER %d cp.async a launch\n", ITER);
    CHECK(cudaFree(src));
    CHECK(cudaFree(out));
    return 0;
}
