#include "transpose/transpose_model.h"

#include "transpose/transpose.h"

void transpose_model_tile(enum transpose_layout layout, int64_t rows, int64_t cols,
                          int64_t tile_row, int64_t tile_col, const struct bf_bank_rules *rules,
                          struct bf_site *write, struct bf_site *read)
{
    const struct transpose_tile t = transpose_tile_at(rows, cols, tile_row, tile_col);
    /* blockDim.x is 32, so warp w of the block is the threads with ty == w. */
    for (int warp = 0; warp < TRANSPOSE_BLOCK_ROWS; ++warp)
        for (int k = 0; k < TRANSPOSE_STEPS; ++k) {
            /* Every lane writes the tile; only lanes inside the matrix read it. */
            uint32_t waddr[BF_WARP], raddr[BF_WARP], wmask = ~0u, rmask = 0;
            for (int lane = 0; lane < BF_WARP; ++lane) {
                struct transpose_move m = transpose_load_move(layout, &t, lane, warp, k);
                waddr[lane] = m.smem * 4;
                m = transpose_store_move(layout, &t, lane, warp, k);
                raddr[lane] = m.smem * 4;
                rmask |= (uint32_t)m.active << lane;
            }
            bf_site_add(write, rules, waddr, wmask);
            bf_site_add(read, rules, raddr, rmask);
        }
}

int transpose_model(int variant, const struct bf_size *size, const struct bf_bank_rules *rules,
                    struct bf_site sites[BF_MAX_SITES])
{
    enum transpose_layout layout;
    switch (variant) {
    case TRANSPOSE_CONFLICTING:
        layout = TRANSPOSE_ROW_MAJOR;
        break;
    case TRANSPOSE_PADDED_TILE:
        layout = TRANSPOSE_PADDED;
        break;
    case TRANSPOSE_SWIZZLED_TILE:
        layout = TRANSPOSE_SWIZZLED;
        break;
    default:
        return 0; /* the naive kernel has no shared memory */
    }
    int64_t rows = size->dim[0], cols = size->dim[1];
    int64_t tiles_r = (rows + TRANSPOSE_TILE_ROWS - 1) / TRANSPOSE_TILE_ROWS;
    int64_t tiles_c = (cols + TRANSPOSE_TILE_COLS - 1) / TRANSPOSE_TILE_COLS;
    int64_t full_r = rows / TRANSPOSE_TILE_ROWS, full_c = cols / TRANSPOSE_TILE_COLS;
    struct bf_site empty[2] = {{"tile write (load phase)", bf_st(4), 0, 0, 0, 0},
                               {"tile read (store phase)", bf_ld(4), 0, 0, 0, 0}};
    sites[0] = empty[0];
    sites[1] = empty[1];

    /* Every tile inside the matrix issues the same requests (the offsets do not
     * depend on where the tile is), so replay one and count it for all. */
    if (full_r > 0 && full_c > 0) {
        struct bf_site one[2] = {empty[0], empty[1]};
        transpose_model_tile(layout, rows, cols, 0, 0, rules, &one[0], &one[1]);
        bf_site_merge(&sites[0], &one[0], (uint64_t)(full_r * full_c));
        bf_site_merge(&sites[1], &one[1], (uint64_t)(full_r * full_c));
    }
    /* Tiles on the right and bottom edges read less of the tile: replay each. */
    for (int64_t tr = 0; tr < tiles_r; ++tr)
        for (int64_t tc = tr < full_r ? full_c : 0; tc < tiles_c; ++tc)
            transpose_model_tile(layout, rows, cols, tr, tc, rules, &sites[0], &sites[1]);
    return 2;
}
