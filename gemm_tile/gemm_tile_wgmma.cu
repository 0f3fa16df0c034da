/* Tensor-core GEMM on Hopper (sm_90a), C = A * B (fp16 in, fp32
 * accumulate): the tensor memory accelerator (TMA) copies tiles of A and B
 * into a 4-stage (176 and 168 tiles: 5, middle and 96 tiles: 6, narrow
 * and thin tiles: 8) ring of shared memory, writing them already swizzled, and
 * wgmma.mma_async multiplies them straight from there. The four variants
 * are one template, gemm_tile_wgmma_kernel: they differ only in the swizzle
 * mode, which sets the tensor maps' boxes and the descriptors
 * (gemm_tile_wgmma_layout.h).
 *
 * A block is 3 warpgroups and stays on its SM (a persistent grid, one block
 * an SM), taking 128 x 256 tiles of C in grouped order (or 128 x 176, 128 x
 * 168, 128 x 128, 128 x 96 or 128 x 64 tiles where those fill the SMs
 * better: gemm_tile_wgmma_bn; 128 x 32 where even the 64-wide ones would
 * leave half the SMs idle: gemm_tile_wgmma_thin). Wide, 176, 168 and middle
 * tiles come in clusters of 2 on tile rows one above the other: they share
 * the B tile, and each loads half of it (88 rows of 168:
 * gemm_tile_wgmma_b_share), which TMA writes into both (multicast); thin,
 * narrow and 96 ones run alone. Other cluster shapes (2 x 2, or tiles side by side
 * sharing A) are settings of gemm_tile_wgmma_layout.h, for a probe to
 * compare. Warpgroup 0 produces: one thread waits until a stage is free in
 * every block of the cluster, tells the stage's "full" mbarrier how many
 * bytes to expect and issues TMA copies for its shares of A (128 rows x 64
 * of K) and of B (256, 176, 168, 128, 96, 64 or 32 columns x 64 of K).
 * Warpgroups 1 and 2 consume: each waits for a full stage, issues 4
 * wgmma.m64n256k16 (64 rows of C each, 128 fp32 accumulators a thread;
 * m64n176k16 and 88 in the 176 tile, m64n168k16 and 84 in the 168 one,
 * m64n128k16 and 64 in the middle one, m64n96k16 and 48 in the 96 one,
 * m64n64k16 and 32 in the narrow one, m64n32k16 and 16 in the thin one), and
 * frees the stage it read before (in every block of the cluster) once the
 * wgmma that read it completed, one batch left in flight. After a tile's
 * last K step each writes its 64 x 256 (or 128) of C into swizzled shared
 * buffers that TMA stores (the thin, narrow, 96, 168 and 176 tiles' C goes
 * straight from registers: gemm_tile_wgmma_staged), while the producer
 * already fills the stages with the next tile. The producer gives registers
 * back (setmaxnreg) so that the consumers can hold 232 each.
 *
 * Shapes are what TMA makes easy: a box past the edge of A or B (M, N or K)
 * lands as zeros, and TMA's stores are clipped at C's edges, so every block
 * runs the same code. Where C's rows are not 16-byte multiples apart (TMA's
 * rule) each thread stores its pairs itself, predicated at the edges. What
 * the public kernels that beat cuBLAS do, and which of it this one does:
 * docs/notes/gemm_tile/. Compile with
 * -gencode=arch=compute_90a,code=sm_90a. */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include <cuda.h>
#include <cuda_fp16.h>
#include <cudaTypedefs.h> /* PFN_cuTensorMapEncodeTiled_v12000 */

#include "gemm_tile/gemm_tile.h"
#include "gemm_tile/gemm_tile_hopper.cuh"
#include "gemm_tile/gemm_tile_store.cuh"
#include "gemm_tile/gemm_tile_wgmma.h"
#include "gemm_tile/gemm_tile_wgmma_layout.h"

/* A probe's timeline hook (probes/timeline.cu defines it to stamp the
 * global timer at these points); nothing in the library. */
#ifndef GEMM_TILE_WGMMA_MARK
#define GEMM_TILE_WGMMA_MARK(point) ((void)0)
#endif

/* Registers a thread after setmaxnreg: the producer gives back down to 40,
 * the consumers take 232 (128 x 40 + 256 x 232 <= 64 Ki registers an SM). */
#define PRODUCER_REGS 40
#define CONSUMER_REGS 232

/* Where the ring stands: the stage in use and the parity of its barriers'
 * current phase, which flips each time the ring wraps. */
struct ring {
    int stage;
    uint32_t phase;
};

template <int BN> static __device__ __forceinline__ void ring_next(ring &r)
{
    if (++r.stage == gemm_tile_wgmma_stages(BN)) {
        r.stage = 0;
        r.phase ^= 1u;
    }
}

/* The block's barriers: full[s] (the producer's arrival, and the bytes TMA
 * writes into the stage: this block's A, and every block's share of B) and
 * empty[s] (one arrival per consumer warp of every block of the cluster:
 * each block's producer writes B into them all). */
struct barriers {
    uint32_t full, empty;
};

static __device__ __forceinline__ uint32_t bar_at(uint32_t base, int stage)
{
    return base + 8u * (uint32_t)stage;
}

/* What a block works on: its tiles (of C's columns from col_first on),
 * and where it stands in its cluster (rank, and its row rm and column rn
 * there: rank = rm + CM rn). */
struct work {
    int64_t tiles_m, tiles_n, cluster_tiles, col_first;
    int kfirst, ktiles, rank, rm, rn, part, cluster, clusters;
    uint32_t stage_tx; /* bytes a stage receives (gemm_tile_wgmma_stage_tx) */
};

/* The producer's thread: for each of the block's tiles and each K tile,
 * wait until the stage is free in every block of the cluster, then fill it:
 * one TMA box a slab of this block's rows of A and of B, each written into
 * every block that shares the tile (its row of the cluster for A, its
 * column for B). */
template <int V, int BN, int CM, int CN>
static __device__ __forceinline__ void produce(const CUtensorMap *map_a, const CUtensorMap *map_b,
                                               uint32_t smem, barriers bars, const work &w)
{
    const enum gemm_tile_variant variant = (enum gemm_tile_variant)V;
    const int slabs = gemm_tile_wgmma_slabs(variant), per_slab = 8 / slabs;
    /* this block's share of A and of B, and the blocks that take them */
    const int a_row0 = GEMM_TILE_WGMMA_BM / CN * w.rn,
              b_row0 = gemm_tile_wgmma_b_first(BN, CM, w.rm);
    const uint16_t a_peers = (uint16_t)gemm_tile_wgmma_a_peers(CM, CN, w.rm),
                   b_peers = (uint16_t)gemm_tile_wgmma_b_peers(CM, w.rn);
    ring r = {0, 0};
    for (int64_t t = w.cluster; t < w.cluster_tiles; t += w.clusters) {
        int64_t tile_m, tile_n;
        gemm_tile_wgmma_tile(t, w.rm, w.rn, CM, CN, w.tiles_m, w.tiles_n, &tile_m, &tile_n);
        const int row0 = (int)(tile_m * GEMM_TILE_WGMMA_BM) + a_row0,
                  col0 = (int)(w.col_first + tile_n * BN) + b_row0;
        for (int kt = 0; kt < w.ktiles; ++kt) {
            mbar_wait(bar_at(bars.empty, r.stage), r.phase ^ 1u);
            const uint32_t full = bar_at(bars.full, r.stage);
            mbar_arrive_expect_tx(full, w.stage_tx);
            const uint32_t a = smem + gemm_tile_wgmma_a_base(r.stage, BN),
                           b = smem + gemm_tile_wgmma_b_base(r.stage, BN);
#pragma unroll
            for (int s = 0; s < slabs; ++s) {
                const int k0 = (w.kfirst + kt) * GEMM_TILE_WGMMA_BK + 8 * per_slab * s,
                          chunk = per_slab * s;
                const uint32_t a_at = a + gemm_tile_wgmma_offset(variant, GEMM_TILE_WGMMA_BM,
                                                                 a_row0, chunk),
                               b_at = b + gemm_tile_wgmma_offset(variant, BN, b_row0, chunk);
                if constexpr (CN == 1)
                    tma_load_2d(a_at, map_a, k0, row0, full);
                else
                    tma_load_2d_multicast(a_at, map_a, k0, row0, full, a_peers);
                if constexpr (CM == 1)
                    tma_load_2d(b_at, map_b, k0, col0, full);
                else
                    tma_load_2d_multicast(b_at, map_b, k0, col0, full, b_peers);
            }
            if (kt == 0)
                GEMM_TILE_WGMMA_MARK(2);
            ring_next<BN>(r);
        }
    }
}

/* Frees a stage: in every block of the cluster, for this warp. */
template <int CLUSTER> static __device__ __forceinline__ void release(barriers bars, int stage)
{
    const uint32_t empty = bar_at(bars.empty, stage);
    if constexpr (CLUSTER == 1) {
        mbar_arrive(empty);
    } else {
#pragma unroll
        for (int rank = 0; rank < CLUSTER; ++rank)
            mbar_arrive_cluster(cluster_map(empty, (uint32_t)rank));
    }
}

/* acc = rows row0 .. + 63 of A's tile times B's, K tile by K tile: wait for
 * a full stage, issue its 4 wgmma, and free the stage before it once the
 * wgmma that read it are done (one batch left in flight). */
template <int V, int BN, int CLUSTER>
static __device__ __forceinline__ void multiply(float (&acc)[BN / 2], uint32_t smem, barriers bars,
                                                ring &r, int ktiles, int row0, int lane)
{
    int prev = 0;
    for (int kt = 0; kt < ktiles; ++kt) {
        mbar_wait(bar_at(bars.full, r.stage), r.phase);
        if (kt == 0)
            GEMM_TILE_WGMMA_MARK(3);
        const uint32_t a = smem + gemm_tile_wgmma_a_base(r.stage, BN),
                       b = smem + gemm_tile_wgmma_b_base(r.stage, BN);
        wgmma_fence();
        wgmma_ktile<V, BN>(acc, a, GEMM_TILE_WGMMA_BM, row0, b, kt > 0);
        wgmma_commit();
        if (kt > 0) { /* the previous K tile's wgmma are done: its stage is free */
            wgmma_wait<1>();
            if (lane == 0)
                release<CLUSTER>(bars, prev);
        }
        prev = r.stage;
        ring_next<BN>(r);
    }
    wgmma_wait<0>();
#pragma unroll
    for (int i = 0; i < BN / 2; ++i)
        wgmma_fence_operand(acc[i]);
    GEMM_TILE_WGMMA_MARK(4);
    if (lane == 0)
        release<CLUSTER>(bars, prev);
}

static __device__ __forceinline__ uint32_t pack_pair(float v0, float v1)
{
    const __half2 h = __floats2half2_rn(v0, v1);
    return *reinterpret_cast<const uint32_t *>(&h);
}

/* The epilogue through shared memory: 128 bytes of each of the consumer's 64
 * rows at a time (gemm_tile_wgmma_layout.h) into a swizzled buffer, stored by
 * TMA (clipped at C's edges) while the next box is written into the other
 * buffer. Thread t's pairs are d[4 j], d[4 j + 1] at row t / 4 % 8 + 16 (t /
 * 32) and d[4 j + 2, 3] eight rows down, columns 8 j + 2 (t % 4). */
template <typename Out, int BN>
static __device__ __forceinline__ void
store_staged(const float (&acc)[BN / 2], const CUtensorMap *map_c, uint32_t smem, int consumer,
             int64_t row0, int64_t col0, int thread)
{
    constexpr int tiles = 128 / (8 * (int)sizeof(Out)); /* n8 tiles a box: 4 fp32, 8 fp16 */
    const int row = 16 * (thread / 32) + thread % 32 / 4, odd = row % 2;
    const uint32_t byte = 2u * sizeof(Out) * (uint32_t)(thread % 4);
#pragma unroll
    for (int box = 0; box < BN / 8 / tiles; ++box) {
        const uint32_t buffer = smem + gemm_tile_wgmma_c_base(consumer, box % 2);
        if (thread == 0)
            bulk_wait_read<1>(); /* the store two boxes ago has read this buffer */
        named_barrier(1 + consumer, 128);
        if constexpr (sizeof(Out) == 4) {
#pragma unroll
            for (int step = 0; step < 2 * tiles; ++step) {
                int j, half; /* this thread's; the even rows' are step / 2, step % 2 */
                gemm_tile_wgmma_c_pair(step, odd, &j, &half);
                const int j0 = step / 2, j1 = step / 2 ^ 2, e0 = 2 * (step % 2),
                          e1 = 2 * (step % 2 ^ 1); /* both choices, from registers */
                const float x = odd ? acc[4 * (box * tiles + j1) + e1]
                                    : acc[4 * (box * tiles + j0) + e0],
                            y = odd ? acc[4 * (box * tiles + j1) + e1 + 1]
                                    : acc[4 * (box * tiles + j0) + e0 + 1];
                asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(
                                 buffer + gemm_tile_wgmma_c_offset(row + 8 * half,
                                                                   byte + 32u * (uint32_t)j)),
                             "f"(x), "f"(y));
            }
        } else {
#pragma unroll
            for (int j = 0; j < tiles; ++j) {
                const float *d = &acc[4 * (box * tiles + j)];
                const uint32_t at = byte + 16u * (uint32_t)j;
                asm volatile(
                    "st.shared.b32 [%0], %1;\n" ::"r"(buffer + gemm_tile_wgmma_c_offset(row, at)),
                    "r"(pack_pair(d[0], d[1])));
                asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(
                                 buffer + gemm_tile_wgmma_c_offset(row + 8, at)),
                             "r"(pack_pair(d[2], d[3])));
            }
        }
        fence_proxy_async();
        named_barrier(1 + consumer, 128);
        if (thread == 0) {
            tma_store_2d(map_c, (int)(col0 + box * 8 * tiles), (int)row0, buffer);
            bulk_commit();
        }
    }
}

/* The epilogue without TMA (C misaligned for it): each thread stores its
 * pairs itself, without predicates where the whole tile is inside C; fp16
 * pairs four at a time where C's rows are on 8 bytes (store_quad: whole
 * sectors). -D GEMM_TILE_WGMMA_QUADS=0 stores them a pair at a time (a
 * probe's before). */
#ifndef GEMM_TILE_WGMMA_QUADS
#define GEMM_TILE_WGMMA_QUADS 1
#endif
template <typename Out, int BN>
static __device__ __forceinline__ void store_direct(const float (&acc)[BN / 2], Out *c, int64_t m,
                                                    int64_t n, int pairs, int64_t row0,
                                                    int64_t col0, bool inside, int thread)
{
    static_assert(BN % 8 == 0, "tiles start on 8 columns: store_quad's 8-byte stores");
    const int64_t row = row0 + 16 * (thread / 32) + thread % 32 / 4, col = col0 + 2 * (thread % 4);
    if (inside) {
        Out *out = c + row * n + col;
        if constexpr (sizeof(Out) == 2 && GEMM_TILE_WGMMA_QUADS) {
            if (pairs == 2) { /* fp16 rows on 8 bytes: whole sectors, four at a time */
#pragma unroll
                for (int j = 0; j + 1 < BN / 8; j += 2) {
                    store_quad(out + 8 * j, thread, acc[4 * j], acc[4 * j + 1], acc[4 * j + 4],
                               acc[4 * j + 5]);
                    store_quad(out + 8 * n + 8 * j, thread, acc[4 * j + 2], acc[4 * j + 3],
                               acc[4 * j + 6], acc[4 * j + 7]);
                }
                if constexpr (BN / 8 % 2 != 0) { /* the 168 tile's last n8 tile: pairs */
                    constexpr int j = BN / 8 - 1;
                    store_pair(out + 8 * j, acc[4 * j], acc[4 * j + 1]);
                    store_pair(out + 8 * n + 8 * j, acc[4 * j + 2], acc[4 * j + 3]);
                }
                return;
            }
        }
#pragma unroll
        for (int j = 0; j < BN / 8; ++j) {
            store_pair(out + 8 * j, acc[4 * j], acc[4 * j + 1]);
            store_pair(out + 8 * n + 8 * j, acc[4 * j + 2], acc[4 * j + 3]);
        }
        return;
    }
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
        store_c_pair(c, m, n, row, col + 8 * j, acc[4 * j], acc[4 * j + 1], pairs);
        store_c_pair(c, m, n, row + 8, col + 8 * j, acc[4 * j + 2], acc[4 * j + 3], pairs);
    }
}

/* Split K's epilogue (gemm_tile_wgmma_layout.h, "split K"), in a cluster
 * of two: this block's partials of the other block's half of the n8 tiles
 * pushed into that block's buffer (st.async, completing on its mbarrier),
 * then the other block's partials of this block's half, once in, added to
 * its own and stored. `phase` flips every tile. */
template <typename Out, int BN>
static __device__ __forceinline__ void store_split(const float (&acc)[BN / 2], Out *c, int64_t m,
                                                   int64_t n, int pairs, int64_t row0, int64_t col0,
                                                   bool inside, int thread, int consumer, int part,
                                                   uint32_t smem, uint32_t &phase)
{
    static_assert(BN == GEMM_TILE_WGMMA_BN_NARROW, "split K takes the narrow tile");
    constexpr int HALF = BN / 16; /* n8 tiles a block stores: float4s a thread */
    const uint32_t arrived = smem + gemm_tile_wgmma_split_arrived(consumer),
                   drained = smem + gemm_tile_wgmma_split_drained(consumer);
    const uint32_t other = (uint32_t)(part ^ 1);
    /* The other block read what this one pushed last tile: its buffer is free. */
    mbar_wait(drained, phase ^ 1u);
    if (thread == 0) /* this block's buffer: the other block's bytes, this phase */
        mbar_arrive_expect_tx(arrived, GEMM_TILE_WGMMA_SPLIT_BYTES);
    const uint32_t to_bar = cluster_map(arrived, other);
#pragma unroll
    for (int i = 0; i < HALF; ++i) { /* n8 tile (part ^ 1) HALF + i, the other block's */
        /* Values chosen, not a pointer: acc stays in registers, so ptxas
         * need not serialize the wgmma that write it. */
        const int give = 4 * (HALF + i), keep = 4 * i;
        st_async_f4(cluster_map(smem + gemm_tile_wgmma_partial(consumer, i, thread), other),
                    part == 0 ? acc[give] : acc[keep], part == 0 ? acc[give + 1] : acc[keep + 1],
                    part == 0 ? acc[give + 2] : acc[keep + 2],
                    part == 0 ? acc[give + 3] : acc[keep + 3], to_bar);
    }
    mbar_wait(arrived, phase); /* the other block's partials of this block's half */
    const int64_t row = row0 + 16 * (thread / 32) + thread % 32 / 4, col = col0 + 2 * (thread % 4);
#pragma unroll
    for (int i = 0; i < HALF; ++i) {
        const int q = part * HALF + i;
        const float4 v = ld_shared_f4(smem + gemm_tile_wgmma_partial(consumer, i, thread));
        const int lo = 4 * i, hi = 4 * (HALF + i);
        /* two terms: the same sum in either order, every run */
        const float s0 = (part == 0 ? acc[lo] : acc[hi]) + v.x,
                    s1 = (part == 0 ? acc[lo + 1] : acc[hi + 1]) + v.y,
                    s2 = (part == 0 ? acc[lo + 2] : acc[hi + 2]) + v.z,
                    s3 = (part == 0 ? acc[lo + 3] : acc[hi + 3]) + v.w;
        if (inside) {
            Out *out = c + row * n + col + 8 * q;
            store_pair(out, s0, s1);
            store_pair(out + 8 * n, s2, s3);
        } else {
            store_c_pair(c, m, n, row, col + 8 * q, s0, s1, pairs);
            store_c_pair(c, m, n, row + 8, col + 8 * q, s2, s3, pairs);
        }
    }
    /* The loads' values are used: the buffer may take the next tile's. */
    __syncwarp();
    if (thread % 32 == 0)
        mbar_arrive_cluster(cluster_map(drained, other));
    phase ^= 1u;
}

/* A consumer warpgroup (0 or 1): rows 64 consumer .. + 63 of each of the
 * block's tiles, multiplied and stored. */
template <int V, int BN, int CM, int CN, typename Out, bool staged, int SPLIT>
static __device__ __forceinline__ void consume(const CUtensorMap *map_c, Out *c, int64_t m,
                                               int64_t n, int pairs, uint32_t smem, barriers bars,
                                               const work &w, int consumer)
{
    constexpr int CLUSTER = CM * CN;
    const int thread = (int)threadIdx.x % 128;
    float acc[BN / 2];
#pragma unroll
    for (int i = 0; i < BN / 2; ++i)
        acc[i] = 0.0f;
    ring r = {0, 0};
    uint32_t split_phase = 0;
    for (int64_t t = w.cluster; t < w.cluster_tiles; t += w.clusters) {
        int64_t tile_m, tile_n;
        gemm_tile_wgmma_tile(t, w.rm, w.rn, CM, CN, w.tiles_m, w.tiles_n, &tile_m, &tile_n);
        multiply<V, BN, CLUSTER>(acc, smem, bars, r, w.ktiles, GEMM_TILE_WGMMA_M * consumer,
                                 thread % 32);
        if (CLUSTER > 1 && t + w.clusters >= w.cluster_tiles)
            cluster_arrive(); /* the last stage freed: the others may end once C is out */
        const int64_t row0 = tile_m * GEMM_TILE_WGMMA_BM + GEMM_TILE_WGMMA_M * consumer,
                      col0 = w.col_first + tile_n * BN;
        const bool inside = pairs && row0 + GEMM_TILE_WGMMA_M <= m && col0 + BN <= n;
        if constexpr (SPLIT > 1)
            store_split<Out, BN>(acc, c, m, n, pairs, row0, col0, inside, thread, consumer, w.part,
                                 smem, split_phase);
        else if (staged)
            store_staged<Out, BN>(acc, map_c, smem, consumer, row0, col0, thread);
        else
            store_direct<Out, BN>(acc, c, m, n, pairs, row0, col0, inside, thread);
        GEMM_TILE_WGMMA_MARK(5);
    }
    if (CLUSTER > 1 && w.cluster >= w.cluster_tiles)
        cluster_arrive(); /* no tile (not launched so): nothing to wait for */
    if (SPLIT > 1)
        cluster_arrive(); /* the last reads of the other blocks' partials done */
    if (staged && thread == 0)
        bulk_wait_read<0>(); /* the buffers read before the block ends (the grid's end flushes C) */
    GEMM_TILE_WGMMA_MARK(6);
}

/* CM x CN: the cluster's shape (gemm_tile_wgmma_cm). map_c: C as TMA
 * stores it (used where `staged`). SPLIT: blocks a tile's K is split over
 * (the narrow tile's clusters: gemm_tile_wgmma_split). The launch takes
 * C's columns col_first .. col_first + cols - 1 (gemm_tile_wgmma_first_columns). */
template <int V, int BN, int CM, int CN, typename Out, bool staged, int SPLIT>
__global__ void __launch_bounds__(GEMM_TILE_WGMMA_THREADS, 1)
    gemm_tile_wgmma_kernel(const __grid_constant__ CUtensorMap map_a,
                           const __grid_constant__ CUtensorMap map_b,
                           const __grid_constant__ CUtensorMap map_c, Out *c, int64_t m, int64_t n,
                           int64_t k, int64_t col_first, int64_t cols, int pairs)
{
    constexpr int CLUSTER = CM * CN, LAUNCH = CLUSTER * SPLIT;
    static_assert(SPLIT == 1 || (SPLIT == 2 && CLUSTER == 1),
                  "split K: clusters of 2 of the tiles that run alone");
    GEMM_TILE_WGMMA_MARK(0);
    extern __shared__ __align__(1024) unsigned char dynamic_smem[];
    /* TMA swizzles absolute addresses: the stages start on 1024 bytes. */
    const uint32_t smem = ((uint32_t)__cvta_generic_to_shared(dynamic_smem) + 1023u) & ~1023u;
    const barriers bars = {smem + GEMM_TILE_WGMMA_BARRIERS,
                           smem + GEMM_TILE_WGMMA_BARRIERS + 8u * GEMM_TILE_WGMMA_MAX_STAGES};
    if (threadIdx.x == 0) {
        tma_prefetch_map(&map_a);
        tma_prefetch_map(&map_b);
        if (staged)
            tma_prefetch_map(&map_c);
        for (int s = 0; s < gemm_tile_wgmma_stages(BN); ++s) {
            mbar_init(bar_at(bars.full, s), 1);
            mbar_init(bar_at(bars.empty, s), 4 * GEMM_TILE_WGMMA_CONSUMERS * CLUSTER);
        }
        if (SPLIT > 1) /* each consumer's: its expect_tx; the other block's 4 warps */
            for (int consumer = 0; consumer < GEMM_TILE_WGMMA_CONSUMERS; ++consumer) {
                mbar_init(smem + gemm_tile_wgmma_split_arrived(consumer), 1);
                mbar_init(smem + gemm_tile_wgmma_split_drained(consumer), 4);
            }
        mbar_init_fence();
    }
    /* Every block's barriers are ready before any block's TMA or arrivals
     * reach them: each thread arrives here and waits once its registers are
     * set, just before its first use of a barrier. */
    if constexpr (LAUNCH == 1)
        __syncthreads();
    else
        cluster_arrive();
    work w;
    w.tiles_m = gemm_tile_wgmma_tiles_m(m);
    w.tiles_n = gemm_tile_wgmma_tiles_n(cols, BN);
    w.col_first = col_first;
    w.cluster_tiles = gemm_tile_wgmma_cluster_tiles(w.tiles_m, w.tiles_n, CM, CN);
    w.stage_tx = gemm_tile_wgmma_stage_tx(m, BN, CM, CN);
    w.rank = CLUSTER == 1 ? 0 : (int)cluster_rank();
    w.part = SPLIT == 1 ? 0 : (int)cluster_rank();
    gemm_tile_wgmma_split_ktiles(gemm_tile_wgmma_tiles_k(k), SPLIT, w.part, &w.kfirst, &w.ktiles);
    w.rm = CM == 1 ? 0 : w.rank % CM;
    w.rn = CN == 1 ? 0 : w.rank / CM;
    w.cluster = (int)blockIdx.x / LAUNCH;
    w.clusters = (int)gridDim.x / LAUNCH;
    const int warpgroup = (int)threadIdx.x / 128;
    if (warpgroup == 0) {
        setmaxnreg_dec<PRODUCER_REGS>();
        if constexpr (LAUNCH > 1)
            cluster_wait();
        GEMM_TILE_WGMMA_MARK(1);
        if (threadIdx.x == 0)
            produce<V, BN, CM, CN>(&map_a, &map_b, smem, bars, w);
        if constexpr (LAUNCH > 1)
            cluster_arrive(); /* its last copy into the other blocks issued */
    } else {
        setmaxnreg_inc<CONSUMER_REGS>();
        if constexpr (LAUNCH > 1)
            cluster_wait();
        consume<V, BN, CM, CN, Out, staged, SPLIT>(&map_c, c, m, n, pairs, smem, bars, w,
                                                   warpgroup - 1);
    }
    /* No block leaves while another of its cluster may still arrive on its
     * barriers or read its partials: every thread arrived after its last
     * arrival on another block's, and its last read of one. */
    if constexpr (LAUNCH > 1)
        cluster_wait();
    GEMM_TILE_WGMMA_MARK(7);
}

/* ---- launcher ---- */

/* cuTensorMapEncodeTiled, from the driver through the runtime: the library
 * links no driver library, so that it links (and CI runs) without one. */
static PFN_cuTensorMapEncodeTiled_v12000 encode_tiled(void)
{
    static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
        void *p = NULL;
        cudaDriverEntryPointQueryResult found;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault,
                                             &found) != cudaSuccess ||
            found != cudaDriverEntryPointSuccess)
            p = NULL;
        return (PFN_cuTensorMapEncodeTiled_v12000)p;
    }();
    return fn;
}

/* A tensor map: `rows` rows of `cols` elements of `type`, `stride` bytes
 * apart, read or written in boxes of box_cols x box_rows, swizzled as
 * `swizzle`; out-of-bounds elements read as zeros and are not written. */
static cudaError_t make_map(CUtensorMap *map, CUtensorMapDataType type, const void *base,
                            int64_t rows, int64_t cols, int64_t stride, uint32_t box_cols,
                            uint32_t box_rows, CUtensorMapSwizzle swizzle)
{
    PFN_cuTensorMapEncodeTiled_v12000 encode = encode_tiled();
    if (encode == NULL)
        return cudaErrorNoKernelImageForDevice; /* a driver without TMA */
    const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows},
                     strides[1] = {(cuuint64_t)stride};
    const cuuint32_t box[2] = {box_cols, box_rows}, steps[2] = {1, 1};
    const CUresult res =
        encode(map, type, 2, const_cast<void *>(base), dims, strides, box, steps,
               CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return res == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

/* An operand's map: `rows` rows of k fp16 (A row-major, B's columns) in
 * boxes of one slab (W / 2 of K) by box_rows rows, swizzled as the variant. */
static cudaError_t make_operand_map(CUtensorMap *map, enum gemm_tile_variant variant,
                                    const uint16_t *base, int64_t rows, int64_t k, int box_rows)
{
    static const CUtensorMapSwizzle swizzle[4] = {
        CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_SWIZZLE_32B, CU_TENSOR_MAP_SWIZZLE_64B,
        CU_TENSOR_MAP_SWIZZLE_128B};
    return make_map(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, base, rows, k, 2 * k,
                    gemm_tile_wgmma_slab_bytes(variant) / 2, (uint32_t)box_rows,
                    swizzle[gemm_tile_wgmma_swizzle_bits(variant)]);
}

/* C's map for the epilogue: boxes of 128 bytes by 64 rows, 128-byte swizzled. */
template <typename Out>
static cudaError_t make_c_map(CUtensorMap *map, Out *c, int64_t m, int64_t n)
{
    return make_map(
        map, sizeof(Out) == 4 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
        c, m, n, n * (int64_t)sizeof(Out), 128 / sizeof(Out), GEMM_TILE_WGMMA_M,
        CU_TENSOR_MAP_SWIZZLE_128B);
}

/* The kernel's launch: `blocks` blocks in clusters of `cluster`. */
struct launch_config {
    cudaLaunchConfig_t config;
    cudaLaunchAttribute cluster;
};

/* Blocks that run alone (the thin, narrow and 96 tiles; the middle one at one
 * tile row) are launched plainly, not as clusters of 1: 3-4% faster at
 * 1024^3 on the H200 (docs/notes/gemm_tile/small-sizes.md). -D
 * GEMM_TILE_WGMMA_PLAIN_LAUNCH=0 keeps the cluster attribute (a probe's
 * before). */
#ifndef GEMM_TILE_WGMMA_PLAIN_LAUNCH
#define GEMM_TILE_WGMMA_PLAIN_LAUNCH 1
#endif
static void configure(launch_config *l, unsigned blocks, int cluster, cudaStream_t stream)
{
    *l = launch_config{};
    l->cluster.id = cudaLaunchAttributeClusterDimension;
    l->cluster.val.clusterDim.x = (unsigned)cluster;
    l->cluster.val.clusterDim.y = 1;
    l->cluster.val.clusterDim.z = 1;
    l->config.gridDim = dim3(blocks);
    l->config.blockDim = dim3(GEMM_TILE_WGMMA_THREADS);
    l->config.dynamicSmemBytes = GEMM_TILE_WGMMA_SMEM_BYTES;
    l->config.stream = stream;
    l->config.attrs = &l->cluster;
    l->config.numAttrs = 1;
}

/* How many clusters of the kernel fit on the GPU at once (the persistent
 * grid's size), asked once a device and cluster size (every variant takes
 * one block an SM and the same shared memory). */
template <int CLUSTER, typename Kernel>
static cudaError_t resident_clusters(Kernel kernel, int device, int sms, int *clusters)
{
    static int known[64];
    if (device >= 0 && device < 64 && known[device] > 0) {
        *clusters = known[device];
        return cudaSuccess;
    }
    launch_config l;
    configure(&l, (unsigned)(sms / CLUSTER * CLUSTER), CLUSTER, 0);
    cudaError_t err = cudaOccupancyMaxActiveClusters(clusters, kernel, &l.config);
    if (err != cudaSuccess)
        return err;
    if (*clusters < 1)
        return cudaErrorInvalidConfiguration;
    if (device >= 0 && device < 64)
        known[device] = *clusters;
    return cudaSuccess;
}

/* Where a launch stands: C's columns col_first .. + cols - 1, on `sms` SMs
 * of `device`. */
struct launch_at {
    int64_t col_first, cols;
    int device, sms;
    cudaStream_t stream;
};

template <int V, int BN, int CM, int CN, typename Out, bool staged, int SPLIT>
static cudaError_t launch_variant(Out *c, const uint16_t *a, const uint16_t *b, int64_t m,
                                  int64_t n, int64_t k, const launch_at &at)
{
    const enum gemm_tile_variant variant = (enum gemm_tile_variant)V;
    CUtensorMap map_a, map_b, map_c;
    memset(&map_c, 0, sizeof map_c); /* unused unless staged */
    cudaError_t err = make_operand_map(&map_a, variant, a, m, k, gemm_tile_wgmma_a_rows_of(m, CN));
    if (err == cudaSuccess)
        err = make_operand_map(&map_b, variant, b, n, k, gemm_tile_wgmma_b_share(BN, CM));
    if (err == cudaSuccess && staged)
        err = make_c_map(&map_c, c, m, n);
    constexpr int CLUSTER = CM * CN * SPLIT;
    const auto kernel = gemm_tile_wgmma_kernel<V, BN, CM, CN, Out, staged, SPLIT>;
    if (err == cudaSuccess)
        err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int)GEMM_TILE_WGMMA_SMEM_BYTES);
    int clusters = 0;
    if (err == cudaSuccess)
        err = resident_clusters<CLUSTER>(kernel, at.device, at.sms, &clusters);
    if (err != cudaSuccess)
        return err;
    const int64_t tiles = gemm_tile_wgmma_cluster_tiles(
        gemm_tile_wgmma_tiles_m(m), gemm_tile_wgmma_tiles_n(at.cols, BN), CM, CN);
    launch_config l;
    configure(&l, (unsigned)((tiles < clusters ? tiles : clusters) * CLUSTER), CLUSTER, at.stream);
    if (CLUSTER == 1 && GEMM_TILE_WGMMA_PLAIN_LAUNCH)
        l.config.numAttrs = 0; /* blocks alone: a plain launch, not one of clusters of 1 */
    /* 1: C's rows on two elements (pairs stored at once); 2: also on 8
     * bytes (fp16 quads: store_quad) */
    const int pairs = n % 2 != 0 || (uintptr_t)c % (2 * sizeof(Out)) != 0 ? 0
                      : n * sizeof(Out) % 8 == 0 && (uintptr_t)c % 8 == 0 ? 2
                                                                          : 1;
    err = cudaLaunchKernelEx(&l.config, kernel, map_a, map_b, map_c, c, m, n, k, at.col_first,
                             at.cols, pairs);
    return err != cudaSuccess ? err : cudaGetLastError();
}

/* The device's facts the launch needs; cudaErrorNoKernelImageForDevice on a
 * GPU that is not compute capability 9.0 (sm_90a code runs there alone). */
static cudaError_t hopper_here(int *device, int *sms)
{
    int major = 0, minor = 0;
    cudaError_t err = cudaGetDevice(device);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, *device);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, *device);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, *device);
    if (err != cudaSuccess)
        return err;
    return major == 9 && minor == 0 ? cudaSuccess : cudaErrorNoKernelImageForDevice;
}

/* C through TMA where it can and the tile takes it (gemm_tile_wgmma_staged),
 * else directly; the narrow tile's K split where gemm_tile_wgmma_split says. */
template <int V, int BN, int CM, int CN, typename Out>
static cudaError_t launch_cluster(Out *c, const uint16_t *a, const uint16_t *b, int64_t m,
                                  int64_t n, int64_t k, const launch_at &at)
{
    if constexpr (BN == GEMM_TILE_WGMMA_BN_NARROW) {
        if (gemm_tile_wgmma_split(m, at.cols, k, at.sms) == 2)
            return launch_variant<V, BN, CM, CN, Out, false, 2>(c, a, b, m, n, k, at);
    }
    if constexpr (GEMM_TILE_WGMMA_STAGEABLE(BN)) {
        if (gemm_tile_wgmma_staged((uintptr_t)c, n, (int)sizeof(Out), BN))
            return launch_variant<V, BN, CM, CN, Out, true, 1>(c, a, b, m, n, k, at);
    }
    return launch_variant<V, BN, CM, CN, Out, false, 1>(c, a, b, m, n, k, at);
}

/* The tile's cluster (GEMM_TILE_WGMMA_CM_OF, _CN_OF: 1 x 1 for the thin,
 * narrow and 96 tiles), or none where the middle tile runs alone
 * (gemm_tile_wgmma_alone). */
template <int V, int BN, typename Out>
static cudaError_t launch_tile(Out *c, const uint16_t *a, const uint16_t *b, int64_t m, int64_t n,
                               int64_t k, const launch_at &at)
{
    if constexpr (BN == GEMM_TILE_WGMMA_BN_MID && GEMM_TILE_WGMMA_CLUSTER_OF(BN) > 1) {
        if (gemm_tile_wgmma_alone(m, BN))
            return launch_cluster<V, BN, 1, 1>(c, a, b, m, n, k, at);
    }
    return launch_cluster<V, BN, GEMM_TILE_WGMMA_CM_OF(BN), GEMM_TILE_WGMMA_CN_OF(BN)>(c, a, b, m,
                                                                                       n, k, at);
}

/* One launch over the columns `at` names, in tiles bn wide. */
template <int V, typename Out>
static cudaError_t launch_width(int bn, Out *c, const uint16_t *a, const uint16_t *b, int64_t m,
                                int64_t n, int64_t k, const launch_at &at)
{
    switch (bn) {
    case GEMM_TILE_WGMMA_BN:
        return launch_tile<V, GEMM_TILE_WGMMA_BN>(c, a, b, m, n, k, at);
    case GEMM_TILE_WGMMA_BN_176:
        return launch_tile<V, GEMM_TILE_WGMMA_BN_176>(c, a, b, m, n, k, at);
    case GEMM_TILE_WGMMA_BN_168:
        return launch_tile<V, GEMM_TILE_WGMMA_BN_168>(c, a, b, m, n, k, at);
    case GEMM_TILE_WGMMA_BN_MID:
        return launch_tile<V, GEMM_TILE_WGMMA_BN_MID>(c, a, b, m, n, k, at);
    case GEMM_TILE_WGMMA_BN_96:
        return launch_tile<V, GEMM_TILE_WGMMA_BN_96>(c, a, b, m, n, k, at);
    case GEMM_TILE_WGMMA_BN_THIN:
        return launch_tile<V, GEMM_TILE_WGMMA_BN_THIN>(c, a, b, m, n, k, at);
    default:
        return launch_tile<V, GEMM_TILE_WGMMA_BN_NARROW>(c, a, b, m, n, k, at);
    }
}

/* C in one launch, or its first columns in whole rounds of one tile and
 * the rest in a second (gemm_tile_wgmma_plan). */
template <int V, typename Out>
static cudaError_t launch_layout(Out *c, const uint16_t *a, const uint16_t *b, int64_t m, int64_t n,
                                 int64_t k, cudaStream_t stream)
{
    launch_at at = {0, n, 0, 0, stream};
    cudaError_t err = hopper_here(&at.device, &at.sms);
    if (err != cudaSuccess)
        return err;
    int first_bn = 0;
    const int64_t n1 = gemm_tile_wgmma_plan(m, n, k, at.sms, &first_bn);
    if (n1 == 0)
        return launch_width<V>(first_bn, c, a, b, m, n, k, at);
    at.cols = n1;
    err = launch_width<V>(first_bn, c, a, b, m, n, k, at);
    if (err != cudaSuccess)
        return err;
    at.col_first = n1;
    at.cols = n - n1;
    return launch_width<V>(gemm_tile_wgmma_bn(m, n - n1, at.sms), c, a, b, m, n, k, at);
}

template <typename Out>
static cudaError_t launch(enum gemm_tile_variant variant, Out *c, const uint16_t *a,
                          const uint16_t *b, int64_t m, int64_t n, int64_t k, cudaStream_t stream)
{
    switch (variant) {
    case GEMM_TILE_WGMMA_INTERLEAVE:
        return launch_layout<GEMM_TILE_WGMMA_INTERLEAVE>(c, a, b, m, n, k, stream);
    case GEMM_TILE_WGMMA_SW32:
        return launch_layout<GEMM_TILE_WGMMA_SW32>(c, a, b, m, n, k, stream);
    case GEMM_TILE_WGMMA_SW64:
        return launch_layout<GEMM_TILE_WGMMA_SW64>(c, a, b, m, n, k, stream);
    case GEMM_TILE_WGMMA_SW128:
        return launch_layout<GEMM_TILE_WGMMA_SW128>(c, a, b, m, n, k, stream);
    default:
        return cudaErrorInvalidValue;
    }
}

extern "C" int gemm_tile_wgmma_built(void)
{
    return 1;
}

/* The path's entry (gemm_tile_wgmma.h). It checks its arguments itself,
 * although gemm_tile.cu's launchers have, so that this path copies without
 * them. */
extern "C" cudaError_t gemm_tile_wgmma_launch(enum gemm_tile_variant variant, void *c, int c_f16,
                                              const uint16_t *a, const uint16_t *b, int64_t m,
                                              int64_t n, int64_t k, cudaStream_t stream)
{
    if (gemm_tile_wgmma_refusal(variant, c, a, b, m, n, k) != NULL)
        return cudaErrorInvalidValue;
    if (c_f16)
        return launch(variant, static_cast<__half *>(c), a, b, m, n, k, stream);
    return launch(variant, static_cast<float *>(c), a, b, m, n, k, stream);
}
