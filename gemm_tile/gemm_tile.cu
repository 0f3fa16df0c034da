/* Tensor-core GEMM, C = A * B (fp16 in, fp32 accumulate), fed by cp.async
 * into a 3-stage pipeline of shared tiles and read by ldmatrix.x4 into
 * mma.sync.m16n8k16. The three variants are one template, gemm_tile_kernel:
 * they differ only in the tile layout, every shared address coming from
 * gemm_tile_layout.h (the functions the bank model replays).
 *
 * By default a block computes 128 x 256 of C with 8 warps (2 along M, 4 along
 * N; the tile is set in gemm_tile_layout.h), each warp 64 x 64: 4 m16 by 8 n8
 * mma tiles, 128 fp32 accumulators a thread, one block an SM. A K tile of 64
 * is 4 k16 steps; each step a warp issues 4 ldmatrix.x4 for A, 4 for B and
 * 32 mma. What made it fast (gemm_tile/README.md, "Speed"): every address
 * worked out once outside the K loop, interior blocks without predicates,
 * the next step's fragments read while this step multiplies, the copies
 * spread between the mma, and the grid walked in groups of tile rows.
 * Instruction forms: PTX ISA (NVIDIA), "cp.async", "ldmatrix", "mma.m16n8k16"
 * and its fragment layouts. The launchers at the end serve every variant of
 * gemm_tile.h: the wgmma ones go to gemm_tile_wgmma.cu (sm_90a). */
#include <limits.h>
#include <stdint.h>

#include <cuda_fp16.h>

#include "gemm_tile/gemm_tile.h"
#include "gemm_tile/gemm_tile_layout.h"
#include "gemm_tile/gemm_tile_store.cuh"
#include "gemm_tile/gemm_tile_wgmma.h"

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

/* ---- the kernel ---- */

/* What one thread copies into every K tile of A (or of B's columns), worked
 * out once: its copy i reads the row GEMM_TILE_COPY_ROWS i below its first
 * one, src + i row_step, at K offset 64 kt (its chunk's 8 c is in src), and
 * writes it at its copy 0's offset + i gemm_tile_copy_stride. Copies i >=
 * rows_in read rows past the matrix, and K past k_left is past k: an edge
 * block zero-fills them, so the multiply needs no predicate (k is a multiple
 * of 8: a chunk is wholly inside K or past it). */
struct copy_plan {
    const uint16_t *src;
    int64_t row_step, k_left;
    int rows_in;
};

static __device__ __forceinline__ copy_plan plan_copies(const uint16_t *src, int64_t first,
                                                        int64_t last, int64_t k, int thread)
{
    const int row = gemm_tile_copy_row(thread, 0), chunk = gemm_tile_copy_chunk(thread, 0);
    const int64_t rows_left = last - first - row; /* rows from this thread's first to the end */
    const int64_t rows_in = (rows_left + GEMM_TILE_COPY_ROWS - 1) / GEMM_TILE_COPY_ROWS;
    return copy_plan{src + (first + row) * k + 8 * chunk, GEMM_TILE_COPY_ROWS * k, k - 8 * chunk,
                     (int)(rows_in < 0         ? 0
                           : rows_in < INT_MAX ? rows_in
                                               : INT_MAX)};
}

/* K tile kt into the tile whose copy-0 address for this thread is `at0`. In
 * an interior block (edge false) every copy is inside the matrix; in an edge
 * block the others read nothing and write zeros, `base` (a valid address)
 * standing in for their source. */
template <int V, int copies, bool edge>
static __device__ __forceinline__ void copy_tile(uint32_t at0, const copy_plan &p,
                                                 const uint16_t *base, int64_t kt)
{
    const enum gemm_tile_variant variant = (enum gemm_tile_variant)V;
    const bool k_in = kt * GEMM_TILE_BK < p.k_left;
    const uint16_t *from = p.src + kt * GEMM_TILE_BK;
#pragma unroll
    for (int i = 0; i < copies; ++i) {
        const uint32_t to = at0 + (uint32_t)i * gemm_tile_copy_stride(variant);
        if (edge) {
            const bool in = k_in && i < p.rows_in;
            copy16_async(to, in ? from : base, in ? 16 : 0);
        } else {
            copy16_async(to, from, 16);
        }
        from += p.row_step;
    }
}

/* The block's operands as its threads copy them. */
struct block_copies {
    copy_plan a, b;
    const uint16_t *a_base, *b_base; /* valid addresses for copies that read nothing */
    uint32_t at0;                    /* this thread's copy-0 offset inside a tile */
};

typedef float warp_acc[GEMM_TILE_MI][2 * GEMM_TILE_NJ][4]; /* a thread's share of a warp tile */

/* One k16 step's fragments: A for each m16 tile, B for each n16 pair (b0b1,
 * b2b3 of n8 tile 2 nj, then of n8 tile 2 nj + 1). */
struct fragments {
    uint32_t a[GEMM_TILE_MI][4], b[GEMM_TILE_NJ][4];
};

/* Each lane's ldmatrix offsets for m16 tile (n16 pair) 0 at k16 step 0:
 * gemm_tile_ldmatrix_step moves them to step kk, and the other tiles are
 * gemm_tile_ldmatrix_tile_stride further (the instruction's immediate). */
template <int V>
static __device__ __forceinline__ void load_fragments(fragments &f, uint32_t a_tile,
                                                      uint32_t b_tile, uint32_t a_at0,
                                                      uint32_t b_at0, int kk)
{
    const enum gemm_tile_variant variant = (enum gemm_tile_variant)V;
    const uint32_t a_at = a_tile + gemm_tile_ldmatrix_step(variant, a_at0, kk),
                   b_at = b_tile + gemm_tile_ldmatrix_step(variant, b_at0, kk),
                   tile = gemm_tile_ldmatrix_tile_stride(variant);
#pragma unroll
    for (int mi = 0; mi < GEMM_TILE_MI; ++mi)
        ldmatrix_x4(f.a[mi], a_at + mi * tile);
#pragma unroll
    for (int nj = 0; nj < GEMM_TILE_NJ; ++nj)
        ldmatrix_x4(f.b[nj], b_at + nj * tile);
}

static __device__ __forceinline__ void multiply_step(warp_acc &acc, const fragments &f)
{
#pragma unroll
    for (int mi = 0; mi < GEMM_TILE_MI; ++mi)
#pragma unroll
        for (int nt = 0; nt < 2 * GEMM_TILE_NJ; ++nt)
            mma_16816(acc[mi][nt], f.a[mi], f.b[nt / 2][2 * (nt % 2)],
                      f.b[nt / 2][2 * (nt % 2) + 1]);
}

static __device__ __forceinline__ int next_stage(int stage)
{
    return stage + 1 == GEMM_TILE_STAGES ? 0 : stage + 1;
}

/* Where the K loop stands: the stage multiplied and the stage the next copies
 * fill (gemm_tile_stage_of of kt and of kt + STAGES - 1, kept as counters),
 * and each lane's ldmatrix offsets for m16 tile (n16 pair) 0 at step 0. */
struct pipeline {
    uint32_t smem, a_at0, b_at0;
    int stage, fill;
};

/* acc += K tile kt. The fragments of step kk + 1 are read while step kk
 * multiplies, and the last step reads the next tile's first: its barrier
 * (tile kt + 1 visible to all, every warp done reading tile kt) comes before
 * the last step's mma, which hides it. With `fill`, tile kt + STAGES - 1 is
 * copied at steps 0 (A) and 1 (B), between mma, into the stage the last
 * barrier freed; without, the group is empty. Two loops, not a predicate:
 * ncu books an LDGSTS whose predicate is off at 32 shared wavefronts and 32
 * sectors (docs/bank-rules.md, "cp.async"), which the model would not see. */
template <int V, bool edge, bool fill>
static __device__ __forceinline__ void multiply_ktile(warp_acc &acc, fragments (&f)[2], pipeline &p,
                                                      const block_copies &bc, int64_t kt,
                                                      int64_t ktiles)
{
    static_assert(GEMM_TILE_KK >= 3, "the copies (steps 0, 1) go out before the wait (last step)");
    const enum gemm_tile_variant variant = (enum gemm_tile_variant)V;
    const int64_t fill_kt = kt + GEMM_TILE_STAGES - 1;
#pragma unroll
    for (int kk = 0; kk < GEMM_TILE_KK; ++kk) {
        if (kk == GEMM_TILE_KK - 1) {
            copy_wait<GEMM_TILE_STAGES - 2>();
            __syncthreads();
            p.stage = next_stage(p.stage);
        }
        if (kk < GEMM_TILE_KK - 1 || kt + 1 < ktiles)
            load_fragments<V>(f[(kk + 1) % 2], p.smem + gemm_tile_a_base(variant, p.stage),
                              p.smem + gemm_tile_b_base(variant, p.stage), p.a_at0, p.b_at0,
                              (kk + 1) % GEMM_TILE_KK);
        if (fill && kk == 0)
            copy_tile<V, GEMM_TILE_COPIES_A, edge>(
                p.smem + gemm_tile_a_base(variant, p.fill) + bc.at0, bc.a, bc.a_base, fill_kt);
        if (kk == 1) {
            if (fill)
                copy_tile<V, GEMM_TILE_COPIES_B, edge>(
                    p.smem + gemm_tile_b_base(variant, p.fill) + bc.at0, bc.b, bc.b_base, fill_kt);
            copy_commit();
            p.fill = next_stage(p.fill);
        }
        multiply_step(acc, f[kk % 2]);
    }
}

/* acc += the block's A rows times its B columns, K tile by K tile. Inlined
 * twice: for interior blocks (edge false: no predicates) and edge blocks.
 * The pipeline: STAGES - 1 K tiles in flight ahead of the one multiplied,
 * one cp.async group committed a K tile (empty past the last) so that
 * wait_group's count always means "tile kt + 1 has landed". */
template <int V, bool edge>
static __device__ __forceinline__ void
multiply(warp_acc &acc, uint32_t smem, const block_copies &bc, int64_t ktiles, int warp, int lane)
{
    const enum gemm_tile_variant variant = (enum gemm_tile_variant)V;
#pragma unroll
    for (int s = 0; s < GEMM_TILE_STAGES - 1; ++s) {
        if (s < ktiles) {
            copy_tile<V, GEMM_TILE_COPIES_A, edge>(smem + gemm_tile_a_base(variant, s) + bc.at0,
                                                   bc.a, bc.a_base, s);
            copy_tile<V, GEMM_TILE_COPIES_B, edge>(smem + gemm_tile_b_base(variant, s) + bc.at0,
                                                   bc.b, bc.b_base, s);
        }
        copy_commit();
    }
    pipeline p = {smem, gemm_tile_ldmatrix_a(variant, warp, 0, 0, lane),
                  gemm_tile_ldmatrix_b(variant, warp, 0, 0, lane), 0, GEMM_TILE_STAGES - 1};
    fragments f[2];
    copy_wait<GEMM_TILE_STAGES - 2>();
    __syncthreads();
    load_fragments<V>(f[0], smem + gemm_tile_a_base(variant, 0),
                      smem + gemm_tile_b_base(variant, 0), p.a_at0, p.b_at0, 0);
    int64_t kt = 0;
    for (; kt + GEMM_TILE_STAGES - 1 < ktiles; ++kt)
        multiply_ktile<V, edge, true>(acc, f, p, bc, kt, ktiles);
    for (; kt < ktiles; ++kt) /* the last STAGES - 1 tiles: nothing left to copy */
        multiply_ktile<V, edge, false>(acc, f, p, bc, kt, ktiles);
    copy_wait<0>(); /* only empty groups are left; leave none behind */
}

/* Block blockIdx.x computes tile gemm_tile_block_tile of C. pairs: n is even
 * and c aligned to two elements, so neighbours go out in one store. */
template <int V, typename Out>
__global__ void __launch_bounds__(GEMM_TILE_THREADS, GEMM_TILE_BLOCKS_PER_SM)
    gemm_tile_kernel(Out *c, const uint16_t *a, const uint16_t *b, int64_t m, int64_t n, int64_t k,
                     int pairs)
{
    const enum gemm_tile_variant variant = (enum gemm_tile_variant)V;
    extern __shared__ __align__(128) unsigned char tiles[];
    const uint32_t smem = (uint32_t)__cvta_generic_to_shared(tiles);
    const int thread = (int)threadIdx.x, warp = thread / 32, lane = thread % 32;
    int64_t tile_m, tile_n;
    gemm_tile_block_tile(blockIdx.x, gemm_tile_tiles_m(m), gemm_tile_tiles_n(n), &tile_m, &tile_n);
    const int64_t row0 = tile_m * GEMM_TILE_BM, col0 = tile_n * GEMM_TILE_BN;

    warp_acc acc;
#pragma unroll
    for (int mi = 0; mi < GEMM_TILE_MI; ++mi)
#pragma unroll
        for (int nt = 0; nt < 2 * GEMM_TILE_NJ; ++nt)
#pragma unroll
            for (int e = 0; e < 4; ++e)
                acc[mi][nt][e] = 0.0f;

    const block_copies bc = {plan_copies(a, row0, m, k, thread), plan_copies(b, col0, n, k, thread),
                             a, b, gemm_tile_copy_offset(variant, thread, 0)};
    const int64_t ktiles = gemm_tile_tiles_k(k);
    if (row0 + GEMM_TILE_BM <= m && col0 + GEMM_TILE_BN <= n && k % GEMM_TILE_BK == 0)
        multiply<V, false>(acc, smem, bc, ktiles, warp, lane);
    else
        multiply<V, true>(acc, smem, bc, ktiles, warp, lane);

    /* The accumulators of mma.m16n8k16: c0 c1 at row lane / 4, columns
     * 2 (lane % 4) + 0, 1; c2 c3 eight rows further down. */
    const int64_t warp_row = row0 + gemm_tile_warp_m(warp) * GEMM_TILE_WARP_M + lane / 4,
                  warp_col = col0 + gemm_tile_warp_n(warp) * GEMM_TILE_WARP_N + 2 * (lane % 4);
#pragma unroll
    for (int mi = 0; mi < GEMM_TILE_MI; ++mi)
#pragma unroll
        for (int half = 0; half < 2; ++half)
#pragma unroll
            for (int nt = 0; nt < 2 * GEMM_TILE_NJ; ++nt)
                store_c_pair(c, m, n, warp_row + 16 * mi + 8 * half, warp_col + 8 * nt,
                             acc[mi][nt][2 * half], acc[mi][nt][2 * half + 1], pairs);
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
    const unsigned blocks = (unsigned)(gemm_tile_tiles_m(m) * gemm_tile_tiles_n(n));
    gemm_tile_kernel<V, Out><<<blocks, GEMM_TILE_THREADS, bytes, stream>>>(c, a, b, m, n, k, pairs);
    return cudaGetLastError();
}

template <typename Out>
static cudaError_t launch(enum gemm_tile_variant variant, Out *c, const uint16_t *a,
                          const uint16_t *b, int64_t m, int64_t n, int64_t k, cudaStream_t stream)
{
    if (c == NULL || a == NULL || b == NULL || (uintptr_t)a % 16 != 0 || (uintptr_t)b % 16 != 0 ||
        gemm_tile_refusal(variant, m, n, k) != NULL)
        return cudaErrorInvalidValue;
    const int pairs = n % 2 == 0 && (uintptr_t)c % (2 * sizeof(Out)) == 0;
    switch (variant) {
    case GEMM_TILE_ROWMAJOR:
        return launch_variant<GEMM_TILE_ROWMAJOR>(c, a, b, m, n, k, pairs, stream);
    case GEMM_TILE_PADDED:
        return launch_variant<GEMM_TILE_PADDED>(c, a, b, m, n, k, pairs, stream);
    case GEMM_TILE_SWIZZLED:
        return launch_variant<GEMM_TILE_SWIZZLED>(c, a, b, m, n, k, pairs, stream);
    default:
        return gemm_tile_wgmma_launch(variant, c, sizeof(Out) == 2, a, b, m, n, k, stream);
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

extern "C" cudaError_t gemm_tile_supported(enum gemm_tile_variant variant, int device)
{
    if ((unsigned)variant >= GEMM_TILE_VARIANTS)
        return cudaErrorInvalidValue;
    if (variant < GEMM_TILE_MMA_SYNC_VARIANTS)
        return cudaSuccess; /* this build's own architectures; the launch says if it has none */
    if (!gemm_tile_wgmma_built())
        return cudaErrorNoKernelImageForDevice;
    if (device < 0)
        return cudaSuccess;
    int major = 0, minor = 0;
    cudaError_t err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
    if (err != cudaSuccess)
        return err;
    return major == 9 && minor == 0 ? cudaSuccess : cudaErrorNoKernelImageForDevice;
}
