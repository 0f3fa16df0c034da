/* Where the Hopper path's tiles lie in shared memory: where TMA writes each
 * 16-byte chunk, and the matrix descriptors wgmma reads them through. The
 * kernel (gemm_tile_wgmma.cu) takes every shared address and descriptor from
 * these functions; the bank model (gemm_tile_model.c) decodes the same
 * descriptors as the PTX ISA defines them, lane by lane, so the model cannot
 * drift from the code.
 *
 * A tile is `rows` rows (128 of A, 256, 176, 168, 128, 96, 64 or 32 of B's
 * columns) of 64 fp16 of K: 8 chunks of 16 bytes a row, as in the
 * mma.sync tiles. wgmma reads a K-major operand in one of four layouts,
 * each a TMA swizzle mode (PTX ISA, "Shared Memory Matrix Layout"; NVIDIA
 * CUTLASS, cute/atom/mma_traits_sm90_gmma.hpp):
 *
 *   mode         slab   chunk (r, c) at byte, s = c / (W / 16) the slab
 *   interleave   16 B   s rows 16 + 16 r                 (a core matrix: 8 rows x 16 B, 128 B)
 *   sw32         32 B   s rows 32 + Swizzle<1,4,3>(32 r + 16 (c % 2))
 *   sw64         64 B   s rows 64 + Swizzle<2,4,3>(64 r + 16 (c % 4))
 *   sw128       128 B            Swizzle<3,4,3>(128 r + 16 c)
 *
 * Swizzle<B,4,3> on a byte offset XORs bits 7.. (the row within 8 rows of 128
 * bytes) into bits 4.. (the 16-byte chunk): sw128 puts chunk c of row r at
 * 128 r + 16 (c ^ r % 8), the mma.sync `swizzled` tile byte for byte (its
 * Swizzle<3,3,3> counts fp16, this one bytes). TMA applies it to the
 * absolute shared address, so tiles start on 1024-byte boundaries. Narrower
 * swizzles cut K into slabs of W bytes a row, one TMA box each; without a
 * swizzle wgmma wants 8 rows x 16 B core matrices, contiguous, so TMA writes
 * 16-byte columns. Every mode keeps the 8 rows of a core matrix on 8
 * different groups of 4 banks: wgmma reads each of the four conflict-free. */
#ifndef BANKFREE_GEMM_TILE_WGMMA_LAYOUT_H
#define BANKFREE_GEMM_TILE_WGMMA_LAYOUT_H

#include <stdint.h>

#include "common/hostdev.h"
#include "common/swizzle.h"
#include "gemm_tile/gemm_tile.h"
#include "gemm_tile/gemm_tile_grouped_order.h"

#define GEMM_TILE_WGMMA_BM         128 /* rows of C (and of the A tile) a block computes */
#define GEMM_TILE_WGMMA_BN         256 /* columns of C (rows of the B tile) */
#define GEMM_TILE_WGMMA_BN_176     176 /* ... in the 176 tile: 11008 in 63 */
#define GEMM_TILE_WGMMA_BN_168     168 /* ... in the 168 tile: 11008 in 66, whole rounds */
#define GEMM_TILE_WGMMA_BN_MID     128 /* ... in the middle tile */
#define GEMM_TILE_WGMMA_BN_96      96  /* ... in the 96 tile, at one tile row: 11008 in 115 */
#define GEMM_TILE_WGMMA_BN_NARROW  64  /* ... in the narrow tile, for the smallest C */
#define GEMM_TILE_WGMMA_BN_THIN    32  /* ... in the thin tile, where narrow ones idle half */
#define GEMM_TILE_WGMMA_BK         64  /* K a stage holds: 64 fp16, 128 B a row */
#define GEMM_TILE_WGMMA_RING       (192u * 1024u) /* stages: below, "Bytes of the A tile" */
#define GEMM_TILE_WGMMA_MAX_STAGES 8
#define GEMM_TILE_WGMMA_CONSUMERS  2  /* warpgroups that multiply, 64 rows of C each */
#define GEMM_TILE_WGMMA_M          64 /* wgmma.m64n{bn}k16: rows a warpgroup multiplies */
#define GEMM_TILE_WGMMA_KK         (GEMM_TILE_WGMMA_BK / 16) /* k16 steps a stage */
/* One producer warpgroup (one thread issues the TMA copies), then the consumers. */
#define GEMM_TILE_WGMMA_THREADS    (128 * (1 + GEMM_TILE_WGMMA_CONSUMERS))
/* Blocks a cluster, CM x CN: CM blocks on tile rows one above the other
 * share their B tile, CN blocks on tile columns side by side their A tile;
 * each block loads 1 / CM of the B tile (rounded up to 8 rows:
 * gemm_tile_wgmma_b_share) and 1 / CN of the A tile, and TMA writes each
 * box into every block that shares it (multicast), so an operand crosses
 * from L2 once a cluster. The wide tile runs in clusters of 2 x 1 (B, 256
 * rows, is its larger operand). The narrow one runs alone: there clusters
 * of 2 x 1 cost more in barriers at the start and the end than B's second
 * crossing saved (H100, the timeline probe: 6.6 against 7.9 us at 256^3,
 * 7.7 against 9.0 at 512^3, 11.2 against 11.7 at 1024^3); 1 x 2, which
 * shares its larger operand A, and 2 x 2 are for probes/clusters.sh to
 * measure. The middle tile runs in clusters of 2 x 1 too: where the rule
 * takes it (every SM busy, long K) L2 bounds it alone, and sharing B cut
 * 512 x 4096 x 11008 from 97.6 to 75.6 us (1 x 2: 88.1); at one tile row (M
 * <= 128), where a cluster's second block would have no tile, it runs alone
 * (gemm_tile_wgmma_alone). A probe sets any of the six with -D (1 or 2
 * each). */
#ifndef GEMM_TILE_WGMMA_WIDE_CM
#define GEMM_TILE_WGMMA_WIDE_CM 2
#endif
#ifndef GEMM_TILE_WGMMA_WIDE_CN
#define GEMM_TILE_WGMMA_WIDE_CN 1
#endif
#ifndef GEMM_TILE_WGMMA_NARROW_CM
#define GEMM_TILE_WGMMA_NARROW_CM 1
#endif
#ifndef GEMM_TILE_WGMMA_NARROW_CN
#define GEMM_TILE_WGMMA_NARROW_CN 1
#endif
#ifndef GEMM_TILE_WGMMA_MID_CM
#define GEMM_TILE_WGMMA_MID_CM 2
#endif
#ifndef GEMM_TILE_WGMMA_MID_CN
#define GEMM_TILE_WGMMA_MID_CN 1
#endif
/* The cluster's shape for a tile `bn` columns wide (constant expressions:
 * the kernel's). The 176 and 168 tiles take the wide tile's; the 96 tile,
 * taken at one tile row only, and the thin tile run alone. */
#define GEMM_TILE_WGMMA_WIDE_CLUSTERS(bn)                                                          \
    ((bn) == GEMM_TILE_WGMMA_BN || (bn) == GEMM_TILE_WGMMA_BN_176 || (bn) == GEMM_TILE_WGMMA_BN_168)
#define GEMM_TILE_WGMMA_CM_OF(bn)                                                                  \
    (GEMM_TILE_WGMMA_WIDE_CLUSTERS(bn)   ? GEMM_TILE_WGMMA_WIDE_CM                                 \
     : (bn) == GEMM_TILE_WGMMA_BN_MID    ? GEMM_TILE_WGMMA_MID_CM                                  \
     : (bn) == GEMM_TILE_WGMMA_BN_NARROW ? GEMM_TILE_WGMMA_NARROW_CM                               \
                                         : 1)
#define GEMM_TILE_WGMMA_CN_OF(bn)                                                                  \
    (GEMM_TILE_WGMMA_WIDE_CLUSTERS(bn)   ? GEMM_TILE_WGMMA_WIDE_CN                                 \
     : (bn) == GEMM_TILE_WGMMA_BN_MID    ? GEMM_TILE_WGMMA_MID_CN                                  \
     : (bn) == GEMM_TILE_WGMMA_BN_NARROW ? GEMM_TILE_WGMMA_NARROW_CN                               \
                                         : 1)
#define GEMM_TILE_WGMMA_CLUSTER_OF(bn) (GEMM_TILE_WGMMA_CM_OF(bn) * GEMM_TILE_WGMMA_CN_OF(bn))
#define GEMM_TILE_WGMMA_MAX_CLUSTER    4 /* 2 x 2 */
/* The middle tile at one tile row (M <= 128) runs alone: there its
 * clusters of two tile rows would leave every second block without a
 * tile, and a round of it alone does the work of two narrow rounds (128 x
 * 14336: 112 tiles, one round; docs/notes/gemm_tile/middle-tile.md). */
#ifndef GEMM_TILE_WGMMA_MID_ALONE
#define GEMM_TILE_WGMMA_MID_ALONE 1 /* 0: clusters of 2 x 1 there too (a probe's before) */
#endif
static BF_HD int gemm_tile_wgmma_alone(int64_t m, int bn)
{
    return GEMM_TILE_WGMMA_MID_ALONE && bn == GEMM_TILE_WGMMA_BN_MID && m <= GEMM_TILE_WGMMA_BM;
}
/* The cluster's shape for an m-row C in tiles `bn` wide. */
static BF_HD int gemm_tile_wgmma_cm(int64_t m, int bn)
{
    return gemm_tile_wgmma_alone(m, bn) ? 1 : GEMM_TILE_WGMMA_CM_OF(bn);
}
static BF_HD int gemm_tile_wgmma_cn(int64_t m, int bn)
{
    return gemm_tile_wgmma_alone(m, bn) ? 1 : GEMM_TILE_WGMMA_CN_OF(bn);
}
static BF_HD int gemm_tile_wgmma_cluster(int64_t m, int bn)
{
    return gemm_tile_wgmma_cm(m, bn) * gemm_tile_wgmma_cn(m, bn);
}
/* Rows of A a block's box loads in a cluster of cn tiles side by side: its
 * share of the tile or, where A has fewer rows than that (one tile row,
 * blocks not sharing A: cn 1), M rounded up to 8. A box reaching past A's
 * last row fills those rows with zeros, and that costs: on the H100 1 x
 * 4096 x 11008 took 86 us with the whole box, 44 with the short one
 * (docs/notes/gemm_tile/small-m.md). The tile's rows below the box keep
 * what the stage held; they feed only rows of C past M, which are never
 * stored. */
#ifndef GEMM_TILE_WGMMA_SHORT_A_BOX
#define GEMM_TILE_WGMMA_SHORT_A_BOX 1 /* 0: the whole share (a probe's before) */
#endif
static BF_HD int gemm_tile_wgmma_a_rows_of(int64_t m, int cn)
{
    const int rows = GEMM_TILE_WGMMA_BM / cn;
    return GEMM_TILE_WGMMA_SHORT_A_BOX && cn == 1 && m < rows ? (int)((m + 7) / 8 * 8) : rows;
}
/* ... in the cluster of a tile `bn` wide. */
static BF_HD int gemm_tile_wgmma_a_load_rows(int64_t m, int bn)
{
    return gemm_tile_wgmma_a_rows_of(m, gemm_tile_wgmma_cn(m, bn));
}
/* Rows of B a block's box loads in a cluster of cm tile rows: its share of
 * the tile, rounded up to whole 8-row swizzle atoms (a box lands on its
 * layout's atom: 8 rows of its slab, 128 to 1024 bytes); and the share's
 * first row for the block at row rm. The last share ends at the tile's last
 * row, so where bn / cm is not a multiple of 8 (the 168 tile: 84) the
 * shares overlap: rows 0 .. 87 and 80 .. 167, the 8 rows between written
 * twice with the same bytes, each counted on the stage's barrier. */
static BF_HD int gemm_tile_wgmma_b_share(int bn, int cm)
{
    return (bn / cm + 7) / 8 * 8;
}
static BF_HD int gemm_tile_wgmma_b_first(int bn, int cm, int rm)
{
    return rm == cm - 1 ? bn - gemm_tile_wgmma_b_share(bn, cm)
                        : rm * gemm_tile_wgmma_b_share(bn, cm);
}
static BF_HD int gemm_tile_wgmma_b_box_rows(int64_t m, int bn)
{
    return gemm_tile_wgmma_b_share(bn, gemm_tile_wgmma_cm(m, bn));
}
/* The bytes TMA writes into each block of a cm x cn cluster a stage, which
 * the stage's "full" barrier expects: the A boxes of the cn blocks that
 * share its A tile, and the B shares of the cm blocks that share its B
 * tile (the 168 tile's 2 x 88 rows, 8 of them twice). */
static BF_HD uint32_t gemm_tile_wgmma_stage_tx(int64_t m, int bn, int cm, int cn)
{
    return 128u *
           (uint32_t)(gemm_tile_wgmma_a_rows_of(m, cn) * cn + cm * gemm_tile_wgmma_b_share(bn, cm));
}
/* Block `rank` of a CM x CN cluster sits at row rm = rank % CM, column rn
 * = rank / CM. The blocks that share its A tile (its row), and its B tile
 * (its column), as a mask of ranks: where TMA writes its boxes. */
static BF_HD uint32_t gemm_tile_wgmma_a_peers(int cm, int cn, int rm)
{
    uint32_t mask = 0;
    for (int j = 0; j < cn; ++j)
        mask |= 1u << (rm + cm * j);
    return mask;
}
static BF_HD uint32_t gemm_tile_wgmma_b_peers(int cm, int rn)
{
    return ((1u << cm) - 1u) << (rn * cm);
}
#ifndef GEMM_TILE_WGMMA_GROUP_M
#define GEMM_TILE_WGMMA_GROUP_M 16 /* tile rows the grid walks down at a time */
#endif

/* The swizzle's B: 0 (interleave), 1 (32 B), 2 (64 B), 3 (128 B). */
static BF_HD int gemm_tile_wgmma_swizzle_bits(enum gemm_tile_variant variant)
{
    return variant == GEMM_TILE_WGMMA_SW128  ? 3
           : variant == GEMM_TILE_WGMMA_SW64 ? 2
           : variant == GEMM_TILE_WGMMA_SW32 ? 1
                                             : 0;
}

/* Bytes of a slab row: the swizzle's width, 16 B without one. One TMA box
 * fills one slab: W / 2 fp16 of K by `rows` rows. */
static BF_HD uint32_t gemm_tile_wgmma_slab_bytes(enum gemm_tile_variant variant)
{
    return 16u << gemm_tile_wgmma_swizzle_bits(variant);
}
static BF_HD int gemm_tile_wgmma_slabs(enum gemm_tile_variant variant)
{
    return (int)(128u / gemm_tile_wgmma_slab_bytes(variant));
}

/* The byte offset, inside a tile of `rows` rows on a 1024-byte boundary, of
 * chunk `chunk` (0..7) of row `row`: where TMA writes it. */
static BF_HD uint32_t gemm_tile_wgmma_offset(enum gemm_tile_variant variant, int rows, int row,
                                             int chunk)
{
    const uint32_t w = gemm_tile_wgmma_slab_bytes(variant), per_slab = w / 16u;
    const uint32_t slab = (uint32_t)chunk / per_slab, in = (uint32_t)chunk % per_slab;
    return slab * (uint32_t)rows * w +
           bf_swizzle(gemm_tile_wgmma_swizzle_bits(variant), 4, 3, (uint32_t)row * w + 16u * in);
}

/* Bytes of the A tile, the B tile, a stage (A then B); after the stages,
 * the epilogue's buffers (two a consumer), then the mbarriers (full[s],
 * then empty[s], 8 bytes each, room for GEMM_TILE_WGMMA_MAX_STAGES). Every
 * tile's ring is as many stages as 192 KiB holds, at most 8: 4 of 48 KiB
 * (wide), 5 of 38 (176) or 37 (168), 6 of 32 (middle) or of 28 (96), 8 of
 * 24 (narrow), 8 of 20 (thin) (a narrower tile's k tiles are less work:
 * more in flight hide the same latency; 8 stages of the 96 tile, in the
 * buffers too, were slower: docs/notes/gemm_tile/tile-widths.md). */
#define GEMM_TILE_WGMMA_A_BYTES (GEMM_TILE_WGMMA_BM * 128u)
#define GEMM_TILE_WGMMA_C_BYTES (GEMM_TILE_WGMMA_M * 128u) /* a buffer: 64 rows x 128 B */
#define GEMM_TILE_WGMMA_C_BASE  GEMM_TILE_WGMMA_RING
#define GEMM_TILE_WGMMA_BARRIERS                                                                   \
    (GEMM_TILE_WGMMA_C_BASE + 2u * GEMM_TILE_WGMMA_CONSUMERS * GEMM_TILE_WGMMA_C_BYTES)
/* After full[s] and empty[s]: split K's (gemm_tile_wgmma_split), two a
 * consumer: "arrived" (the other block's partials are in this block's
 * buffer) and "drained" (the other block has read what this one pushed). */
#define GEMM_TILE_WGMMA_SPLIT_BARRIERS (GEMM_TILE_WGMMA_BARRIERS + 16u * GEMM_TILE_WGMMA_MAX_STAGES)
/* The kernel's dynamic shared memory: the stages, the buffers, the
 * barriers, and up to 1023 bytes to put the first stage on a 1024-byte
 * boundary. */
#define GEMM_TILE_WGMMA_SMEM_BYTES                                                                 \
    (GEMM_TILE_WGMMA_SPLIT_BARRIERS + 16u * GEMM_TILE_WGMMA_CONSUMERS + 1024u)

static BF_HD uint32_t gemm_tile_wgmma_stage_bytes(int bn)
{
    return GEMM_TILE_WGMMA_A_BYTES + (uint32_t)bn * 128u;
}
static BF_HD int gemm_tile_wgmma_stages(int bn)
{
    const int stages = (int)(GEMM_TILE_WGMMA_RING / gemm_tile_wgmma_stage_bytes(bn));
    return stages < GEMM_TILE_WGMMA_MAX_STAGES ? stages : GEMM_TILE_WGMMA_MAX_STAGES;
}
static BF_HD uint32_t gemm_tile_wgmma_a_base(int stage, int bn)
{
    return (uint32_t)stage * gemm_tile_wgmma_stage_bytes(bn);
}
static BF_HD uint32_t gemm_tile_wgmma_b_base(int stage, int bn)
{
    return gemm_tile_wgmma_a_base(stage, bn) + GEMM_TILE_WGMMA_A_BYTES;
}

/* ---- the epilogue: C through shared memory to TMA's store ---- */

/* Each consumer writes its 64 x bn of C 128 bytes of a row at a time (32
 * fp32 or 64 fp16 columns: one TMA box) into one of its two buffers, and
 * TMA stores the box while it writes the next. Thread t holds pairs of
 * neighbours in rows r = t / 4 % 8 + 16 (t / 32) and r + 8, one pair an n8
 * tile. In plain 128-byte rows a warp's store (8 rows, 4 lanes a row, the
 * same place in each) would put 8 rows on the same banks: 8-way. The
 * buffer takes the 128-byte swizzle, which TMA's store reads, and which
 * moves the 8 rows' 16-byte chunks apart: fp16 pairs (4 bytes, 16 a row)
 * then fill 32 banks once, 1 wavefront. fp32 pairs are 8-byte stores, which
 * the H100 serves a half-warp (4 rows) at a time, and the swizzle keeps
 * rows r and r ^ 1 on the same 32 bytes of banks: 2-way. So in an fp32
 * box, store `step` (0..7) of a thread in an odd row r writes its other
 * row and another tile than the even rows' (gemm_tile_wgmma_c_pair):
 * 4 rows of a half-warp, 4 different 32 bytes of banks, the ideal 2
 * wavefronts a store.
 *
 * The byte offset of byte `byte` (0..127) of row `row` in a buffer: */
static BF_HD uint32_t gemm_tile_wgmma_c_offset(int row, uint32_t byte)
{
    return bf_swizzle(3, 4, 3, (uint32_t)row * 128u + byte);
}
/* Which pair an fp32 thread of row parity `odd` stores at its store `step`
 * (0..7) of a box: tile (n8 tile of the box, 0..3) and half (0: row r, 1:
 * r + 8). Even rows go in order; odd rows take the other half and the tile
 * two away, which puts each half-warp's 4 rows on 4 different 32-byte
 * pieces of the swizzled row. */
static BF_HD void gemm_tile_wgmma_c_pair(int step, int odd, int *tile, int *half)
{
    *tile = step / 2 ^ 2 * odd;
    *half = step % 2 ^ odd;
}
/* Where consumer `consumer`'s buffer `buffer` (0, 1) starts. */
static BF_HD uint32_t gemm_tile_wgmma_c_base(int consumer, int buffer)
{
    return GEMM_TILE_WGMMA_C_BASE + (uint32_t)(2 * consumer + buffer) * GEMM_TILE_WGMMA_C_BYTES;
}
/* Whether the narrow tile's epilogue goes through the buffers and TMA as
 * the wide one's does (1), or each thread stores its pairs itself (0). At
 * the sizes that take the narrow tile (below 2048 x 2048 of C on 132 SMs)
 * the staged epilogue is 0.86 us of a 256^3 block's 3.2 on the H100 (last
 * wgmma at 2304 ns, C read back by TMA at 3168:
 * gemm_tile/probes/timeline.cu); direct stores skip the shared-memory round
 * trip. The middle tile's (MID_STAGED) goes through them: its blocks take
 * long K or several tiles, and the staged stores were 0-6% faster
 * (probes/widths.sh). A probe sets either with -D. */
#ifndef GEMM_TILE_WGMMA_NARROW_STAGED
#define GEMM_TILE_WGMMA_NARROW_STAGED 0
#endif
#ifndef GEMM_TILE_WGMMA_MID_STAGED
#define GEMM_TILE_WGMMA_MID_STAGED 1
#endif
/* Whether a tile `bn` wide is whole 128-byte boxes of C in fp32 and fp16
 * (the 176, 168, 96 and thin tiles are not: they store C directly). */
#define GEMM_TILE_WGMMA_STAGEABLE(bn) ((bn) % 64 == 0)
/* Whether the epilogue of a tile `bn` wide goes through the buffers and
 * TMA: the wide and middle tiles' (the narrow one's where NARROW_STAGED)
 * where TMA can take C, 16-byte aligned with its rows a multiple of 16
 * bytes apart; otherwise each thread stores its pairs to global memory
 * itself (the tests take that path where M is odd: C then starts one
 * element into its allocation). */
static BF_HD int gemm_tile_wgmma_staged(uintptr_t c, int64_t n, int out_bytes, int bn)
{
    if (!GEMM_TILE_WGMMA_STAGEABLE(bn) ||
        (bn == GEMM_TILE_WGMMA_BN_NARROW && !GEMM_TILE_WGMMA_NARROW_STAGED) ||
        (bn == GEMM_TILE_WGMMA_BN_MID && !GEMM_TILE_WGMMA_MID_STAGED))
        return 0;
    return c % 16u == 0 && n * out_bytes % 16 == 0;
}

/* ---- wgmma's shared-memory matrix descriptor ---- */

/* The descriptor of a K-major operand whose first row's chunk 0 of this
 * k16 step is at `addr` (PTX ISA, "Matrix Descriptor Format"): bits 0-13 the
 * address / 16, 16-29 the leading byte offset / 16, 32-45 the stride byte
 * offset / 16, 62-63 the layout: 0 interleave, 1 128B, 2 64B, 3 32B swizzle.
 * Stride: from one 8-row core matrix to the next (8 slab rows). Leading:
 * from the k16 step's first 16-byte chunk to its second, which only the
 * interleaved layout sets (a column of `rows` x 16 B further); a swizzled
 * row holds both chunks side by side, and the field is unused (1). */
static BF_HD uint64_t gemm_tile_wgmma_desc(enum gemm_tile_variant variant, int rows, uint32_t addr)
{
    const int bits = gemm_tile_wgmma_swizzle_bits(variant);
    const uint64_t layout = bits == 0 ? 0u : 4u - (uint64_t)bits; /* 32B 3, 64B 2, 128B 1 */
    const uint64_t leading = bits == 0 ? (uint64_t)rows * 16u : 16u,
                   stride = 8u * gemm_tile_wgmma_slab_bytes(variant);
    return (uint64_t)((addr & 0x3ffffu) >> 4) | (leading >> 4) << 16 | (stride >> 4) << 32 |
           layout << 62;
}

/* Where k16 step kk of a tile's rows row0.. starts (row0 a multiple of 8, so
 * no swizzle moves it): the offset of (row0, chunk 2 kk). A step is a
 * descriptor's address moved by this much. */
static BF_HD uint32_t gemm_tile_wgmma_step_offset(enum gemm_tile_variant variant, int rows,
                                                  int row0, int kk)
{
    return gemm_tile_wgmma_offset(variant, rows, row0, 2 * kk);
}

/* The shared byte address wgmma reads for row `row` of its operand and
 * 16-byte chunk `half` (0, 1) of the k16 step, from descriptor `desc`: the
 * PTX ISA's canonical K-major layouts, ((8, m), (T, 2)) : ((W, SBO), (1,
 * LBO or 16 B)), the swizzle applied to the whole address. The model reads
 * the tiles through this; the CPU test checks that it finds every chunk
 * where gemm_tile_wgmma_offset had TMA write it. */
static BF_HD uint32_t gemm_tile_wgmma_read(uint64_t desc, int row, int half)
{
    const uint32_t start = (uint32_t)(desc & 0x3fffu) << 4,
                   leading = (uint32_t)(desc >> 16 & 0x3fffu) << 4,
                   stride = (uint32_t)(desc >> 32 & 0x3fffu) << 4;
    const int layout = (int)(desc >> 62), bits = layout == 0 ? 0 : 4 - layout;
    const uint32_t w = 16u << bits, r = (uint32_t)row, h = (uint32_t)half;
    const uint32_t at = start + r / 8u * stride + r % 8u * w + (bits == 0 ? h * leading : h * 16u);
    return bf_swizzle(bits, 4, 3, at);
}

/* ---- the grid: one block an SM, each walking tiles of C ---- */

static BF_HD int64_t gemm_tile_wgmma_tiles_m(int64_t m)
{
    return (m + GEMM_TILE_WGMMA_BM - 1) / GEMM_TILE_WGMMA_BM;
}
static BF_HD int64_t gemm_tile_wgmma_tiles_n(int64_t n, int bn)
{
    return (n + bn - 1) / bn;
}
static BF_HD int64_t gemm_tile_wgmma_tiles_k(int64_t k)
{
    return (k + GEMM_TILE_WGMMA_BK - 1) / GEMM_TILE_WGMMA_BK;
}
/* Clusters of CM x CN blocks take as many tiles: "cluster tiles" of CM x
 * 128 rows and CN x bn columns (the last ones reaching past m or n when
 * the tiles do not divide; their blocks past the edge read zeros and store
 * nothing). */
static BF_HD int64_t gemm_tile_wgmma_cluster_tiles(int64_t tiles_m, int64_t tiles_n, int cm, int cn)
{
    return (tiles_m + cm - 1) / cm * ((tiles_n + cn - 1) / cn);
}
/* Rounds of the persistent grid (sms / cluster clusters, each taking one
 * cluster tile at a time) that an m x n C takes in tiles `bn` wide. */
static BF_HD int64_t gemm_tile_wgmma_rounds(int64_t m, int64_t n, int bn, int sms)
{
    const int cluster = gemm_tile_wgmma_cluster(m, bn);
    const int64_t clusters = sms / cluster > 0 ? sms / cluster : 1,
                  tiles = gemm_tile_wgmma_cluster_tiles(
                      gemm_tile_wgmma_tiles_m(m), gemm_tile_wgmma_tiles_n(n, bn),
                      gemm_tile_wgmma_cm(m, bn), gemm_tile_wgmma_cn(m, bn));
    return (tiles + clusters - 1) / clusters;
}
/* What a tile costs an SM, for the same K, in hundredths of a wide tile's
 * time: a 128 x 176 tile does 0.69 of the wide one's work, a 128 x 128
 * half, a 128 x 64 a quarter, each at a lower rate (wgmma reads A from
 * shared memory as often for fewer columns, and each K step is less work
 * for the same barriers). Measured, a round of each against a round of
 * wide tiles: middle 0.57-0.63, narrow 0.50-0.64 (H100,
 * docs/notes/gemm_tile/middle-tile.md); the 176 tile 0.72-0.74, 0.73-0.78
 * where C's rows are not whole 16 bytes (H200,
 * docs/notes/gemm_tile/tile-widths.md); the 96 tile, at one tile row,
 * where the K loop waits on its loads, 0.96-0.99 of a middle round on the
 * H200 (28 KiB a K step against 32). The 168 tile is given the 176 tile's
 * cost, so that it takes only what the 176 tile would in as many rounds
 * (1-4% faster there: less work a tile): at a cost of its own (70, 168 /
 * 176 of 73) it took 513 x 11617 x 2560 from two launches (wide, then
 * narrow with K split) and ran 10-13% slower (H200,
 * docs/notes/gemm_tile/tile-widths.md, "A 168 tile"). */
#define GEMM_TILE_WGMMA_COST_WIDE   100
#define GEMM_TILE_WGMMA_COST_176    73
#define GEMM_TILE_WGMMA_COST_168    GEMM_TILE_WGMMA_COST_176
#define GEMM_TILE_WGMMA_COST_MID    60
#define GEMM_TILE_WGMMA_COST_96     58
#define GEMM_TILE_WGMMA_COST_NARROW 50
static BF_HD int gemm_tile_wgmma_cost(int bn)
{
    return bn == GEMM_TILE_WGMMA_BN       ? GEMM_TILE_WGMMA_COST_WIDE
           : bn == GEMM_TILE_WGMMA_BN_176 ? GEMM_TILE_WGMMA_COST_176
           : bn == GEMM_TILE_WGMMA_BN_168 ? GEMM_TILE_WGMMA_COST_168
           : bn == GEMM_TILE_WGMMA_BN_MID ? GEMM_TILE_WGMMA_COST_MID
           : bn == GEMM_TILE_WGMMA_BN_96  ? GEMM_TILE_WGMMA_COST_96
                                          : GEMM_TILE_WGMMA_COST_NARROW;
}
/* The tile's width for an m x n C on a GPU of `sms` SMs: the one whose
 * rounds times its cost are least; on a tie the later in the list below
 * (the 176 tile only where it is strictly the least, the 168 where it
 * ties with it, the narrower of the others). A narrower tile wins where
 * the wider one's tiles leave SMs idle: 512 x 4096 is 64 wide tiles (one
 * round, half the 132 SMs; cost 100), 128 middle ones (one round, 60) or
 * 256 narrow ones (two rounds, 100). The wide tile keeps what has several
 * rounds (100 a round, the middle one 120 for the same work); the narrow
 * one what has few tiles (1024^3: 128 narrow tiles, one round, 50 against
 * the middle tile's 60). The 176 and 168 tiles take what their rounds fill
 * better: 512 x 11008 is two rounds of 132 of the 168 tile's cluster tiles
 * on 66 clusters, or of 126 of the 176 tile's (146), against three middle
 * rounds (180) or two wide ones, the second 20 of 66 (200); the 168 tile
 * where it takes as many rounds as the 176 one, the 176 where the 168
 * takes a round more (257 x 11272: three against two). At one tile row
 * the middle tile runs alone, sms tiles a round: 128 x 11008 was one round
 * of 86 (60) against two narrow rounds (100), and took 29.3-30.2 us
 * against the narrow tile's 34.4-39.4 with its K split (H200). The 96 tile
 * runs alone, at one tile row and in one round only
 * (where it was measured): 8448 < N <= 12672 on 132 SMs, one round of it
 * (58) against two narrow rounds (100) or one middle round (60); 128 x
 * 11008 is 115 of its tiles where the middle tile leaves 46 SMs idle,
 * 1-4.5% faster (docs/notes/gemm_tile/tile-widths.md, "A 96 tile at one
 * tile row"). The launcher and the bank model both ask this; a probe fixes
 * the width with -D GEMM_TILE_WGMMA_FORCE_BN, and -D
 * GEMM_TILE_WGMMA_WITH_96=0 or _WITH_168=0 leaves that tile out (a
 * probe's before). */
#ifndef GEMM_TILE_WGMMA_WITH_96
#define GEMM_TILE_WGMMA_WITH_96 1
#endif
#ifndef GEMM_TILE_WGMMA_WITH_168
#define GEMM_TILE_WGMMA_WITH_168 1
#endif
static BF_HD int gemm_tile_wgmma_bn(int64_t m, int64_t n, int sms)
{
#ifdef GEMM_TILE_WGMMA_FORCE_BN
    (void)m;
    (void)n;
    (void)sms;
    return GEMM_TILE_WGMMA_FORCE_BN;
#else
    const int widths[6] = {GEMM_TILE_WGMMA_BN_176, GEMM_TILE_WGMMA_BN_168,
                           GEMM_TILE_WGMMA_BN,     GEMM_TILE_WGMMA_BN_MID,
                           GEMM_TILE_WGMMA_BN_96,  GEMM_TILE_WGMMA_BN_NARROW};
    int best = 0;
    int64_t least = 0;
    for (int i = 0; i < 6; ++i) {
        if (widths[i] == GEMM_TILE_WGMMA_BN_168 && !GEMM_TILE_WGMMA_WITH_168)
            continue;
        if (widths[i] == GEMM_TILE_WGMMA_BN_96 &&
            (!GEMM_TILE_WGMMA_WITH_96 || m > GEMM_TILE_WGMMA_BM ||
             gemm_tile_wgmma_rounds(m, n, widths[i], sms) > 1))
            continue; /* one tile row, one round: where it was measured */
        const int64_t cost =
            gemm_tile_wgmma_cost(widths[i]) * gemm_tile_wgmma_rounds(m, n, widths[i], sms);
        if (i == 0 || cost <= least) {
            best = i;
            least = cost;
        }
    }
    return widths[best];
#endif
}

/* ---- two launches: whole rounds of one tile, then the rest ----
 *
 * Where the picked tile's last round leaves SMs idle, C's first n1 columns
 * may run in whole rounds of a wide or middle tile and the rest [n1, n) in
 * a second launch, in the tile gemm_tile_wgmma_bn picks for those columns
 * alone. 4096 x 11008 on 132 SMs: 688 wide cluster tiles are 11 rounds of
 * 66 clusters, the last one 28 (cost 1100); 41 wide tile columns are 10
 * whole rounds (1000) and the other 512 columns 64 middle cluster tiles,
 * one round (60): 1060. n1 is the most columns of whole cluster tiles that
 * fill `rounds` whole rounds; taken where the two, plus what the second
 * launch itself costs, are less than one launch, else 0. That cost is
 * LAUNCH_KTILES K tiles of a wide tile: the second launch's start and the
 * first one's drain, 7-8 us on the H200 at K = 4096, about 11 of its 64 K
 * tiles (1000 x 14336 took 170-174 us in two launches, 180-196 in one,
 * before the 176 tile); 16 kept 512 x 11008 in one launch of middle tiles
 * (180 against 160 rounds' cost: 0.2 x 64 = 12.8 K tiles to gain), which ran 5-7%
 * faster than two. So a short K keeps one launch
 * (docs/notes/gemm_tile/two-launches.md; the H100 unmeasured). The
 * launcher and the bank model both ask this; -D
 * GEMM_TILE_WGMMA_TWO_LAUNCHES=0 keeps one launch. */
#ifndef GEMM_TILE_WGMMA_TWO_LAUNCHES
#define GEMM_TILE_WGMMA_TWO_LAUNCHES 1
#endif
#define GEMM_TILE_WGMMA_LAUNCH_KTILES 16
static BF_HD int64_t gemm_tile_wgmma_first_columns(int64_t m, int64_t n, int64_t k, int sms,
                                                   int *first_bn)
{
    const int bn = gemm_tile_wgmma_bn(m, n, sms);
    *first_bn = bn;
    if (!GEMM_TILE_WGMMA_TWO_LAUNCHES || m < 1 || n < 1 || k < 1)
        return 0;
    const int64_t ktiles = gemm_tile_wgmma_tiles_k(k);
    /* in hundredths of a wide tile's K tile */
    int64_t least = gemm_tile_wgmma_cost(bn) * gemm_tile_wgmma_rounds(m, n, bn, sms) * ktiles,
            n1 = 0;
    const int widths[2] = {GEMM_TILE_WGMMA_BN, GEMM_TILE_WGMMA_BN_MID};
    for (int i = 0; i < 2; ++i) {
        const int w = widths[i], cm = gemm_tile_wgmma_cm(m, w),
                  cluster = gemm_tile_wgmma_cluster(m, w);
        const int64_t clusters = sms / cluster > 0 ? sms / cluster : 1,
                      rows = (gemm_tile_wgmma_tiles_m(m) + cm - 1) / cm, /* of cluster tiles */
            rounds = rows * gemm_tile_wgmma_tiles_n(n, w * gemm_tile_wgmma_cn(m, w)) / clusters,
                      columns = rounds * clusters / rows * gemm_tile_wgmma_cn(m, w) * w;
        if (columns < 1 || columns >= n)
            continue;
        const int rest = gemm_tile_wgmma_bn(m, n - columns, sms);
        const int64_t cost =
            (gemm_tile_wgmma_cost(w) * gemm_tile_wgmma_rounds(m, columns, w, sms) +
             gemm_tile_wgmma_cost(rest) * gemm_tile_wgmma_rounds(m, n - columns, rest, sms)) *
                ktiles +
            GEMM_TILE_WGMMA_COST_WIDE * GEMM_TILE_WGMMA_LAUNCH_KTILES;
        if (cost < least) {
            least = cost;
            n1 = columns;
            *first_bn = w;
        }
    }
    return n1;
}

/* ---- split K: a cluster of two blocks on each narrow tile ----
 *
 * Where the narrow tiles leave half the SMs idle and K is long (128 x 4096
 * x 11008: 64 tiles on 132 SMs, 172 K tiles each), a cluster of two blocks
 * takes each tile, block (part) r of it K tiles [r ktiles / 2, (r + 1)
 * ktiles / 2), and all the clusters fit the SMs at once (rule below).
 * Block r then stores n8 tiles 4 r .. 4 r + 3 of C (each consumer's 64
 * rows): it pushes its partial sums of the other four into the other
 * block's epilogue buffers, which the narrow tile (storing C from
 * registers) leaves free, with st.async, each 16 bytes completing on that
 * block's "arrived" mbarrier as TMA's copies do (no fence); once the other
 * block's are in its own buffers, it adds them to its own (two terms: the
 * same bits every run) and stores. Consumer c's thread t puts float4 i at
 * 16 (128 i + t) from c's first buffer, so a warp writes and reads 512
 * contiguous bytes, 4 wavefronts, the ideal. A "drained" mbarrier (the
 * other block's 4 warps read them) frees the buffer for the next tile.
 * The split pays where each part keeps SPLIT_KTILES K tiles: on the H200,
 * M = 1 to 128 by 4096 x 4096 took 15.3-16.4 us against 18.7-19.8 without
 * (parts of 32 K tiles), by 4096 x 11008 29.1-30.4 against 40.6-44.5;
 * fewer K tiles a part were not measured (docs/notes/gemm_tile/split-k.md). */
#ifndef GEMM_TILE_WGMMA_SPLIT_KTILES
#define GEMM_TILE_WGMMA_SPLIT_KTILES 16 /* the fewest K tiles a part takes: K >= 2048 */
#endif
/* Bytes one consumer pushes into the other block: 4 float4s a thread. */
#define GEMM_TILE_WGMMA_SPLIT_BYTES (GEMM_TILE_WGMMA_BN_NARROW / 16 * 16u * 128u)
/* Whether C's narrow tiles would leave half the SMs or more idle: there
 * twice the blocks still run in one round, along K (split, K long) or
 * along N (the thin tile, K short). */
static BF_HD int gemm_tile_wgmma_narrow_half(int64_t m, int64_t n, int sms)
{
    return 2 * gemm_tile_wgmma_tiles_m(m) * gemm_tile_wgmma_tiles_n(n, GEMM_TILE_WGMMA_BN_NARROW) <=
           sms;
}
/* Blocks a narrow tile's K is split over: 2 where the tiles' clusters of
 * two all fit the SMs at once and each part keeps SPLIT_KTILES K tiles,
 * else 1; 1 for the wide and middle tiles. The launcher and the bank
 * model both ask this. */
static BF_HD int gemm_tile_wgmma_split(int64_t m, int64_t n, int64_t k, int sms)
{
    if (gemm_tile_wgmma_bn(m, n, sms) != GEMM_TILE_WGMMA_BN_NARROW)
        return 1;
    return gemm_tile_wgmma_narrow_half(m, n, sms) &&
                   gemm_tile_wgmma_tiles_k(k) >= 2 * GEMM_TILE_WGMMA_SPLIT_KTILES
               ? 2
               : 1;
}
/* ---- the thin tile: more blocks where narrow tiles leave SMs idle ----
 *
 * Where C in one launch takes narrow tiles that would leave half the SMs
 * or more idle, and their K is not split (K short), C takes tiles 32 wide
 * instead: twice as many blocks, still one round, each loading and
 * multiplying less (256^3: 8 narrow tiles, 16 thin ones; 512^3: 32 and
 * 64; 640^3: 50 and 100). Measured on the H200, fp32 and fp16 C, against
 * the narrow tile: 4-12% faster where the narrow tiles fill a quarter of
 * the SMs or fewer (256^3, 512^3, 128 x 2048 x 1024, 1 x 2112 x 1024, 300
 * x 600 x 200), 5-12% where they fill a quarter to a half (640^3, 128 x
 * 4096 x 1024, 1 x 4224 x 1024, 256 x 2048 x 512, 384 x 1408 x 1024); 16
 * wide (4 times the blocks) was level with 32 or slower
 * (docs/notes/gemm_tile/small-sizes.md, "The thin tile on the H200" and
 * "Up to half the SMs"). The thin tile runs alone, its C stored directly.
 * The launcher and the bank model both take it through
 * gemm_tile_wgmma_plan; -D GEMM_TILE_WGMMA_WITH_THIN=0 leaves it out (a
 * probe's before). */
#ifndef GEMM_TILE_WGMMA_WITH_THIN
#define GEMM_TILE_WGMMA_WITH_THIN 1
#endif
static BF_HD int gemm_tile_wgmma_thin(int64_t m, int64_t n, int64_t k, int sms, int bn)
{
#ifdef GEMM_TILE_WGMMA_FORCE_BN
    (void)m;
    (void)n;
    (void)k;
    (void)sms;
    return bn; /* a probe's fixed width */
#else
    return GEMM_TILE_WGMMA_WITH_THIN && bn == GEMM_TILE_WGMMA_BN_NARROW && m >= 1 && n >= 1 &&
                   gemm_tile_wgmma_split(m, n, k, sms) == 1 &&
                   gemm_tile_wgmma_narrow_half(m, n, sms)
               ? GEMM_TILE_WGMMA_BN_THIN
               : bn;
#endif
}
/* The launches of an m x n x k C on `sms` SMs, as the launcher makes them
 * and the bank model replays them: the first n1 columns (returned; 0: all
 * of C in one launch) in tiles *first_bn wide, the rest in the tile
 * gemm_tile_wgmma_bn picks for them; one launch takes the thin tile where
 * gemm_tile_wgmma_thin says. */
static BF_HD int64_t gemm_tile_wgmma_plan(int64_t m, int64_t n, int64_t k, int sms, int *first_bn)
{
    const int64_t n1 = gemm_tile_wgmma_first_columns(m, n, k, sms, first_bn);
    if (n1 == 0)
        *first_bn = gemm_tile_wgmma_thin(m, n, k, sms, *first_bn);
    return n1;
}
/* Part `part`'s K tiles of `split`: *first and *count of them. */
static BF_HD void gemm_tile_wgmma_split_ktiles(int64_t ktiles, int split, int part, int *first,
                                               int *count)
{
    *first = (int)(ktiles * part / split);
    *count = (int)(ktiles * (part + 1) / split) - *first;
}
/* Where consumer c's thread t puts (or finds) float4 i of the partials
 * pushed into a block; the consumer's two mbarriers. */
static BF_HD uint32_t gemm_tile_wgmma_partial(int consumer, int i, int thread)
{
    return gemm_tile_wgmma_c_base(consumer, 0) + 16u * (uint32_t)(128 * i + thread);
}
static BF_HD uint32_t gemm_tile_wgmma_split_arrived(int consumer)
{
    return GEMM_TILE_WGMMA_SPLIT_BARRIERS + 16u * (uint32_t)consumer;
}
static BF_HD uint32_t gemm_tile_wgmma_split_drained(int consumer)
{
    return gemm_tile_wgmma_split_arrived(consumer) + 8u;
}

/* The tile that the block at row rm, column rn of its cluster (rank rm +
 * CM rn) computes for cluster tile `index`, in the order the clusters take
 * them (cluster c takes c, c + clusters, ...): down
 * GEMM_TILE_WGMMA_GROUP_M tile rows, column after column, so that the
 * tiles in flight share rows of A and columns of B in L2. */
static BF_HD void gemm_tile_wgmma_tile(int64_t index, int rm, int rn, int cm, int cn,
                                       int64_t tiles_m, int64_t tiles_n, int64_t *tile_m,
                                       int64_t *tile_n)
{
    int64_t row, col;
    gemm_tile_grouped_tile(index, (tiles_m + cm - 1) / cm, (tiles_n + cn - 1) / cn,
                           GEMM_TILE_WGMMA_GROUP_M / cm, &row, &col);
    *tile_m = row * cm + rm;
    *tile_n = col * cn + rn;
}

#endif
