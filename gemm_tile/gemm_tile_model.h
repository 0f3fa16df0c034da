/* The GEMM kernels' shared-memory accesses, replayed through the bank model
 * with the kernels' own address functions (gemm_tile_layout.h): every
 * cp.async that fills a tile and every ldmatrix.x4 that reads one. */
#ifndef BANKFREE_GEMM_TILE_MODEL_H
#define BANKFREE_GEMM_TILE_MODEL_H

#include <stdint.h>

#include "common/registry.h"
#include "gemm_tile/gemm_tile_layout.h"

/* The sites of a launch, in this order. */
enum gemm_tile_site {
    GEMM_TILE_SITE_COPY_A, /* cp.async 16 B global -> A tile (op ldgsts) */
    GEMM_TILE_SITE_COPY_B, /* cp.async 16 B global -> B tile (op ldgsts) */
    GEMM_TILE_SITE_LDSM_A, /* ldmatrix.x4, A fragments */
    GEMM_TILE_SITE_LDSM_B, /* ldmatrix.x4, B fragments */
    GEMM_TILE_SITES
};

/* Empty sites, named and typed. */
void gemm_tile_model_sites(struct bf_site sites[GEMM_TILE_SITES]);

/* Where a block's copies read: the problem (m x n x k), the block's first row
 * of A (row0) and of B's columns (col0), and the K tile kt. Rows past m or n
 * and K past k are zero-fill copies (they read nothing). Global addresses are
 * taken from 128-byte aligned A and B (cudaMalloc's are). */
struct gemm_tile_block_at {
    int64_t m, n, k, row0, col0, kt;
};

/* Adds what every warp of one block does for one K tile held in stage
 * `stage`: GEMM_TILE_COPIES_A cp.async for A and _B for B a thread (counted
 * by bf_site_add_ldgsts: global lines and shared segments, as the H100 serves
 * them), and GEMM_TILE_KK x (GEMM_TILE_MI + GEMM_TILE_NJ) ldmatrix.x4 a warp. */
void gemm_tile_model_ktile(enum gemm_tile_variant variant, int stage,
                           const struct gemm_tile_block_at *at, const struct bf_bank_rules *rules,
                           struct bf_site sites[GEMM_TILE_SITES]);

/* The sites of one launch of m x n x k. Blocks differ only at the edges (the
 * last block row and column zero-fill past m and n) and K tiles only in the
 * last one (zero-fill past k), so up to four kinds of block and two K tiles
 * are replayed and counted as often as they occur. A k the launcher refuses
 * (not a positive multiple of 8) or m, n < 1: the sites with no request.
 * Returns the number of sites. */
int gemm_tile_model_launch(enum gemm_tile_variant variant, int64_t m, int64_t n, int64_t k,
                           const struct bf_bank_rules *rules, struct bf_site sites[BF_MAX_SITES]);

#endif
