/* Tensor-core GEMM, C = A * B (fp16 in, fp32 accumulate), fed by cp.async
 * into a 3-stage pipeline of shared tiles and read by ldmatrix.x4 into
 * mma.sync.m16n8k16. The three variants are one template, gemm_tile_kernel:
 * they differ only in the tile layout, every shared address coming from
 * gemm_tile_layout.h (the functions the bank model replays).
 *
 * A block computes 128 x 256 of C with 8 warps (2 along M, 4 along N), one
 * block an SM, or, where such tiles number fewer than half the SMs, 128 x 128
 * with 4 warps, built for two blocks an SM (gemm_tile_bn; the tiles are set
 * in gemm_tile_layout.h). Each warp computes 64 x 64: 4 m16 by 8 n8 mma tiles,
 * 128 fp32 accumulators a thread; as many blocks as fit, each taking tiles in
 * turn. A K tile of 64 is 4 k16 steps;
 * each step a warp issues 4 ldmatrix.x4 for A, 4 for B and 32 mma. What made
 * it fast (docs/notes/gemm_tile/): every address worked out once
 * outside the K loop, interior tiles without predicates, the next step's
 * fragments read while this step multiplies, the copies spread between the
 * mma, the grid walked in groups of tile rows, and the next tile's first K
 * tiles copied while this one's last multiply.
 * Instruction forms: PTX ISA (NVIDIA), "cp.async", "ldmatrix", "mma.m16n8k16"
 * and its fragment layouts. The launchers at the end serve every variant of
 * gemm_tile.h: the wgmma ones go to gemm_tile_wgmma.cu (sm_90a) where
 * it is there. */
#include <limits.h>
#include <stdint.h>

#include <cuda_fp16.h>

#include "gemm_tile/gemm_tile.h"
#include "gemm_tile/gemm_tile_layout.h"
#include "gemm_tile/gemm_tile_refusal.h"
#include "gemm_tile/gemm_tile_store.cuh"

/* The wgmma variants live in gemm_tile_wgmma.cu (sm_90a), reached through
 * gemm_tile_wgmma.h, whose entry checks its arguments again for a copy of
 * that path alone. A copy of this lesson without that header has no wgmma
 * variants, and they say so as a build without sm_90a code does
 * (gemm_tile_wgmma_absent.c). */
#if __has_include("gemm_tile/gemm_tile_wgmma.h")
#include "gemm_tile/gemm_tile_wgmma.h"
#else
static int gemm_tile_wgmma_built(void)
{
    return 0;
}
static cudaError_t gemm_tile_wgmma_launch(enum gemm_tile_variant, void *, int, const uint16_t *,
                                          const uint16_t *, int64_t, int64_t, int64_t, cudaStream_t)
{
    return cudaErrorNoKernelImageForDevice;
}
#endif

/* ---- the instructions (inline PTX: CUDA C has no intrinsic for them) ----
 * All sm_80's: compiled for sm_75, each is a trap, and the launcher never
 * starts the kernel there (bf_kernel_built_for). */
#if BF_SM80
#define SM80_ASM(...) asm volatile(__VA_ARGS__)
#else
#define SM80_ASM(...) __trap()
#endif

/* 16 bytes from global to shared, asynchronously; src_bytes 0 writes 16 zero
 * bytes and reads nothing (the edge tiles' rows and K past the end). .cg:
 * through L2 only, the tile is used once by this block. */
static __device__ __forceinline__ void copy16_async(uint32_t dst, const void *src, int src_bytes)
{
    SM80_ASM("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst),
             "l"(__cvta_generic_to_global(src)), "r"(src_bytes)
             : "memory");
}

static __device__ __forceinline__ void copy_commit(void)
{
    SM80_ASM("cp.async.commit_group;\n" ::: "memory");
}

/* Waits until at most `pending` committed groups are still in flight. */
template <int pending> static __device__ __forceinline__ void copy_wait(void)
{
    SM80_ASM("cp.async.wait_group %0;\n" ::"n"(pending) : "memory");
}

/* Four 8x8 fp16 matrices: lane l gives the address of row l % 8 of matrix
 * l / 8; each lane gets 2 fp16 of each matrix (row lane / 4, columns
 * 2 (lane % 4) + 0, 1). volatile: it must stay between the barriers. */
static __device__ __forceinline__ void ldmatrix_x4(uint32_t r[4], uint32_t addr)
{
    SM80_ASM("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
             : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
             : "r"(addr));
}

/* d += a * b, m16n8k16, A row-major and B column-major fp16, fp32 accumulators. */
static __device__ __forceinline__ void mma_16816(float d[4], const uint32_t a[4], uint32_t b0,
                                                 uint32_t b1)
{
    SM80_ASM("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
             "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
             : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
             : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/* ---- the kernel ---- */

/* What one thread copies into every K tile of A (or of B's columns), worked
 * out once: its copy i reads the row GEMM_TILE_COPY_ROWS_OF(BN) i below its first
 * one, src + i row_step, at K offset 64 kt (its chunk's 8 c is in src), and
 * writes it at its copy 0's offset + i gemm_tile_copy_stride. Copies i >=
 * rows_in read rows past the matrix, and K past k_left is past k: an edge
 * tile's copies zero-fill them, so the multiply needs no predicate (k is a
 * multiple of 8: a chunk is wholly inside K or past it). */
struct copy_plan {
    const uint16_t *src;
    int64_t row_step, k_left;
    int rows_in;
};

template <int BN>
static __device__ __forceinline__ copy_plan plan_copies(const uint16_t *src, int64_t first,
                                                        int64_t last, int64_t k, int thread)
{
    constexpr int64_t step = GEMM_TILE_COPY_ROWS_OF(BN);
    const int row = gemm_tile_copy_row(BN, thread, 0), chunk = gemm_tile_copy_chunk(BN, thread, 0);
    const int64_t rows_left = last - first - row; /* rows from this thread's first to the end */
    const int64_t rows_in = (rows_left + step - 1) / step;
    return copy_plan{src + (first + row) * k + 8 * chunk, step * k, k - 8 * chunk,
                     (int)(rows_in < 0         ? 0
                           : rows_in < INT_MAX ? rows_in
                                               : INT_MAX)};
}

/* K tile kt into the tile whose copy-0 address for this thread is `at0`. In
 * an interior tile (edge false) every copy is inside the matrix; with edge
 * (an edge tile, or any next tile copied ahead) the copies outside read
 * nothing and write zeros, `base` (a valid address) standing in for their
 * source. */
template <int V, int BN, int copies, bool edge>
static __device__ __forceinline__ void copy_tile(uint32_t at0, const copy_plan &p,
                                                 const uint16_t *base, int64_t kt)
{
    const enum gemm_tile_variant variant = (enum gemm_tile_variant)V;
    const bool k_in = kt * GEMM_TILE_BK < p.k_left;
    const uint16_t *from = p.src + kt * GEMM_TILE_BK;
#pragma unroll
    for (int i = 0; i < copies; ++i) {
        const uint32_t to = at0 + (uint32_t)i * gemm_tile_copy_stride(variant, BN);
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
 * fill (gemm_tile_stage_of of j and of j + STAGES - 1, K tile j counted
 * from the block's first, on through all its tiles: kept as counters), and
 * each lane's ldmatrix offsets for m16 tile (n16 pair) 0 at step 0. */
struct pipeline {
    uint32_t smem, a_at0, b_at0;
    int stage, fill;
};

/* acc += K tile kt. The fragments of step kk + 1 are read while step kk
 * multiplies, and the last step reads the next K tile's first (except in a
 * tile's last K tile): its barrier (K tile kt + 1 visible to all, every warp
 * done reading tile kt) comes before the last step's mma, which hides it.
 * With `copies`, K tile fill_kt of `fill` is copied at steps 0 (A) and 1
 * (B), between mma, into the stage the last barrier freed (fill_edge: with
 * predicates); else the group is empty. Not a predicate on the copies: ncu books an LDGSTS whose
 * predicate is off at 32 shared wavefronts and 32 sectors
 * (docs/bank-rules.md, "cp.async"), which the model would not see. */
template <int V, int BN, bool fill_edge>
static __device__ __forceinline__ void multiply_ktile(warp_acc &acc, fragments (&f)[2], pipeline &p,
                                                      const block_copies &fill, bool copies,
                                                      int64_t fill_kt, int64_t kt, int64_t ktiles)
{
    static_assert(GEMM_TILE_KK >= 3, "the copies (steps 0, 1) go out before the wait (last step)");
    const enum gemm_tile_variant variant = (enum gemm_tile_variant)V;
#pragma unroll
    for (int kk = 0; kk < GEMM_TILE_KK; ++kk) {
        if (kk == GEMM_TILE_KK - 1) {
            copy_wait<GEMM_TILE_STAGES - 2>();
            __syncthreads();
            p.stage = next_stage(p.stage);
        }
        if (kk < GEMM_TILE_KK - 1 || kt + 1 < ktiles)
            load_fragments<V>(f[(kk + 1) % 2], p.smem + gemm_tile_a_base(variant, BN, p.stage),
                              p.smem + gemm_tile_b_base(variant, BN, p.stage), p.a_at0, p.b_at0,
                              (kk + 1) % GEMM_TILE_KK);
        if (copies && kk == 0)
            copy_tile<V, BN, GEMM_TILE_COPIES_A_OF(BN), fill_edge>(
                p.smem + gemm_tile_a_base(variant, BN, p.fill) + fill.at0, fill.a, fill.a_base,
                fill_kt);
        if (kk == 1) {
            if (copies)
                copy_tile<V, BN, GEMM_TILE_COPIES_B_OF(BN), fill_edge>(
                    p.smem + gemm_tile_b_base(variant, BN, p.fill) + fill.at0, fill.b, fill.b_base,
                    fill_kt);
            copy_commit();
            p.fill = next_stage(p.fill);
        }
        multiply_step(acc, f[kk % 2]);
    }
}

/* The copies of K tiles 0 .. STAGES - 2 into the stages from p.stage on, one
 * cp.async group each (empty past the last K tile): a tile's prologue where
 * the tile before did not fill them (the first tile, or K of fewer than
 * STAGES - 1 tiles). */
template <int V, int BN, bool edge>
static __device__ __forceinline__ void fill_prologue(const pipeline &p, const block_copies &bc,
                                                     int64_t ktiles)
{
    const enum gemm_tile_variant variant = (enum gemm_tile_variant)V;
    int stage = p.stage;
#pragma unroll
    for (int s = 0; s < GEMM_TILE_STAGES - 1; ++s) {
        if (s < ktiles) {
            copy_tile<V, BN, GEMM_TILE_COPIES_A_OF(BN), edge>(
                p.smem + gemm_tile_a_base(variant, BN, stage) + bc.at0, bc.a, bc.a_base, s);
            copy_tile<V, BN, GEMM_TILE_COPIES_B_OF(BN), edge>(
                p.smem + gemm_tile_b_base(variant, BN, stage) + bc.at0, bc.b, bc.b_base, s);
        }
        copy_commit();
        stage = next_stage(stage);
    }
}

/* acc += the tile's A rows times its B columns, K tile by K tile. Inlined
 * twice: for interior tiles (edge false: no predicates) and edge tiles. The
 * pipeline: STAGES - 1 K tiles in flight ahead of the one multiplied, one
 * cp.async group committed a K tile so that wait_group's count always means
 * "the next K tile has landed". The K tiles run as one stream from tile to
 * tile: the last STAGES - 1 K tiles of a tile copy the first ones of `next`
 * (its copies predicated: it may be an edge tile) where `ahead`, so the
 * next tile starts with them landed or in flight instead of a prologue
 * after this one's C; past the last tile the groups are empty. */
template <int V, int BN, bool edge>
static __device__ __forceinline__ void multiply(warp_acc &acc, pipeline &p, const block_copies &bc,
                                                const block_copies &next, bool ahead,
                                                int64_t ktiles)
{
    const enum gemm_tile_variant variant = (enum gemm_tile_variant)V;
    fragments f[2];
    copy_wait<GEMM_TILE_STAGES - 2>();
    __syncthreads();
    load_fragments<V>(f[0], p.smem + gemm_tile_a_base(variant, BN, p.stage),
                      p.smem + gemm_tile_b_base(variant, BN, p.stage), p.a_at0, p.b_at0, 0);
    int64_t kt = 0;
    for (; kt + GEMM_TILE_STAGES - 1 < ktiles; ++kt)
        multiply_ktile<V, BN, edge>(acc, f, p, bc, true, kt + GEMM_TILE_STAGES - 1, kt, ktiles);
    for (; kt < ktiles; ++kt) /* the last STAGES - 1 K tiles: the next tile's first ones */
        multiply_ktile<V, BN, true>(acc, f, p, next, ahead, kt + GEMM_TILE_STAGES - 1 - ktiles, kt,
                                    ktiles);
}

/* The tile of C at `index` in the grid's order: where it starts, and how
 * this thread copies its operands. */
struct c_tile {
    int64_t row0, col0;
    bool edge; /* past m or n, or K not a whole number of K tiles: copies predicated */
    block_copies bc;
};

template <int BN>
static __device__ __forceinline__ c_tile tile_at(int64_t index, const uint16_t *a,
                                                 const uint16_t *b, int64_t m, int64_t n, int64_t k,
                                                 int thread, enum gemm_tile_variant variant)
{
    int64_t tile_m, tile_n;
    gemm_tile_block_tile(index, gemm_tile_tiles_m(m), gemm_tile_tiles_n(n, BN), &tile_m, &tile_n);
    c_tile t;
    t.row0 = tile_m * GEMM_TILE_BM;
    t.col0 = tile_n * BN;
    t.edge = !(t.row0 + GEMM_TILE_BM <= m && t.col0 + BN <= n && k % GEMM_TILE_BK == 0);
    t.bc = {plan_copies<BN>(a, t.row0, m, k, thread), plan_copies<BN>(b, t.col0, n, k, thread), a,
            b, gemm_tile_copy_offset(variant, BN, thread, 0)};
    return t;
}

/* A persistent grid: block b computes tiles b, b + gridDim.x, ... of C in
 * gemm_tile_block_tile's order, the next tile's first K tiles copied in
 * this one's last. pairs: n is even and c aligned to two elements, so
 * neighbours go out in one store. */
template <int V, int BN, typename Out>
__global__ void __launch_bounds__(GEMM_TILE_THREADS_OF(BN), GEMM_TILE_BLOCKS_PER_SM_OF(BN))
    gemm_tile_kernel(Out *c, const uint16_t *a, const uint16_t *b, int64_t m, int64_t n, int64_t k,
                     int pairs)
{
    const enum gemm_tile_variant variant = (enum gemm_tile_variant)V;
    extern __shared__ __align__(128) unsigned char tiles[];
    const int thread = (int)threadIdx.x, warp = thread / 32, lane = thread % 32;
    const int64_t count = gemm_tile_tiles_m(m) * gemm_tile_tiles_n(n, BN),
                  ktiles = gemm_tile_tiles_k(k);
    pipeline p = {(uint32_t)__cvta_generic_to_shared(tiles),
                  gemm_tile_ldmatrix_a(variant, BN, warp, 0, 0, lane),
                  gemm_tile_ldmatrix_b(variant, BN, warp, 0, 0, lane), 0, GEMM_TILE_STAGES - 1};
    /* Copies ahead into the next tile only where its first STAGES - 1 K tiles
     * all fall in this one's last (K of at least STAGES - 1 tiles). */
    const bool ahead = ktiles >= GEMM_TILE_STAGES - 1;
    c_tile t = tile_at<BN>(blockIdx.x, a, b, m, n, k, thread, variant);
    bool filled = false; /* t's first K tiles already copied by the tile before */
    for (int64_t index = blockIdx.x; index < count; index += gridDim.x) {
        const bool last = index + gridDim.x >= count;
        const c_tile next =
            tile_at<BN>(last ? index : index + gridDim.x, a, b, m, n, k, thread, variant);
        if (!filled) {
            if (t.edge)
                fill_prologue<V, BN, true>(p, t.bc, ktiles);
            else
                fill_prologue<V, BN, false>(p, t.bc, ktiles);
        }
        const bool fill_next = ahead && !last;

        warp_acc acc;
#pragma unroll
        for (int mi = 0; mi < GEMM_TILE_MI; ++mi)
#pragma unroll
            for (int nt = 0; nt < 2 * GEMM_TILE_NJ; ++nt)
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    acc[mi][nt][e] = 0.0f;
        if (t.edge)
            multiply<V, BN, true>(acc, p, t.bc, next.bc, fill_next, ktiles);
        else
            multiply<V, BN, false>(acc, p, t.bc, next.bc, fill_next, ktiles);

        /* The accumulators of mma.m16n8k16: c0 c1 at row lane / 4, columns
         * 2 (lane % 4) + 0, 1; c2 c3 eight rows further down. */
        const int64_t warp_row = t.row0 + gemm_tile_warp_m(BN, warp) * GEMM_TILE_WARP_M + lane / 4,
                      warp_col =
                          t.col0 + gemm_tile_warp_n(BN, warp) * GEMM_TILE_WARP_N + 2 * (lane % 4);
#pragma unroll
        for (int mi = 0; mi < GEMM_TILE_MI; ++mi)
#pragma unroll
            for (int half = 0; half < 2; ++half)
#pragma unroll
                for (int nt = 0; nt < 2 * GEMM_TILE_NJ; ++nt)
                    store_c_pair(c, m, n, warp_row + 16 * mi + 8 * half, warp_col + 8 * nt,
                                 acc[mi][nt][2 * half], acc[mi][nt][2 * half + 1], pairs);
        t = next;
        filled = fill_next;
    }
    copy_wait<0>(); /* only empty groups are left; leave none behind */
}

/* ---- launchers ---- */

/* Blocks of gemm_tile_kernel<V, BN, Out> that fit on one SM at once (the
 * persistent grid is this many an SM), asked once a device and kernel: the
 * variants differ in shared memory (padded's rows are longer) and registers,
 * the tiles in both. */
template <int V, int BN, typename Out>
static cudaError_t blocks_per_sm(int device, int bytes, int *per_sm)
{
    static int known[64];
    if (device >= 0 && device < 64 && known[device] > 0) {
        *per_sm = known[device];
        return cudaSuccess;
    }
    const cudaError_t err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        per_sm, gemm_tile_kernel<V, BN, Out>, GEMM_TILE_THREADS_OF(BN), (size_t)bytes);
    if (err != cudaSuccess)
        return err;
    if (*per_sm < 1)
        return cudaErrorInvalidConfiguration;
    if (device >= 0 && device < 64)
        known[device] = *per_sm;
    return cudaSuccess;
}

template <int V, int BN, typename Out>
static cudaError_t launch_tile(Out *c, const uint16_t *a, const uint16_t *b, int64_t m, int64_t n,
                               int64_t k, int pairs, int device, int sms, cudaStream_t stream)
{
    const int bytes = (int)gemm_tile_smem_bytes((enum gemm_tile_variant)V, BN);
    const auto kernel = gemm_tile_kernel<V, BN, Out>;
    int sm80 = 0; /* this GPU runs the kernel's sm_80 code (else a trap) */
    cudaError_t err = bf_kernel_built_for((const void *)kernel, 80, &sm80);
    if (err == cudaSuccess && !sm80)
        return cudaErrorNoKernelImageForDevice;
    /* More than 48 KiB of dynamic shared memory must be asked for. */
    if (err == cudaSuccess)
        err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    int per_sm = 0;
    if (err == cudaSuccess)
        err = blocks_per_sm<V, BN, Out>(device, bytes, &per_sm);
    if (err != cudaSuccess)
        return err;
    const int64_t tiles = gemm_tile_tiles_m(m) * gemm_tile_tiles_n(n, BN),
                  resident = (int64_t)sms * per_sm;
    const unsigned blocks = (unsigned)(tiles < resident ? tiles : resident);
    kernel<<<blocks, GEMM_TILE_THREADS_OF(BN), bytes, stream>>>(c, a, b, m, n, k, pairs);
    return cudaGetLastError();
}

/* The tile by C's shape on this GPU (gemm_tile_bn), then its kernel. */
template <int V, typename Out>
static cudaError_t launch_variant(Out *c, const uint16_t *a, const uint16_t *b, int64_t m,
                                  int64_t n, int64_t k, int pairs, cudaStream_t stream)
{
    int device = 0, sms = 0, block_shared = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (err == cudaSuccess)
        err =
            cudaDeviceGetAttribute(&block_shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    if (err != cudaSuccess)
        return err;
    switch (gemm_tile_bn_fitting((enum gemm_tile_variant)V, m, n, sms, block_shared)) {
    case GEMM_TILE_BN:
        return launch_tile<V, GEMM_TILE_BN, Out>(c, a, b, m, n, k, pairs, device, sms, stream);
    case GEMM_TILE_BN_NARROW:
        return launch_tile<V, GEMM_TILE_BN_NARROW, Out>(c, a, b, m, n, k, pairs, device, sms,
                                                        stream);
    default:
        return cudaErrorNoKernelImageForDevice; /* its stages need more shared memory */
    }
}

template <typename Out>
static cudaError_t launch(enum gemm_tile_variant variant, Out *c, const uint16_t *a,
                          const uint16_t *b, int64_t m, int64_t n, int64_t k, cudaStream_t stream)
{
    if (gemm_tile_launch_refusal(variant, c, a, b, m, n, k) != NULL)
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

/* The mma.sync variant runs on `device`: its code there is sm_80's (a build
 * for sm_75 alone, or a GPU below sm_80, has only the trap) and its narrow
 * tile's stages fit a block's shared memory. */
static cudaError_t mma_sync_here(enum gemm_tile_variant variant, int device)
{
    int current = 0, block_shared = 0, sm80 = 0;
    cudaError_t err = cudaGetDevice(&current);
    if (err == cudaSuccess && current != device)
        err = cudaSetDevice(device);
    if (err == cudaSuccess)
        err = bf_kernel_built_for(
            (const void *)gemm_tile_kernel<GEMM_TILE_SWIZZLED, GEMM_TILE_BN_NARROW, float>, 80,
            &sm80);
    if (current != device)
        cudaSetDevice(current);
    if (err == cudaSuccess)
        err =
            cudaDeviceGetAttribute(&block_shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    if (err != cudaSuccess)
        return err;
    return sm80 && gemm_tile_bn_fitting(variant, 1, 1, 1, block_shared) != 0
               ? cudaSuccess
               : cudaErrorNoKernelImageForDevice;
}

extern "C" cudaError_t gemm_tile_supported(enum gemm_tile_variant variant, int device)
{
    if ((unsigned)variant >= GEMM_TILE_VARIANTS)
        return cudaErrorInvalidValue;
    if (variant < GEMM_TILE_MMA_SYNC_VARIANTS)
        return device < 0 ? cudaSuccess : mma_sync_here(variant, device);
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
