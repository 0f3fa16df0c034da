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

/* Empty sites, named and typed. cp.async's 16-byte shared writes are given
 * the rule of a 16-byte store (served by quarter-warps): the bank model has
 * no op of its own for them, and that rule is not yet measured for cp.async
 * on the H100 (gemm_tile/README.md). */
void gemm_tile_model_sites(struct bf_site sites[GEMM_TILE_SITES]);

/* Adds what every warp of one block does for one K tile held in stage
 * `stage`: GEMM_TILE_COPIES cp.async for A and as many for B a thread, and
 * GEMM_TILE_KK x (GEMM_TILE_MI + GEMM_TILE_NJ) ldmatrix.x4 a warp. */
void gemm_tile_model_ktile(enum gemm_tile_variant variant, int stage,
                           const struct bf_bank_rules *rules,
                           struct bf_site sites[GEMM_TILE_SITES]);

/* The sites of one launch of m x n x k. Every block issues the same copies
 * (those past the edges of A and B copy zeros: cp.async with a source size
 * of 0) and the same ldmatrix for every K tile, so one block is replayed K
 * tile by K tile and counted once a block. A k the launcher refuses (not a
 * positive multiple of 8) or m, n < 1: the sites with no request. Returns
 * the number of sites. */
int gemm_tile_model_launch(enum gemm_tile_variant variant, int64_t m, int64_t n, int64_t k,
                           const struct bf_bank_rules *rules, struct bf_site sites[BF_MAX_SITES]);

#endif
