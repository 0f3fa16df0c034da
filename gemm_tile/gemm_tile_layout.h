/* Where a GEMM tile lies in shared memory, and the addresses each lane gives
 * to cp.async and to ldmatrix. The kernels in gemm_tile.cu compute every
 * shared address through these functions; the bank model (gemm_tile_model.c)
 * calls the very same functions for every lane of every warp, so the model
 * cannot drift from the code.
 *
 * A block computes a BM x bn tile of C, 64 of K at a time: 128 x 256 (the
 * wide tile, 8 warps, one block an SM), or 128 x 128 (the narrow one, 4
 * warps, room for two blocks an SM) where C has fewer wide tiles than half
 * the SMs (gemm_tile_bn). Its A tile (BM rows of M, 64 fp16 of K each) and
 * its B tile (bn columns of N, 64 fp16 of K each: B is column-major, so a
 * column is a contiguous row of K) have the same form: rows of 8 chunks of
 * 16 bytes. Chunk c of row r holds K values 8c .. 8c + 7. The variants place
 * chunk (r, c) at:
 *
 *   rowmajor   128 r + 16 c              ldmatrix's 8 rows of one chunk column
 *                                        share 4 banks: 8 wavefronts, 8-way
 *   padded     144 r + 16 c              row r starts 4 r banks further on:
 *                                        8 rows, 8 groups of 4 banks, 1 way
 *   swizzled   128 r + 16 (c ^ (r % 8))  the chunk column moves with the row:
 *                                        8 rows, 8 groups of 4 banks, 1 way
 *
 * The swizzle is CuTe's Swizzle<3,3,3> on the fp16 element offset 64 r + k
 * (NVIDIA CUTLASS, include/cute/swizzle.hpp): bits 6-8 of the offset (r % 8)
 * XORed into bits 3-5 (the chunk). common/swizzle.h computes it.
 *
 * The cp.async copies that fill a tile: 8 lanes write the 8 chunks of one
 * row, read from one 128-byte line of global memory. The H100 serves such a
 * group in one wavefront when it fills one whole aligned 128-byte line of
 * shared memory (rowmajor; swizzled, whose row holds its 8 chunks in another
 * order), else one a 64-byte segment it touches: padded's rows start 16 r
 * bytes into a line, 2.6 wavefronts a group (docs/bank-rules.md, "cp.async").
 * So the padded tile fixes ldmatrix and breaks cp.async; the swizzled tile
 * keeps both at the ideal. */
#ifndef BANKFREE_GEMM_TILE_LAYOUT_H
#define BANKFREE_GEMM_TILE_LAYOUT_H

#include <stdint.h>

#include "common/hostdev.h"
#include "common/sm_limits.h"
#include "common/swizzle.h"
#include "gemm_tile/gemm_tile.h"
#include "gemm_tile/gemm_tile_grouped_order.h"

/* The block and warp tiles. A probe may set them with -D (the tile sizes it
 * times); the family is built, modelled and tested with these defaults. */
#ifndef GEMM_TILE_BM
#define GEMM_TILE_BM 128 /* rows of C (and of the A tile) a block computes */
#endif
#ifndef GEMM_TILE_BN
#define GEMM_TILE_BN 256 /* the wide tile: columns of C (rows of the B tile) a block computes */
#endif
#ifndef GEMM_TILE_BN_NARROW
#define GEMM_TILE_BN_NARROW 128 /* the narrow tile's */
#endif
#ifndef GEMM_TILE_WARP_N
#define GEMM_TILE_WARP_N 64 /* C a warp computes: 64 x WARP_N */
#endif
#ifndef GEMM_TILE_STAGES
#define GEMM_TILE_STAGES 3 /* tiles in flight: 2 loading while 1 is multiplied */
#endif
#ifndef GEMM_TILE_BLOCKS_PER_SM
#define GEMM_TILE_BLOCKS_PER_SM 1 /* __launch_bounds__: registers for this many blocks an SM */
#endif
#ifndef GEMM_TILE_BLOCKS_PER_SM_NARROW
#define GEMM_TILE_BLOCKS_PER_SM_NARROW 2 /* the narrow tile's */
#endif
#ifndef GEMM_TILE_GROUP_M
#define GEMM_TILE_GROUP_M 16 /* tile rows the grid walks down at a time (gemm_tile_block_tile) */
#endif
#define GEMM_TILE_BK               64 /* K a pipeline stage holds: 64 fp16, 128 B a tile row */
#define GEMM_TILE_CHUNKS           8  /* 16-byte chunks a tile row */
#define GEMM_TILE_WARP_M           64
#define GEMM_TILE_WARPS_M          (GEMM_TILE_BM / GEMM_TILE_WARP_M)
#define GEMM_TILE_MI               (GEMM_TILE_WARP_M / 16) /* m16 tiles a warp: one ldmatrix.x4 each */
#define GEMM_TILE_NJ               (GEMM_TILE_WARP_N / 16) /* n16 pairs a warp: one ldmatrix.x4 each */
#define GEMM_TILE_KK               (GEMM_TILE_BK / 16)     /* k16 steps a stage */
/* What follows from a tile's width bn (GEMM_TILE_BN or _BN_NARROW), as
 * constant expressions for the kernel's templates: warps along N, threads (a
 * warp a warp tile), cp.async copies a thread makes for one A or B tile
 * (rows x 8 chunks / threads), rows one round of copies covers (a thread's
 * copies are this many rows apart), and blocks an SM (__launch_bounds__). */
#define GEMM_TILE_WARPS_N_OF(bn)   ((bn) / GEMM_TILE_WARP_N)
#define GEMM_TILE_THREADS_OF(bn)   (32 * GEMM_TILE_WARPS_M * GEMM_TILE_WARPS_N_OF(bn))
#define GEMM_TILE_COPIES_A_OF(bn)  (GEMM_TILE_BM * GEMM_TILE_CHUNKS / GEMM_TILE_THREADS_OF(bn))
#define GEMM_TILE_COPIES_B_OF(bn)  ((bn)*GEMM_TILE_CHUNKS / GEMM_TILE_THREADS_OF(bn))
#define GEMM_TILE_COPY_ROWS_OF(bn) (GEMM_TILE_THREADS_OF(bn) / GEMM_TILE_CHUNKS)
#define GEMM_TILE_BLOCKS_PER_SM_OF(bn)                                                             \
    ((bn) == GEMM_TILE_BN ? GEMM_TILE_BLOCKS_PER_SM : GEMM_TILE_BLOCKS_PER_SM_NARROW)
/* The most threads a block of either tile (for buffers sized at compile time). */
#define GEMM_TILE_MAX_THREADS GEMM_TILE_THREADS_OF(GEMM_TILE_BN)
#if GEMM_TILE_BM % GEMM_TILE_WARP_M || GEMM_TILE_BN % GEMM_TILE_WARP_N ||                          \
    GEMM_TILE_BN_NARROW % GEMM_TILE_WARP_N || GEMM_TILE_WARP_N % 16 ||                             \
    GEMM_TILE_BN_NARROW > GEMM_TILE_BN
#error                                                                                             \
    "gemm_tile: the warp tiles (64 x WARP_N, WARP_N a multiple of 16) must cover both block tiles"
#endif
#if GEMM_TILE_BM * GEMM_TILE_CHUNKS % GEMM_TILE_THREADS_OF(GEMM_TILE_BN) ||                        \
    GEMM_TILE_BM * GEMM_TILE_CHUNKS % GEMM_TILE_THREADS_OF(GEMM_TILE_BN_NARROW) ||                 \
    GEMM_TILE_BN * GEMM_TILE_CHUNKS % GEMM_TILE_THREADS_OF(GEMM_TILE_BN) ||                        \
    GEMM_TILE_BN_NARROW * GEMM_TILE_CHUNKS % GEMM_TILE_THREADS_OF(GEMM_TILE_BN_NARROW) ||          \
    GEMM_TILE_COPY_ROWS_OF(GEMM_TILE_BN) % 8 || GEMM_TILE_COPY_ROWS_OF(GEMM_TILE_BN_NARROW) % 8
#error "gemm_tile: each thread makes whole copies, a multiple of 8 rows apart"
#endif

/* Bytes from one tile row to the next. */
static BF_HD uint32_t gemm_tile_row_bytes(enum gemm_tile_variant variant)
{
    return variant == GEMM_TILE_PADDED ? 144u : 128u;
}

/* The byte offset of chunk `chunk` (0..7) of row `row` inside a tile. */
static BF_HD uint32_t gemm_tile_chunk_offset(enum gemm_tile_variant variant, int row, int chunk)
{
    const uint32_t r = (uint32_t)row, c = (uint32_t)chunk;
    if (variant == GEMM_TILE_SWIZZLED) /* Swizzle<3,3,3> on the fp16 offset, in bytes */
        return 2u * bf_swizzle(3, 3, 3, r * 64u + c * 8u);
    return r * gemm_tile_row_bytes(variant) + c * 16u;
}

/* Bytes of the A tile (BM rows), the B tile (bn rows), a stage (A then B),
 * the whole pipeline: the kernel's dynamic shared memory. */
static BF_HD uint32_t gemm_tile_a_bytes(enum gemm_tile_variant variant)
{
    return GEMM_TILE_BM * gemm_tile_row_bytes(variant);
}
static BF_HD uint32_t gemm_tile_b_bytes(enum gemm_tile_variant variant, int bn)
{
    return (uint32_t)bn * gemm_tile_row_bytes(variant);
}
static BF_HD uint32_t gemm_tile_stage_bytes(enum gemm_tile_variant variant, int bn)
{
    return gemm_tile_a_bytes(variant) + gemm_tile_b_bytes(variant, bn);
}
static BF_HD uint32_t gemm_tile_smem_bytes(enum gemm_tile_variant variant, int bn)
{
    return GEMM_TILE_STAGES * gemm_tile_stage_bytes(variant, bn);
}

/* Where stage `stage`'s A tile and B tile start. */
static BF_HD uint32_t gemm_tile_a_base(enum gemm_tile_variant variant, int bn, int stage)
{
    return (uint32_t)stage * gemm_tile_stage_bytes(variant, bn);
}
static BF_HD uint32_t gemm_tile_b_base(enum gemm_tile_variant variant, int bn, int stage)
{
    return gemm_tile_a_base(variant, bn, stage) + gemm_tile_a_bytes(variant);
}

/* ---- cp.async: global to shared, 16 bytes a lane ---- */

/* Copy `copy` (0 .. GEMM_TILE_COPIES_A_OF or _B_OF(bn) - 1) of thread
 * `thread` of a block of the bn-wide tile moves chunk `chunk` of tile row
 * `row`: the block's threads take as many consecutive chunks
 * (GEMM_TILE_COPY_ROWS_OF(bn) rows) at a time, so a warp copies 4 whole
 * rows, 8 lanes a row, and the lanes of a quarter-warp read 128 contiguous
 * bytes of global memory. */
static BF_HD int gemm_tile_copy_row(int bn, int thread, int copy)
{
    return (copy * GEMM_TILE_THREADS_OF(bn) + thread) / GEMM_TILE_CHUNKS; /* + COPY_ROWS copy */
}
static BF_HD int gemm_tile_copy_chunk(int bn, int thread, int copy)
{
    return (copy * GEMM_TILE_THREADS_OF(bn) + thread) % GEMM_TILE_CHUNKS;
}

/* Bytes from a thread's copy i to its copy i + 1: GEMM_TILE_COPY_ROWS_OF(bn)
 * (32 or 16) rows, a multiple of 8, so the swizzle's row % 8 and the chunk
 * column stay: copy_offset(t, i) = copy_offset(t, 0) + i copy_stride in every
 * layout. The kernel adds it; nvcc would rebuild the swizzle for every copy. */
static BF_HD uint32_t gemm_tile_copy_stride(enum gemm_tile_variant variant, int bn)
{
    return (uint32_t)GEMM_TILE_COPY_ROWS_OF(bn) * gemm_tile_row_bytes(variant);
}

/* The shared byte offset (inside a tile) that copy `copy` of thread `thread`
 * writes. */
static BF_HD uint32_t gemm_tile_copy_offset(enum gemm_tile_variant variant, int bn, int thread,
                                            int copy)
{
    return gemm_tile_chunk_offset(variant, gemm_tile_copy_row(bn, thread, copy),
                                  gemm_tile_copy_chunk(bn, thread, copy));
}

/* ---- ldmatrix.x4: four 8x8 fp16 matrices, lane l gives row l % 8 of matrix l / 8 ---- */

/* Warp w of a block of the bn-wide tile computes C rows 64 (w / WARPS_N) ..
 * + 63 and columns WARP_N (w % WARPS_N) .. + WARP_N - 1. */
static BF_HD int gemm_tile_warp_m(int bn, int warp)
{
    return warp / GEMM_TILE_WARPS_N_OF(bn);
}
static BF_HD int gemm_tile_warp_n(int bn, int warp)
{
    return warp % GEMM_TILE_WARPS_N_OF(bn);
}

/* A's fragment of mma.m16n8k16 for m16 tile `mi` of the warp and k16 step
 * `kk` of the stage: matrices 0-3 are (rows 0-7, k 0-7), (rows 8-15, k 0-7),
 * (rows 0-7, k 8-15), (rows 8-15, k 8-15), which ldmatrix returns as a0a1,
 * a2a3, a4a5, a6a7 (PTX ISA, "Matrix Fragments for mma.m16n8k16"). So lane l
 * gives row l % 16 of the m16 tile, chunk 2 kk + l / 16. */
static BF_HD uint32_t gemm_tile_ldmatrix_a(enum gemm_tile_variant variant, int bn, int warp, int mi,
                                           int kk, int lane)
{
    const int row = gemm_tile_warp_m(bn, warp) * GEMM_TILE_WARP_M + mi * 16 + lane % 16;
    return gemm_tile_chunk_offset(variant, row, 2 * kk + lane / 16);
}

/* B's fragments for two n8 tiles (n16 pair `nj` of the warp) at k16 step
 * `kk`. The B tile's rows are columns of B, so an 8x8 matrix of it, read
 * without .trans, gives thread t the values (n = t / 4, k = 2 (t % 4) + 0, 1):
 * b0b1 of mma's col-major B. Matrices 0-3 are (n 0-7, k 0-7), (n 0-7, k
 * 8-15), (n 8-15, k 0-7), (n 8-15, k 8-15): b0b1 and b2b3 of the first n8
 * tile, then of the second. Lane l gives row l % 8 + 8 (l / 16), chunk
 * 2 kk + (l / 8) % 2. */
static BF_HD uint32_t gemm_tile_ldmatrix_b(enum gemm_tile_variant variant, int bn, int warp, int nj,
                                           int kk, int lane)
{
    const int row =
        gemm_tile_warp_n(bn, warp) * GEMM_TILE_WARP_N + nj * 16 + lane % 8 + 8 * (lane / 16);
    return gemm_tile_chunk_offset(variant, row, 2 * kk + (lane / 8) % 2);
}

/* The ldmatrix address at k16 step kk from the one at step 0 (A's or B's):
 * the chunk column moves by 2 kk. In the swizzled tile the column is
 * (2 kk + c) ^ (r % 8) with c < 2, that is 2 kk ^ (c ^ r % 8): bytes
 * offset(0) ^ 32 kk. So the kernel computes each lane's addresses once and
 * steps them with one instruction, where nvcc, not knowing this, rebuilds the
 * swizzle for every step. */
static BF_HD uint32_t gemm_tile_ldmatrix_step(enum gemm_tile_variant variant, uint32_t at_step0,
                                              int kk)
{
    const uint32_t step = 32u * (uint32_t)kk;
    return variant == GEMM_TILE_SWIZZLED ? at_step0 ^ step : at_step0 + step;
}

/* Bytes from the ldmatrix addresses of m16 tile mi (or n16 pair nj) to
 * those of mi + 1: 16 rows, a multiple of 8, so row % 8 and the swizzle stay:
 * ldmatrix_a(mi, kk) = ldmatrix_step(ldmatrix_a(0, 0), kk) + mi tile_stride
 * in every layout (B alike). The kernel steps one address a k16 step and
 * reaches the others with the instruction's immediate offset. */
static BF_HD uint32_t gemm_tile_ldmatrix_tile_stride(enum gemm_tile_variant variant)
{
    return 16u * gemm_tile_row_bytes(variant);
}

/* ---- the grid ---- */

/* Tiles of C along M and along N (the grid's blocks take them in turn). */
static BF_HD int64_t gemm_tile_tiles_m(int64_t m)
{
    return (m + GEMM_TILE_BM - 1) / GEMM_TILE_BM;
}
static BF_HD int64_t gemm_tile_tiles_n(int64_t n, int bn)
{
    return (n + bn - 1) / bn;
}

/* The tile's width for an m x n C on a GPU of `sms` SMs, by the rule the
 * wgmma kernel had before its middle tile: 256 columns where the wide tiles
 * number at least half the SMs, else 128 (twice the blocks; then every
 * narrow tile has a block of its own, as they number fewer than the SMs).
 * On the H100 (132 SMs) square C takes the narrow tile up to 1280 x 1280,
 * where the wide tile's 2-50 blocks leave most SMs idle: measured, it is
 * 1.14-1.41x faster at 256³-1024³, and 4-14% slower from 4096³ (`padded`
 * 0.79x at 2048³; docs/notes/gemm_tile/). */
static BF_HD int gemm_tile_bn(int64_t m, int64_t n, int sms)
{
    return 2 * gemm_tile_tiles_m(m) * gemm_tile_tiles_n(n, GEMM_TILE_BN) >= sms
               ? GEMM_TILE_BN
               : GEMM_TILE_BN_NARROW;
}

/* The tile the launcher takes for `variant` on a GPU whose blocks may have
 * block_shared bytes of shared memory (cudaDevAttrMaxSharedMemoryPerBlockOptin):
 * gemm_tile_bn's, narrow where the wide tile's stages do not fit (sm_86,
 * sm_89, sm_120: 99 KiB, under the wide tile's 144-162 KiB), 0 where neither
 * fits (padded there: 108 KiB for the narrow tile's three stages). */
static BF_HD int gemm_tile_bn_fitting(enum gemm_tile_variant variant, int64_t m, int64_t n, int sms,
                                      int block_shared)
{
    const int bn = gemm_tile_bn(m, n, sms);
    if (bn == GEMM_TILE_BN && gemm_tile_smem_bytes(variant, bn) <= (uint32_t)block_shared)
        return bn;
    return gemm_tile_smem_bytes(variant, GEMM_TILE_BN_NARROW) <= (uint32_t)block_shared
               ? GEMM_TILE_BN_NARROW
               : 0;
}

/* The tile of C (row tile_m, column tile_n) that block `block` computes. */
static BF_HD void gemm_tile_block_tile(int64_t block, int64_t tiles_m, int64_t tiles_n,
                                       int64_t *tile_m, int64_t *tile_n)
{
    gemm_tile_grouped_tile(block, tiles_m, tiles_n, GEMM_TILE_GROUP_M, tile_m, tile_n);
}

/* K tiles a block walks through the pipeline (the last one zero-filled past k). */
static BF_HD int64_t gemm_tile_tiles_k(int64_t k)
{
    return (k + GEMM_TILE_BK - 1) / GEMM_TILE_BK;
}
/* The stage K tile `kt` is loaded into and multiplied from, counting K tiles
 * from the block's first (the mma.sync kernel's stream runs on from tile to
 * tile; the model and the CPU test replay a tile from stage 0: every stage
 * is laid out alike, at a multiple of 1024 bytes). */
static BF_HD int gemm_tile_stage_of(int64_t kt)
{
    return (int)(kt % GEMM_TILE_STAGES);
}

#endif
