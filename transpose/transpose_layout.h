/* Where the transpose kernels put each element in shared memory.
 *
 * A block of 32 x TRANSPOSE_BLOCK_ROWS threads moves one 32 x 32 tile: in the
 * load phase, row r of the tile is read from global memory along its length and
 * written to the tile (lane = column), and in the store phase column c of the
 * tile is read (lane = row) and written along output row c. The kernels in
 * transpose.cu call these functions for every shared access, and the bank
 * model calls the very same functions for every lane of every warp. */
#ifndef BANKFREE_TRANSPOSE_LAYOUT_H
#define BANKFREE_TRANSPOSE_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/hostdev.h"

#define TRANSPOSE_TILE       32
#ifndef TRANSPOSE_BLOCK_ROWS
#define TRANSPOSE_BLOCK_ROWS 8 /* each thread moves 32 / 8 = 4 elements a phase */
#endif
#define TRANSPOSE_STEPS      (TRANSPOSE_TILE / TRANSPOSE_BLOCK_ROWS)
#define TRANSPOSE_TILE_WORDS (TRANSPOSE_TILE * (TRANSPOSE_TILE + 1)) /* room for the padded tile */

enum transpose_layout {
    TRANSPOSE_ROW_MAJOR, /* tile[32][32]: a column is 32 words in one bank */
    TRANSPOSE_PADDED,    /* tile[32][33]: row stride 33 is odd, a column spans all banks */
    TRANSPOSE_SWIZZLED   /* tile[32][32], column c of row r stored at c ^ r */
};

/* Word offset of logical tile element (row, col). The only line that differs
 * between the conflicting kernel and its fixes. */
static BF_HD uint32_t transpose_tile_offset(enum transpose_layout layout, int row, int col)
{
    switch (layout) {
    case TRANSPOSE_PADDED:
        return (uint32_t)(row * (TRANSPOSE_TILE + 1) + col);
    case TRANSPOSE_SWIZZLED:
        return (uint32_t)(row * TRANSPOSE_TILE + (col ^ row)); /* CuTe's Swizzle<5,0,5> */
    case TRANSPOSE_ROW_MAJOR:
    default:
        return (uint32_t)(row * TRANSPOSE_TILE + col);
    }
}

/* One element that thread (tx, ty) moves in step k of a phase. */
struct transpose_move {
    int64_t global; /* element offset in the global array read or written */
    uint32_t smem;  /* word offset in the tile */
    bool active;    /* inside the matrix: edge tiles leave some threads idle */
};

/* Load phase: in[r][c] (rows x cols) goes to logical tile element (r % 32, c % 32). */
static BF_HD struct transpose_move transpose_load_move(enum transpose_layout layout, int64_t rows,
                                                       int64_t cols, int64_t tile_row,
                                                       int64_t tile_col, int tx, int ty, int k)
{
    int r = ty + k * TRANSPOSE_BLOCK_ROWS, c = tx;
    int64_t gr = tile_row * TRANSPOSE_TILE + r, gc = tile_col * TRANSPOSE_TILE + c;
    struct transpose_move m;
    m.global = gr * cols + gc;
    m.smem = transpose_tile_offset(layout, r, c);
    m.active = gr < rows && gc < cols;
    return m;
}

/* Store phase: out[c][r] (cols x rows) takes logical tile element (r % 32, c % 32),
 * so the tile is read down a column. */
static BF_HD struct transpose_move transpose_store_move(enum transpose_layout layout, int64_t rows,
                                                        int64_t cols, int64_t tile_row,
                                                        int64_t tile_col, int tx, int ty, int k)
{
    int oc = tx, orow = ty + k * TRANSPOSE_BLOCK_ROWS; /* position in the output tile */
    int64_t gr = tile_col * TRANSPOSE_TILE + orow, gc = tile_row * TRANSPOSE_TILE + oc;
    struct transpose_move m;
    m.global = gr * rows + gc;
    m.smem = transpose_tile_offset(layout, oc, orow);
    m.active = gr < cols && gc < rows;
    return m;
}

#endif
