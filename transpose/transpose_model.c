#include "transpose/transpose_model.h"

int transpose_model_sites(enum transpose_variant variant, int elem_bytes, int64_t rows,
                          int64_t cols, int cc, struct bf_site sites[2])
{
    if (transpose_cells_launch(variant, elem_bytes, rows, cols, cc) ||
        transpose_lines_launch(variant, elem_bytes, rows, cols, cc)) {
        sites[0] = bf_site_new("cp.async 16 B to the tile (load phase)", bf_cp_async(16));
        sites[1] = bf_site_new("tile read by 16 B (store phase)", bf_ld(16));
    } else {
        const int cell = transpose_cell_bytes(variant, elem_bytes);
        sites[0] = bf_site_new("tile write (load phase)", bf_st(cell));
        sites[1] = bf_site_new("tile read (store phase)", bf_ld(cell));
    }
    return 2;
}

/* The cells kernel's tile (transpose_packed_cells): its copies, each lane's
 * byte offset in `in` (from cudaMalloc: on a 128-byte line) and its chunk's
 * place in the tile, a copy right of or below the matrix reading nothing;
 * then each warp whose chunk column is inside reads the k rows of its
 * lanes' cell rows, the lanes whose cell row is inside the matrix. */
static void model_cells_tile(int elem_bytes, int64_t rows, int64_t cols, int64_t tile_row,
                             int64_t tile_col, const struct bf_bank_rules *rules,
                             struct bf_site *copy, struct bf_site *read)
{
    const int k = transpose_pack(TRANSPOSE_PACKED, elem_bytes);
    for (int warp = 0; warp < TRANSPOSE_CELLS_THREADS / BF_WARP; ++warp) {
        for (int n = 0; n < TRANSPOSE_CELLS_COPIES; ++n) {
            uint64_t global[BF_WARP];
            uint32_t shared[BF_WARP], zero = 0;
            for (int lane = 0; lane < BF_WARP; ++lane) {
                int t, j;
                transpose_cells_copy(warp * BF_WARP + lane, n, &t, &j);
                const bool inside =
                    transpose_cells_inside(elem_bytes, rows, cols, tile_row, tile_col, t, j);
                global[lane] = inside ? (uint64_t)transpose_cells_in_byte(elem_bytes, cols,
                                                                          tile_row, tile_col, t, j)
                                      : 0;
                shared[lane] = transpose_cells_offset(elem_bytes, t, j);
                zero |= (uint32_t)!inside << lane;
            }
            bf_site_add_ldgsts(copy, global, shared, ~0u, zero);
        }
        const int j = warp;
        if (!transpose_cells_column_inside(elem_bytes, cols, tile_col, j))
            continue;
        const int cell_rows = transpose_cells_rows_inside(elem_bytes, rows, tile_row);
        for (int h = 0; h < TRANSPOSE_CELLS_ROWS / k / BF_WARP; ++h)
            for (int i = 0; i < k; ++i) {
                uint32_t addr[BF_WARP], active = 0;
                for (int lane = 0; lane < BF_WARP; ++lane) {
                    const int q = lane + BF_WARP * h;
                    addr[lane] = transpose_cells_offset(elem_bytes, k * q + i, j);
                    active |= (uint32_t)(q < cell_rows) << lane;
                }
                bf_site_add(read, rules, addr, active); /* none active: no request */
            }
    }
}

/* The lines kernel's tile (transpose_packed_lines): its copies, each
 * lane's chunk in `in` (from cudaMalloc: on a 128-byte line; zero fill, by
 * the shared line, where it reads nothing) and its place in the tile; then
 * each warp whose chunk column is inside reads chunks j and j + 1 of its
 * lanes' k rows, every lane (the 8 cell rows above the tile's own too:
 * their cells feed the shuffles). */
static void model_lines_tile(int elem_bytes, int64_t rows, int64_t cols, int64_t tile_row,
                             int64_t tile_col, const struct bf_bank_rules *rules,
                             struct bf_site *copy, struct bf_site *read)
{
    const int k = transpose_pack(TRANSPOSE_PACKED, elem_bytes);
    for (int warp = 0; warp < TRANSPOSE_CELLS_THREADS / BF_WARP; ++warp) {
        for (int n = 0; n < TRANSPOSE_LINES_COPIES; ++n) {
            uint64_t global[BF_WARP];
            uint32_t shared[BF_WARP], zero = 0;
            bool copies = false;
            for (int lane = 0; lane < BF_WARP; ++lane) {
                int t, s;
                copies = transpose_lines_copy(elem_bytes, warp * BF_WARP + lane, n, &t, &s);
                int64_t from;
                const bool inside = transpose_lines_copy_inside(elem_bytes, rows, cols, tile_row,
                                                                tile_col, t, s, 0, &from);
                const unsigned g = transpose_lines_first_chunk(
                    0, transpose_lines_row_byte_wrapped(elem_bytes, rows, cols, tile_row, tile_col,
                                                        t));
                global[lane] = inside ? (uint64_t)from : 0;
                shared[lane] = transpose_lines_offset(elem_bytes, t, s - (int)g, g);
                zero |= (uint32_t)!inside << lane;
            }
            if (copies) /* whole warps copy or not */
                bf_site_add_ldgsts(copy, global, shared, ~0u, zero);
        }
        const int j = warp;
        if (!transpose_cells_column_inside(elem_bytes, cols, tile_col, j))
            continue;
        for (int i = 0; i < k; ++i)
            for (int half = 0; half < 2; ++half) {
                uint32_t addr[BF_WARP];
                for (int lane = 0; lane < BF_WARP; ++lane) {
                    const unsigned row_byte = (unsigned)transpose_lines_row_byte_wrapped(
                        elem_bytes, rows, cols, tile_row, tile_col, k * lane + i);
                    addr[lane] = transpose_lines_chunk(elem_bytes, lane, i, row_byte, j + half);
                }
                bf_site_add(read, rules, addr, ~0u);
            }
    }
}

void transpose_model_tile(enum transpose_variant variant, int elem_bytes, int64_t rows,
                          int64_t cols, int out_phase, int64_t tile_row, int64_t tile_col,
                          const struct bf_bank_rules *rules, struct bf_site *write,
                          struct bf_site *read)
{
    if (transpose_cells_launch(variant, elem_bytes, rows, cols, rules->cc)) {
        model_cells_tile(elem_bytes, rows, cols, tile_row, tile_col, rules, write, read);
        return;
    }
    if (transpose_lines_launch(variant, elem_bytes, rows, cols, rules->cc)) {
        model_lines_tile(elem_bytes, rows, cols, tile_row, tile_col, rules, write, read);
        return;
    }
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

/* Tile row r of the lines kernel's grid, counted `times`: every tile
 * column but the last two alike (only those may copy past the end of `in`;
 * the last may lie partly outside the matrix), so column 0 for them. */
static void model_lines_row(int elem_bytes, int64_t rows, int64_t cols, int64_t r, int64_t times,
                            const struct bf_bank_rules *rules, struct bf_site sites[2])
{
    const int64_t grid_c = transpose_cells_tile_cols(elem_bytes, cols);
    for (int64_t c = 0; c < grid_c; c = c < grid_c - 2 ? grid_c - 2 : c + 1) {
        struct bf_site one[2];
        transpose_model_sites(TRANSPOSE_PACKED, elem_bytes, rows, cols, rules->cc, one);
        model_lines_tile(elem_bytes, rows, cols, r, c, rules, &one[0], &one[1]);
        const int64_t across = c == 0 && grid_c > 2 ? grid_c - 2 : 1;
        bf_site_merge(&sites[0], &one[0], (uint64_t)(times * across));
        bf_site_merge(&sites[1], &one[1], (uint64_t)(times * across));
    }
}

/* The lines kernel's grid. Its copies start each tile row at that row's
 * own place in a 128-byte line of `in`, so down the grid: the edge rows
 * (the first, those near the last row: transpose_lines_edge) one by one,
 * the others by where their first row starts in its line (at most 128
 * kinds; 4 where a row is an odd number of bytes), one of each kind
 * replayed. */
static void model_lines(int elem_bytes, int64_t rows, int64_t cols,
                        const struct bf_bank_rules *rules, struct bf_site sites[2])
{
    int64_t first[128], count[128] = {0};
    for (int64_t r = 0; r < transpose_lines_tile_rows(elem_bytes, rows); ++r) {
        if (transpose_lines_edge(elem_bytes, rows, cols, r, 0)) {
            model_lines_row(elem_bytes, rows, cols, r, 1, rules, sites);
            continue;
        }
        const int64_t at = transpose_lines_row_byte(elem_bytes, cols, r, 0, 0) % 128;
        const int key = (int)(at < 0 ? at + 128 : at);
        if (count[key]++ == 0)
            first[key] = r;
    }
    for (int key = 0; key < 128; ++key)
        if (count[key] > 0)
            model_lines_row(elem_bytes, rows, cols, first[key], count[key], rules, sites);
}

int transpose_model(int variant, int elem_bytes, const struct bf_size *size,
                    const struct bf_bank_rules *rules, struct bf_site sites[BF_MAX_SITES])
{
    const enum transpose_variant v = (enum transpose_variant)variant;
    const int64_t rows = size->dim[0], cols = size->dim[1];
    if (v == TRANSPOSE_NAIVE || transpose_refusal_elem(v, elem_bytes, rows, cols) != NULL)
        return 0; /* no shared memory, or no launch */
    transpose_model_sites(v, elem_bytes, rows, cols, rules->cc, sites);
    if (transpose_lines_launch(v, elem_bytes, rows, cols, rules->cc)) {
        model_lines(elem_bytes, rows, cols, rules, sites);
        return 2;
    }
    const int out_phase = 0; /* `out` from cudaMalloc starts on a sector */
    /* The grid in tile rows and tile columns (the cells kernel's tile: 128
     * rows x 256 bytes; each of its rows starts at the same place in its
     * 128-byte line in every tile, so the same holds for it). */
    const bool cells = transpose_cells_launch(v, elem_bytes, rows, cols, rules->cc);
    const int64_t height = cells ? TRANSPOSE_CELLS_ROWS : transpose_tile_height(v, elem_bytes);
    const int64_t full_r = rows / height;
    const int64_t grid_r = cells ? transpose_cells_tile_rows(rows)
                                 : transpose_grid_rows(v, elem_bytes, rows, out_phase);
    const int64_t full_c = cells ? cols * elem_bytes / (16 * TRANSPOSE_CELLS_CHUNKS)
                                 : cols / transpose_tile_width(v, elem_bytes);
    const int edge_c = cells ? full_c < transpose_cells_tile_cols(elem_bytes, cols)
                             : cols % transpose_tile_width(v, elem_bytes) != 0;

    /* A tile's requests depend only on which of its rows and columns lie
     * inside the matrix (the output rows' phases are the same in every tile:
     * a tile spans a multiple of a sector's elements both ways). Down the
     * grid: the first tile row (which may read rows above the matrix), the
     * interior rows 1 ... full_r - 1, and the rows from full_r on (the edge,
     * and the row the rows above may add); across: whole tiles and the right edge.
     * Replay one of each kind and count it as many times as the grid has it. */
    const int64_t interior = full_r > 1 ? full_r - 1 : 0;
    for (int64_t tile_row = 0; tile_row < grid_r;
         tile_row = tile_row == 1 && interior > 0 ? full_r : tile_row + 1) {
        const int64_t count = tile_row == 1 && interior > 0 ? interior : 1;
        for (int right = 0; right <= edge_c; ++right) {
            const int64_t across = right ? 1 : full_c;
            if (across == 0)
                continue;
            struct bf_site one[2];
            transpose_model_sites(v, elem_bytes, rows, cols, rules->cc, one);
            transpose_model_tile(v, elem_bytes, rows, cols, out_phase, tile_row, right ? full_c : 0,
                                 rules, &one[0], &one[1]);
            bf_site_merge(&sites[0], &one[0], (uint64_t)(count * across));
            bf_site_merge(&sites[1], &one[1], (uint64_t)(count * across));
        }
    }
    return 2;
}
