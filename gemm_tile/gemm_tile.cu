/* Tensor-core GEMM, C = A * B (fp16 in, fp32 accumulate), fed by cp.async
 * into a 3-stage pipeline of shared tiles and read by ldmatrix.x4 into
 * mma.sync.m16n8k16. The three variants are one template, gemm_tile_kernel:
 * they differ only in the tile layout, every shared address coming from
 * gemm_tile_layout.h (the functions the bank model replays).
 *
 * Correct on the H100 (every test shape, both output types) and at 0.44-0.51
 * of the mma.sync ceiling, not yet the 0.60 issue 11 asks (gemm_tile/README.md).
 *
 * By default a block computes 128 x 128 of C with 8 warps (2 along M, 4 along
 * N; the tile is set in gemm_tile_layout.h), each warp 64 x 32: 4 m16 by 4 n8
 * mma tiles, 64 fp32 accumulators a thread. A K tile of 64 is 4 k16 steps;
 * each step a warp issues 4 ldmatrix.x4 for A, 2 for B and 16 mma.
 * Instruction forms: PTX ISA (NVIDIA), "cp.async", "ldmatrix", "mma.m16n8k16"
 * and its fragment layouts. */
#include <limits.h>
#include <stdint.h>

#include <cuda_fp16.h>

#include "gemm_tile/gemm_tile.h"
#include "gemm_tile/gemm_tile_layout.h"

/* ---- the instructions (inline PTX: CUDA C has no intrinsic for them) ---- */

/* 16 bytes from global to shared, asynchronously; src_bytes 0 writes 16 zero
 * bytes and reads nothing (the edge tiles' rows and K past the end). .cg:
 * through L2 only, the tile is used once by this block. */
static __device__ __forceinline__ void copy16_async(uint32_t dst, const void *src, int src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst),
                 "l"(__cvta_generic_to_global(src)), "r"(src_bytes)
                 : "memory");
}

static __device__ __forceinline__ void copy_commit(void)
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/* Waits until at most `pending` committed groups are still in flight. */
template <int pending> static __device__ __forceinline__ void copy_wait(void)
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(pending) : "memory");
}

/* Four 8x8 fp16 matrices: lane l gives the address of row l % 8 of matrix
 * l / 8; each lane gets 2 fp16 of each matrix (row lane / 4, columns
 * 2 (lane % 4) + 0, 1). volatile: it must stay between the barriers. */
static __device__ __forceinline__ void ldmatrix_x4(uint32_t r[4], uint32_t addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

/* d += a * b, m16n8k16, A row-major and B column-major fp16, fp32 accumulators. */
static __device__ __forceinline__ void mma_16816(float d[4], const uint32_t a[4], uint32_t b0,
                                                 uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/* ---- storing C ---- */

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

/* ---- the kernel ---- */

/* What one thread copies into every K tile of A (or of B's columns), worked
 * out once: its copy i reads the row GEMM_TILE_COPY_ROWS i below its first
 * one, src + i row_step, at K offset 64 kt (its chunk's 8 c is in src), and
 * writes it at its copy 0's offset + i gemm_tile_copy_stride. Rows past the
 * matrix (i GEMM_TILE_COPY_ROWS >= rows) and K past k (64 kt >= k_left) are
 * zero-filled, so the multiply needs no predicate (k is a multiple of 8: a
 * chunk is wholly inside K or past it). */
struct copy_plan {
    const uint16_t *src;
    int64_t row_step, rows, k_left;
};

static __device__ __forceinline__ copy_plan plan_copies(const uint16_t *src, int64_t first,
                                                        int64_t last, int64_t k, int thread)
{
    const int row = gemm_tile_copy_row(thread, 0), chunk = gemm_tile_copy_chunk(thread, 0);
    return copy_plan{src + (first + row) * k + 8 * chunk, GEMM_TILE_COPY_ROWS * k,
                     last - first - row, k - 8 * chunk};
}

/* K tile kt into the tile whose copy-0 address for this thread is `at0`;
 * `base` (a valid address) stands in for copies that read nothing. */
template <int V, int copies>
static __device__ __forceinline__ void copy_tile(uint32_t at0, const copy_plan &p,
                                                 const uint16_t *base, int64_t kt)
{
    const enum gemm_tile_variant variant = (enum gemm_tile_variant)V;
    const bool k_in = kt * GEMM_TILE_BK < p.k_left;
    const uint16_t *from = p.src + kt * GEMM_TILE_BK;
#pragma unroll
    for (int i = 0; i < copies; ++i) {
        const bool in = k_in && GEMM_TILE_COPY_ROWS * i < p.rows;
        copy16_async(at0 + (uint32_t)i * gemm_tile_copy_stride(variant),
                     in ? from + i * p.row_step : base, in ? 16 : 0);
    }
}

/* K tile kt of the block's A rows and B columns into stage `stage`. */
template <int V>
static __device__ __forceinline__ void
load_ktile(uint32_t smem, uint32_t copy_at0, const copy_plan &pa, const copy_plan &pb,
           const uint16_t *a, const uint16_t *b, int64_t kt, int stage)
{
    const enum gemm_tile_variant variant = (enum gemm_tile_variant)V;
    copy_tile<V, GEMM_TILE_COPIES_A>(smem + gemm_tile_a_base(variant, stage) + copy_at0, pa, a, kt);
    copy_tile<V, GEMM_TILE_COPIES_B>(smem + gemm_tile_b_base(variant, stage) + copy_at0, pb, b, kt);
}

/* blockIdx.y: the tile's rows of C, blockIdx.x its columns. 2 blocks an SM
 * by default (2 x 96 KiB, padded 2 x 108 KiB of shared memory): at most 128
 * registers a thread. pairs: n is even and c aligned to two elements, so neighbours go
 * out in one store. */
template <int V, typename Out>
__global__ void __launch_bounds__(GEMM_TILE_THREADS, GEMM_TILE_BLOCKS_PER_SM)
    gemm_tile_kernel(Out *c, const uint16_t *a, const uint16_t *b, int64_t m, int64_t n, int64_t k,
                     int pairs)
{
    const enum gemm_tile_variant variant = (enum gemm_tile_variant)V;
    extern __shared__ __align__(128) unsigned char tiles[];
    const uint32_t smem = (uint32_t)__cvta_generic_to_shared(tiles);
    const int thread = (int)threadIdx.x, warp = thread / 32, lane = thread % 32;
    const int64_t row0 = (int64_t)blockIdx.y * GEMM_TILE_BM,
                  col0 = (int64_t)blockIdx.x * GEMM_TILE_BN;
    const int64_t ktiles = gemm_tile_tiles_k(k);

    float acc[GEMM_TILE_MI][2 * GEMM_TILE_NJ][4];
#pragma unroll
    for (int mi = 0; mi < GEMM_TILE_MI; ++mi)
#pragma unroll
        for (int nt = 0; nt < 2 * GEMM_TILE_NJ; ++nt)
#pragma unroll
            for (int e = 0; e < 4; ++e)
                acc[mi][nt][e] = 0.0f;

    /* The pipeline: STAGES - 1 tiles in flight before the first multiply; one
     * group committed every step (empty past the last tile) so that
     * wait_group's count always means "tile kt has landed". */
    const copy_plan pa = plan_copies(a, row0, m, k, thread),
                    pb = plan_copies(b, col0, n, k, thread);
    const uint32_t copy_at0 = gemm_tile_copy_offset(variant, thread, 0);
#pragma unroll
    for (int s = 0; s < GEMM_TILE_STAGES - 1; ++s) {
        if (s < ktiles)
            load_ktile<V>(smem, copy_at0, pa, pb, a, b, s, s);
        copy_commit();
    }
    /* Each lane's ldmatrix offsets at k16 step 0; gemm_tile_ldmatrix_step
     * moves them to step kk. */
    uint32_t a_at0[GEMM_TILE_MI], b_at0[GEMM_TILE_NJ];
#pragma unroll
    for (int mi = 0; mi < GEMM_TILE_MI; ++mi)
        a_at0[mi] = gemm_tile_ldmatrix_a(variant, warp, mi, 0, lane);
#pragma unroll
    for (int nj = 0; nj < GEMM_TILE_NJ; ++nj)
        b_at0[nj] = gemm_tile_ldmatrix_b(variant, warp, nj, 0, lane);

    /* stage: gemm_tile_stage_of(kt), and the next load's, kept as counters */
    for (int64_t kt = 0, stage = 0, next_stage = GEMM_TILE_STAGES - 1; kt < ktiles; ++kt) {
        copy_wait<GEMM_TILE_STAGES - 2>();
        /* Tile kt is visible to all, and every warp is done with tile kt - 1,
         * whose stage the next load overwrites. */
        __syncthreads();
        if (kt + GEMM_TILE_STAGES - 1 < ktiles)
            load_ktile<V>(smem, copy_at0, pa, pb, a, b, kt + GEMM_TILE_STAGES - 1, (int)next_stage);
        copy_commit();
        next_stage = next_stage + 1 == GEMM_TILE_STAGES ? 0 : next_stage + 1;

        const uint32_t a_tile = smem + gemm_tile_a_base(variant, (int)stage),
                       b_tile = smem + gemm_tile_b_base(variant, (int)stage);
#pragma unroll
        for (int kk = 0; kk < GEMM_TILE_KK; ++kk) {
            uint32_t af[GEMM_TILE_MI][4], bf[GEMM_TILE_NJ][4];
#pragma unroll
            for (int mi = 0; mi < GEMM_TILE_MI; ++mi)
                ldmatrix_x4(af[mi], a_tile + gemm_tile_ldmatrix_step(variant, a_at0[mi], kk));
#pragma unroll
            for (int nj = 0; nj < GEMM_TILE_NJ; ++nj)
                ldmatrix_x4(bf[nj], b_tile + gemm_tile_ldmatrix_step(variant, b_at0[nj], kk));
                /* bf[nj]: b0b1, b2b3 of n8 tile 2 nj, then of n8 tile 2 nj + 1. */
#pragma unroll
            for (int mi = 0; mi < GEMM_TILE_MI; ++mi)
#pragma unroll
                for (int nt = 0; nt < 2 * GEMM_TILE_NJ; ++nt)
                    mma_16816(acc[mi][nt], af[mi], bf[nt / 2][2 * (nt % 2)],
                              bf[nt / 2][2 * (nt % 2) + 1]);
        }
        stage = stage + 1 == GEMM_TILE_STAGES ? 0 : stage + 1;
    }
    copy_wait<0>(); /* only empty groups are left; leave none behind */

    /* The accumulators of mma.m16n8k16: c0 c1 at row lane / 4, columns
     * 2 (lane % 4) + 0, 1; c2 c3 eight rows further down. */
    const int64_t warp_row = row0 + gemm_tile_warp_m(warp) * GEMM_TILE_WARP_M + lane / 4,
                  warp_col = col0 + gemm_tile_warp_n(warp) * GEMM_TILE_WARP_N + 2 * (lane % 4);
#pragma unroll
    for (int mi = 0; mi < GEMM_TILE_MI; ++mi)
#pragma unroll
        for (int half = 0; half < 2; ++half) {
            const int64_t row = warp_row + 16 * mi + 8 * half;
            if (row >= m)
                continue;
#pragma unroll
            for (int nt = 0; nt < 2 * GEMM_TILE_NJ; ++nt) {
                const int64_t col = warp_col + 8 * nt;
                Out *out = c + row * n + col;
                const float v0 = acc[mi][nt][2 * half], v1 = acc[mi][nt][2 * half + 1];
                if (pairs && col + 1 < n) {
                    store_pair(out, v0, v1);
                } else {
                    if (col < n)
                        store_one(out, v0);
                    if (col + 1 < n)
                        store_one(out + 1, v1);
                }
            }
        }
}

/* ---- launchers ---- */

template <int V, typename Out>
static cudaError_t launch_variant(Out *c, const uint16_t *a, const uint16_t *b, int64_t m,
                                  int64_t n, int64_t k, int pairs, cudaStream_t stream)
{
    const int bytes = (int)gemm_tile_smem_bytes((enum gemm_tile_variant)V);
    /* More than 48 KiB of dynamic shared memory must be asked for. */
    cudaError_t err = cudaFuncSetAttribute(gemm_tile_kernel<V, Out>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    if (err != cudaSuccess)
        return err;
    const dim3 grid((unsigned)gemm_tile_tiles_n(n), (unsigned)gemm_tile_tiles_m(m));
    gemm_tile_kernel<V, Out><<<grid, GEMM_TILE_THREADS, bytes, stream>>>(c, a, b, m, n, k, pairs);
    return cudaGetLastError();
}

template <typename Out>
static cudaError_t launch(enum gemm_tile_variant variant, Out *c, const uint16_t *a,
                          const uint16_t *b, int64_t m, int64_t n, int64_t k, cudaStream_t stream)
{
    if ((unsigned)variant >= GEMM_TILE_VARIANTS || c == NULL || a == NULL || b == NULL || m < 1 ||
        n < 1 || k < 8 || k % 8 != 0 || (uintptr_t)a % 16 != 0 || (uintptr_t)b % 16 != 0 ||
        gemm_tile_tiles_m(m) > 65535 || gemm_tile_tiles_n(n) > INT_MAX)
        return cudaErrorInvalidValue;
    const int pairs = n % 2 == 0 && (uintptr_t)c % (2 * sizeof(Out)) == 0;
    switch (variant) {
    case GEMM_TILE_ROWMAJOR:
        return launch_variant<GEMM_TILE_ROWMAJOR>(c, a, b, m, n, k, pairs, stream);
    case GEMM_TILE_PADDED:
        return launch_variant<GEMM_TILE_PADDED>(c, a, b, m, n, k, pairs, stream);
    default:
        return launch_variant<GEMM_TILE_SWIZZLED>(c, a, b, m, n, k, pairs, stream);
    }
}

extern "C" cudaError_t gemm_tile_f32(enum gemm_tile_variant variant, float *c, const uint16_t *a,
                                     const uint16_t *b, int64_t m, int64_t n, int64_t k,
                                     cudaStream_t stream)
{
    return launch(variant, c, a, b, m, n, k, stream);
}

extern "C" cudaError_t gemm_tile_f16(enum gemm_tile_variant variant, uint16_t *c, const uint16_t *a,
                                     const uint16_t *b, int64_t m, int64_t n, int64_t k,
                                     cudaStream_t stream)
{
    return launch(variant, reinterpret_cast<__half *>(c), a, b, m, n, k, stream);
}
