/* The order in which both GEMM kernels' blocks take tiles of C (the
 * mma.sync grid through gemm_tile_layout.h, the wgmma clusters through
 * gemm_tile_wgmma_layout.h), here alone so that each path copies without
 * the other's layout. */
#ifndef BANKFREE_GEMM_TILE_GROUPED_ORDER_H
#define BANKFREE_GEMM_TILE_GROUPED_ORDER_H

#include <stdint.h>

#include "common/hostdev.h"

/* Tile `index` of a tiles_m x tiles_n grid of tiles in "grouped" order: down
 * `group` rows of tiles, column after column. Blocks run roughly in order, a
 * wave at a time; taken row by row, a wave would read a few rows of A tiles
 * and every column of B. Grouped, a wave reads about as many rows as
 * columns, and fetches fewer bytes from DRAM for the same multiplies
 * (Triton's "grouped ordering", OpenAI Triton tutorial "Matrix
 * Multiplication"). */
static BF_HD void gemm_tile_grouped_tile(int64_t index, int64_t tiles_m, int64_t tiles_n,
                                         int64_t group, int64_t *tile_m, int64_t *tile_n)
{
    const int64_t group_tiles = group * tiles_n, first = index / group_tiles * group;
    const int64_t rows = tiles_m - first < group ? tiles_m - first : group;
    const int64_t in_group = index % group_tiles;
    *tile_m = first + in_group % rows;
    *tile_n = in_group / rows;
}

#endif
