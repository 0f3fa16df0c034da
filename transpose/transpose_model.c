#include "transpose/transpose_model.h"

void transpose_model_tile(enum transpose_variant variant, int elem_bytes, int64_t rows,
                          int64_t cols, int out_phase, int64_t tile_row, int64_t tile_col,
                          const struct bf_bank_rules *rules, struct bf_site *write,
                          struct bf_site *read)
{
    const struct transpose_tile t =
        transpose_tile_at(variant, elem_bytes, rows, cols, out_phase, tile_row, tile_col);
    /* blockDim.x is 32, so warp w of the block is the threads with ty == w. */
    for (int warp = 0; warp < TRANSPOSE_BLOCK_ROWS; ++warp) {
        /* Every lane of a step that exists writes the tile. */
        for (int k = 0; k < transpose_load_steps(variant, elem_bytes); ++k) {
            uint32_t waddr[BF_WARP];
            bool exists = false;
            for (int lane = 0; lane < BF_WARP; ++lane) {
                struct transpose_move m =
                    transpose_load_move(variant, elem_bytes, &t, lane, warp, k);
                waddr[lane] = m.smem;
                exists = m.exists; /* the same in every lane */
            }
            if (exists)
                bf_site_add(write, rules, waddr, ~0u);
        }
        /* Only lanes inside the matrix read it. */
        for (int k = 0; k < transpose_steps(variant, elem_bytes); ++k) {
            uint32_t raddr[BF_WARP], rmask = 0;
            for (int lane = 0; lane < BF_WARP; ++lane) {
                struct transpose_move m =
                    transpose_store_move(variant, elem_bytes, &t, lane, warp, k);
                raddr[lane] = m.smem;
                rmask |= (uint32_t)m.active << lane;
            }
            bf_site_add(read, rules, raddr, rmask);
        }
    }
}

int transpose_model(int variant, int elem_bytes, const struct bf_size *size,
                    const struct bf_bank_rules *rules, struct bf_site sites[BF_MAX_SITES])
{
    const enum transpose_variant v = (enum transpose_variant)variant;
    const int64_t rows = size->dim[0], cols = size->dim[1];
    if (v == TRANSPOSE_NAIVE || transpose_refusal_elem(v, elem_bytes, rows, cols) != NULL)
        return 0;            /* no shared memory, or no launch */
    const int out_phase = 0; /* `out` from cudaMalloc starts on a sector */
    const int64_t height = transpose_tile_height(v, elem_bytes);
    const int64_t width = transpose_tile_width(v, elem_bytes);
    const int64_t full_r = rows / height, full_c = cols / width;
    const int64_t grid_r = transpose_grid_rows(v, elem_bytes, rows, out_phase);
    const int edge_c = cols % width != 0;
    const int cell = transpose_cell_bytes(v, elem_bytes);
    sites[0] = bf_site_new("tile write (load phase)", bf_st(cell));
    sites[1] = bf_site_new("tile read (store phase)", bf_ld(cell));

    /* A tile's requests depend only on which of its rows and columns lie
     * inside the matrix (the output rows' shifts are the same in every tile:
     * a tile spans a multiple of a sector's elements both ways). Down the
     * grid: the first tile row (which may read rows above the matrix), the
     * interior rows 1 ... full_r - 1, and the rows from full_r on (the edge,
     * and the row the shift may add); across: whole tiles and the right edge.
     * Replay one of each kind and count it as many times as the grid has it. */
    const int64_t interior = full_r > 1 ? full_r - 1 : 0;
    for (int64_t tile_row = 0; tile_row < grid_r;
         tile_row = tile_row == 1 && interior > 0 ? full_r : tile_row + 1) {
        const int64_t count = tile_row == 1 && interior > 0 ? interior : 1;
        for (int right = 0; right <= edge_c; ++right) {
            const int64_t across = right ? 1 : full_c;
            if (across == 0)
                continue;
            struct bf_site one[2] = {bf_site_new(sites[0].name, sites[0].access),
                                     bf_site_new(sites[1].name, sites[1].access)};
            transpose_model_tile(v, elem_bytes, rows, cols, out_phase, tile_row, right ? full_c : 0,
                                 rules, &one[0], &one[1]);
            bf_site_merge(&sites[0], &one[0], (uint64_t)(count * across));
            bf_site_merge(&sites[1], &one[1], (uint64_t)(count * across));
        }
    }
    return 2;
}
