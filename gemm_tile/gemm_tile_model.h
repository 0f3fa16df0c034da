/* The GEMM kernels' shared-memory accesses, replayed through the bank model
 * with the kernels' own address functions: for the mma.sync path
 * (gemm_tile_layout.h) every cp.async that fills a tile and every
 * ldmatrix.x4 that reads one; for the wgmma path (gemm_tile_wgmma_layout.h)
 * every TMA box that fills a tile and every wgmma's two operands, read
 * through the descriptors the kernel builds. */
#ifndef BANKFREE_GEMM_TILE_MODEL_H
#define BANKFREE_GEMM_TILE_MODEL_H

#include <stdint.h>

#include "common/bank_model.h"
#include "common/size.h"
#include "gemm_tile/gemm_tile_layout.h"
#include "gemm_tile/gemm_tile_wgmma_layout.h"

/* The sites of a launch, in this order. */
enum gemm_tile_site {
    GEMM_TILE_SITE_COPY_A, /* cp.async 16 B global -> A tile (op ldgsts) */
    GEMM_TILE_SITE_COPY_B, /* cp.async 16 B global -> B tile (op ldgsts) */
    GEMM_TILE_SITE_LDSM_A, /* ldmatrix.x4, A fragments */
    GEMM_TILE_SITE_LDSM_B, /* ldmatrix.x4, B fragments */
    GEMM_TILE_SITES
};
/* The wgmma path's sites, in this order. */
enum gemm_tile_wgmma_site {
    GEMM_TILE_SITE_TMA_A,       /* TMA boxes into the A tile (op tma) */
    GEMM_TILE_SITE_TMA_B,       /* TMA boxes into the B tile (op tma) */
    GEMM_TILE_SITE_WGMMA_A,     /* wgmma.m64n256k16 reading A: 64 rows x 32 B, 16 core matrices */
    GEMM_TILE_SITE_WGMMA_B,     /* and B: 256 rows x 32 B, 64 core matrices (op gmma) */
    GEMM_TILE_SITE_C_STAGE,     /* the epilogue: C's pairs into a swizzled buffer (op st) */
    GEMM_TILE_SITE_C_TMA,       /* and TMA's stores of the buffers to C (op tma) */
    GEMM_TILE_SITE_SPLIT_STORE, /* split K: partials into the other block (op stas) */
    GEMM_TILE_SITE_SPLIT_READ,  /* and the other block's read from this one's buffer (op ld) */
    GEMM_TILE_WGMMA_SITES
};

/* Adds what one block does for one K tile on the wgmma path, for an m-row
 * C in tiles bn (256, 176, 168, 128, 96, 64 or 32) columns wide (its cluster
 * and A boxes: gemm_tile_wgmma_cm, gemm_tile_wgmma_a_load_rows): the
 * producer's TMA boxes (gemm_tile_wgmma_slabs of its share of A and as
 * many of B, each written into every block that shares the tile) and each
 * consumer warpgroup's GEMM_TILE_WGMMA_KK wgmma, each operand's core
 * matrices at the addresses wgmma finds through the kernel's descriptors
 * (gemm_tile_wgmma_read). */
void gemm_tile_model_wgmma_ktile(enum gemm_tile_variant variant, int64_t m, int bn, int stage,
                                 const struct bf_bank_rules *rules,
                                 struct bf_site sites[GEMM_TILE_WGMMA_SITES]);

/* Adds what one block does to store one tile (bn columns) through the staging buffers
 * (C of `out_bytes` a value): each consumer warp's stores of its pairs, at
 * gemm_tile_wgmma_c_offset, and the TMA stores, one a box. */
void gemm_tile_model_wgmma_epilogue(int out_bytes, int bn, const struct bf_bank_rules *rules,
                                    struct bf_site sites[GEMM_TILE_WGMMA_SITES]);

/* Adds what one block of a cluster of two does for split K's epilogue on
 * one tile: each consumer warp's st.async of its partials into the other
 * block and its reads of the other block's (gemm_tile_wgmma_partial). */
void gemm_tile_model_wgmma_split(const struct bf_bank_rules *rules,
                                 struct bf_site sites[GEMM_TILE_WGMMA_SITES]);

/* Empty sites, named and typed. */
void gemm_tile_model_sites(struct bf_site sites[GEMM_TILE_SITES]);

/* Where a block's copies read: the problem (m x n x k), the block's first row
 * of A (row0) and of B's columns (col0), the K tile kt, and the block's tile
 * (bn columns: gemm_tile_bn). Rows past m or n
 * and K past k are zero-fill copies (they read nothing). Global addresses are
 * taken from 128-byte aligned A and B (cudaMalloc's are). */
struct gemm_tile_block_at {
    int64_t m, n, k, row0, col0, kt;
    int bn; /* the block's tile: GEMM_TILE_BN or GEMM_TILE_BN_NARROW columns */
};

/* Adds what every warp of one block does for one K tile held in stage
 * `stage`: GEMM_TILE_COPIES_A_OF(bn) cp.async for A and _B_OF(bn) for B a thread (counted
 * by bf_site_add_ldgsts: global lines and shared segments, as the H100 serves
 * them), and GEMM_TILE_KK x (GEMM_TILE_MI + GEMM_TILE_NJ) ldmatrix.x4 a warp. */
void gemm_tile_model_ktile(enum gemm_tile_variant variant, int stage,
                           const struct gemm_tile_block_at *at, const struct bf_bank_rules *rules,
                           struct bf_site sites[GEMM_TILE_SITES]);

/* The sites of one launch of m x n x k with C of out_bytes (4: fp32, 2:
 * fp16), in the tile the launcher picks for the rules' SMs (gemm_tile_bn;
 * gemm_tile_wgmma_plan). mma.sync: blocks differ only at the edges (the
 * last block row and column zero-fill past m and n) and K tiles only in the
 * last one (zero-fill past k), so up to four kinds of block and two K tiles
 * are replayed and counted as often as they occur. wgmma: every tile and K
 * tile is alike (TMA writes whole boxes, zeros past the edges, and wgmma
 * reads whole tiles), so one K tile and one epilogue are replayed and
 * counted as often as the blocks run them: CM x CN tiles a cluster tile (a
 * block past m or n runs like the others) and the epilogue through the
 * buffers where C's rows allow TMA (gemm_tile_wgmma_staged; C from
 * cudaMalloc). A k the launcher refuses (not a positive multiple of 8) or
 * m, n < 1: the sites with no request. Returns the number of sites. */
int gemm_tile_model_launch(enum gemm_tile_variant variant, int64_t m, int64_t n, int64_t k,
                           int out_bytes, const struct bf_bank_rules *rules,
                           struct bf_site sites[BF_MAX_SITES]);

#endif
