/* Where the transpose kernels put each element in shared memory.
 *
 * A block of 32 x TRANSPOSE_BLOCK_ROWS threads moves one tile of 64 input rows
 * by 32 input columns. In the load phase each warp reads a tile row along the
 * input (lane = column) and writes it into the tile; in the store phase each
 * warp reads 32 rows of one tile column (lane = row) and writes them along an
 * output row. Each output row gets 64 consecutive floats, 256 bytes, from one
 * warp: when output rows do not start on a 32-byte sector, only the sectors at
 * the two ends are shared with the next block.
 *
 * The kernels in transpose.cu call these functions for every shared access,
 * and the bank model calls the very same functions for every lane of every
 * warp, so the model cannot drift from the code. */
#ifndef BANKFREE_TRANSPOSE_LAYOUT_H
#define BANKFREE_TRANSPOSE_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/hostdev.h"

/* A tile is 64 input rows (one output row segment) by 32 input columns (one
 * warp); threads are 32 x 16, so each moves 4 elements a phase, and an output
 * row takes 2 warp-wide stores. The padded tile needs the most words. */
#define TRANSPOSE_TILE_ROWS  64
#define TRANSPOSE_TILE_COLS  32
#define TRANSPOSE_BLOCK_ROWS 16
#define TRANSPOSE_STEPS      (TRANSPOSE_TILE_ROWS / TRANSPOSE_BLOCK_ROWS)
#define TRANSPOSE_HALVES     (TRANSPOSE_TILE_ROWS / 32)
#define TRANSPOSE_TILE_WORDS (TRANSPOSE_TILE_ROWS * (TRANSPOSE_TILE_COLS + 1))

enum transpose_layout {
    TRANSPOSE_ROW_MAJOR, /* tile[64][32]: a column lies in one bank */
    TRANSPOSE_PADDED,    /* tile[64][33]: row stride 33 is odd, a column spans all banks */
    TRANSPOSE_SWIZZLED   /* tile[64][32], column c of row r stored at c ^ (r % 32) */
};

/* Word offset of logical tile element (row, col). The only line that differs
 * between the conflicting kernel and its two fixes. */
static BF_HD uint32_t transpose_tile_offset(enum transpose_layout layout, int row, int col)
{
    switch (layout) {
    case TRANSPOSE_PADDED:
        return (uint32_t)(row * (TRANSPOSE_TILE_COLS + 1) + col);
    case TRANSPOSE_SWIZZLED: /* CuTe's Swizzle<5,0,5> on the row-major offset */
        return (uint32_t)(row * TRANSPOSE_TILE_COLS + (col ^ (row % 32)));
    case TRANSPOSE_ROW_MAJOR:
    default:
        return (uint32_t)(row * TRANSPOSE_TILE_COLS + col);
    }
}

/* One element that thread (tx, ty) moves in step k of a phase. */
struct transpose_move {
    int64_t global; /* element offset in the global array read or written */
    uint32_t smem;  /* word offset in the tile */
    bool active;    /* inside the matrix: edge tiles leave some threads idle */
};

/* Load phase: in[r][c] (rows x cols) goes to tile element (r % 64, c % 32). */
static BF_HD struct transpose_move transpose_load_move(enum transpose_layout layout, int64_t rows,
                                                       int64_t cols, int64_t tile_row,
                                                       int64_t tile_col, int tx, int ty, int k)
{
    int r = ty + k * TRANSPOSE_BLOCK_ROWS, c = tx;
    int64_t gr = tile_row * TRANSPOSE_TILE_ROWS + r, gc = tile_col * TRANSPOSE_TILE_COLS + c;
    struct transpose_move m;
    m.global = gr * cols + gc;
    m.smem = transpose_tile_offset(layout, r, c);
    m.active = gr < rows && gc < cols;
    return m;
}

/* Store phase: out[c][r] (cols x rows) takes tile element (r % 64, c % 32), so
 * the tile is read down a column. A thread's steps go along its output row
 * first (k % 2 picks the half), so one warp writes the row's 64 floats. */
static BF_HD struct transpose_move transpose_store_move(enum transpose_layout layout, int64_t rows,
                                                        int64_t cols, int64_t tile_row,
                                                        int64_t tile_col, int tx, int ty, int k)
{
    int orow = ty + (k / TRANSPOSE_HALVES) * TRANSPOSE_BLOCK_ROWS; /* a tile column */
    int ocol = (k % TRANSPOSE_HALVES) * 32 + tx;                   /* a tile row */
    int64_t gr = tile_col * TRANSPOSE_TILE_COLS + orow, gc = tile_row * TRANSPOSE_TILE_ROWS + ocol;
    struct transpose_move m;
    m.global = gr * rows + gc;
    m.smem = transpose_tile_offset(layout, ocol, orow);
    m.active = gr < cols && gc < rows;
    return m;
}

#endif
