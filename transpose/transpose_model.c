#include "transpose/transpose_model.h"

void transpose_model_tile(enum transpose_variant variant, int elem_bytes, int64_t rows,
                          int64_t cols, int64_t tile_row, int64_t tile_col,
                          const struct bf_bank_rules *rules, struct bf_site *write,
                          struct bf_site *read)
{
    const struct transpose_tile t =
        transpose_tile_at(variant, elem_bytes, rows, cols, tile_row, tile_col);
    /* blockDim.x is 32, so warp w of the block is the threads with ty == w. */
    for (int warp = 0; warp < TRANSPOSE_BLOCK_ROWS; ++warp)
        for (int k = 0; k < transpose_steps(variant, elem_bytes); ++k) {
            /* Every lane writes the tile; only lanes inside the matrix read it. */
            uint32_t waddr[BF_WARP], raddr[BF_WARP], wmask = ~0u, rmask = 0;
            for (int lane = 0; lane < BF_WARP; ++lane) {
                struct transpose_move m =
                    transpose_load_move(variant, elem_bytes, &t, lane, warp, k);
                waddr[lane] = m.smem;
                m = transpose_store_move(variant, elem_bytes, &t, lane, warp, k);
                raddr[lane] = m.smem;
                rmask |= (uint32_t)m.active << lane;
            }
            bf_site_add(write, rules, waddr, wmask);
            bf_site_add(read, rules, raddr, rmask);
        }
}

int transpose_model(int variant, int elem_bytes, const struct bf_size *size,
                    const struct bf_bank_rules *rules, struct bf_site sites[BF_MAX_SITES])
{
    const enum transpose_variant v = (enum transpose_variant)variant;
    const int64_t rows = size->dim[0], cols = size->dim[1];
    if (v == TRANSPOSE_NAIVE || transpose_refusal_elem(v, elem_bytes, rows, cols) != NULL)
        return 0; /* no shared memory, or no launch */
    const int64_t height = transpose_tile_height(v, elem_bytes);
    const int64_t width = transpose_tile_width(v, elem_bytes);
    const int64_t full_r = rows / height, full_c = cols / width;
    const int edge_r = rows % height != 0, edge_c = cols % width != 0;
    const int cell = transpose_cell_bytes(v, elem_bytes);
    sites[0] = bf_site_new("tile write (load phase)", bf_st(cell));
    sites[1] = bf_site_new("tile read (store phase)", bf_ld(cell));

    /* A tile's requests depend only on how many of its rows and columns lie
     * inside the matrix, so there are at most four kinds of tile: interior,
     * bottom edge, right edge and the corner. Replay one of each and count it
     * as many times as the grid has it. */
    const struct {
        int64_t tile_row, tile_col, count;
    } kinds[4] = {
        {0, 0, full_r * full_c},
        {full_r, 0, edge_r * full_c},
        {0, full_c, full_r * edge_c},
        {full_r, full_c, edge_r * edge_c},
    };
    for (int k = 0; k < 4; ++k) {
        if (kinds[k].count == 0)
            continue;
        struct bf_site one[2] = {bf_site_new(sites[0].name, sites[0].access),
                                 bf_site_new(sites[1].name, sites[1].access)};
        transpose_model_tile(v, elem_bytes, rows, cols, kinds[k].tile_row, kinds[k].tile_col, rules,
                             &one[0], &one[1]);
        bf_site_merge(&sites[0], &one[0], (uint64_t)kinds[k].count);
        bf_site_merge(&sites[1], &one[1], (uint64_t)kinds[k].count);
    }
    return 2;
}
