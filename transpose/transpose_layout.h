/* Where the transpose kernels put each element in shared memory.
 *
 * A block of 32 x 16 threads moves one tile of 64 input rows by 64 input
 * columns. In the load phase each warp reads half a tile row along the input
 * (lane = column) and writes it into the tile; in the store phase each warp
 * reads 32 rows of one tile column (lane = row) and writes them along an
 * output row. Each output row gets 64 consecutive floats, 256 bytes, from one
 * warp: when output rows do not start on a 32-byte sector (any row length
 * that is not a multiple of 8), only the two sectors at the ends are shared
 * with other blocks. With 32-row tiles every 128-byte store is split that way,
 * and the partial-sector writes cost a third of the bandwidth on H100.
 *
 * The kernels in transpose.cu call these functions for every shared access,
 * and the bank model calls the very same functions for every lane of every
 * warp, so the model cannot drift from the code. */
#ifndef BANKFREE_TRANSPOSE_LAYOUT_H
#define BANKFREE_TRANSPOSE_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/hostdev.h"
#include "common/swizzle.h"
#include "transpose/transpose.h"

/* A tile is 64 input rows (one output row segment) by 64 input columns;
 * threads are 32 x 16, so each moves 8 elements a phase. Chosen on the H100
 * by transpose/probes/tile_shape.cu among eight shapes (README): of those, the
 * only one level with or ahead of cublasSgeam from 4096^2 up and on odd shapes,
 * at 30 registers and four blocks (all 64 warps) an SM. The shape may be
 * overridden when compiling (the probe does), as long as the tile's width is
 * a power of two of at least 32. The padded tile needs the most words. */
#ifndef TRANSPOSE_TILE_ROWS
#define TRANSPOSE_TILE_ROWS 64
#endif
#ifndef TRANSPOSE_TILE_COLS_LOG2
#define TRANSPOSE_TILE_COLS_LOG2 6
#endif
#ifndef TRANSPOSE_BLOCK_ROWS
#define TRANSPOSE_BLOCK_ROWS 16
#endif
#define TRANSPOSE_TILE_COLS  (1 << TRANSPOSE_TILE_COLS_LOG2)
#define TRANSPOSE_ROW_LOADS  (TRANSPOSE_TILE_COLS / 32) /* warp-wide loads per input row */
#define TRANSPOSE_ROW_STORES (TRANSPOSE_TILE_ROWS / 32) /* warp-wide stores per output row */
#define TRANSPOSE_STEPS      (TRANSPOSE_TILE_ROWS * TRANSPOSE_ROW_LOADS / TRANSPOSE_BLOCK_ROWS)
#define TRANSPOSE_TILE_WORDS (TRANSPOSE_TILE_ROWS * (TRANSPOSE_TILE_COLS + 1))

/* Why transpose_f32 refuses a rows x cols matrix with cudaErrorInvalidValue
 * (NULL: it runs it; it refuses NULL pointers too). The launcher and the
 * runner's refusals both ask this. */
static inline const char *transpose_refusal(int64_t rows, int64_t cols)
{
    if (rows < 1 || cols < 1)
        return "rows or cols below 1";
    if (rows > INT64_MAX / cols)
        return "rows x cols past 2^63 - 1";
    if ((rows + TRANSPOSE_TILE_ROWS - 1) / TRANSPOSE_TILE_ROWS > INT32_MAX)
        return "more than 2^31 - 1 tile rows (gridDim.x)";
    return NULL;
}

/* Word offset of logical tile element (row, col) in the variant's tile. The
 * only line that differs between the conflicting kernel and its two fixes. */
static BF_HD uint32_t transpose_tile_offset(enum transpose_variant variant, int row, int col)
{
    uint32_t row_major = (uint32_t)(row * TRANSPOSE_TILE_COLS + col);
    switch (variant) {
    case TRANSPOSE_PADDED: /* tile[64][65]: row stride 65 is odd, a column spans all banks */
        return (uint32_t)(row * (TRANSPOSE_TILE_COLS + 1) + col);
    case TRANSPOSE_SWIZZLED: /* tile[64][64], column c of row r at c ^ (r % 32) */
        return bf_swizzle(5, 0, TRANSPOSE_TILE_COLS_LOG2, row_major);
    case TRANSPOSE_CONFLICTING: /* tile[64][64]: a column lies in one bank */
    default:
        return row_major;
    }
}

/* Where one tile lies in the two matrices, in 64 bits, computed once per
 * tile: an element then costs a 64-bit add and 32-bit bounds checks, not a
 * 64-bit multiply (which, at 8 elements a thread, the SM would feel). */
struct transpose_tile {
    int64_t in_origin;  /* offset of in[64 * tile_row][64 * tile_col] */
    int64_t out_origin; /* offset of out[64 * tile_col][64 * tile_row] */
    int64_t rows, cols; /* in is rows x cols, out is cols x rows */
    int64_t in_step;    /* 16 input rows: from step k to k + ROW_LOADS, load phase */
    int64_t out_step;   /* 16 output rows: from step k to k + ROW_STORES, store */
    int rows_inside;    /* tile rows inside the matrix: 64 but at the bottom edge */
    int cols_inside;    /* tile columns inside the matrix: 64 but at the right edge */
};

static BF_HD struct transpose_tile transpose_tile_at(int64_t rows, int64_t cols, int64_t tile_row,
                                                     int64_t tile_col)
{
    int64_t r0 = tile_row * TRANSPOSE_TILE_ROWS, c0 = tile_col * TRANSPOSE_TILE_COLS;
    struct transpose_tile t;
    t.in_origin = r0 * cols + c0;
    t.out_origin = c0 * rows + r0;
    t.rows = rows;
    t.cols = cols;
    t.in_step = TRANSPOSE_BLOCK_ROWS * cols;
    t.out_step = TRANSPOSE_BLOCK_ROWS * rows;
    t.rows_inside = rows - r0 < TRANSPOSE_TILE_ROWS ? (int)(rows - r0) : TRANSPOSE_TILE_ROWS;
    t.cols_inside = cols - c0 < TRANSPOSE_TILE_COLS ? (int)(cols - c0) : TRANSPOSE_TILE_COLS;
    return t;
}

/* One element that thread (tx, ty) moves in step k of a phase. */
struct transpose_move {
    int64_t global; /* element offset in the global array read or written */
    uint32_t smem;  /* word offset in the tile */
    bool active;    /* the element is inside the matrix: the global access is made */
};

/* Load phase: thread (tx, ty) reads tile row ty + 16 (k / ROW_LOADS), column
 * 32 (k % ROW_LOADS) + tx, along the input. */
static BF_HD struct transpose_move transpose_load_move(enum transpose_variant variant,
                                                       const struct transpose_tile *t, int tx,
                                                       int ty, int k)
{
    int r = ty + (k / TRANSPOSE_ROW_LOADS) * TRANSPOSE_BLOCK_ROWS;
    int c = (k % TRANSPOSE_ROW_LOADS) * 32 + tx;
    struct transpose_move m;
    m.global = t->in_origin + ty * t->cols + (k / TRANSPOSE_ROW_LOADS) * t->in_step + c;
    m.smem = transpose_tile_offset(variant, r, c);
    m.active = r < t->rows_inside && c < t->cols_inside;
    return m;
}

/* Store phase: the output tile's row i is the tile's column i, so the tile is
 * read down a column. A thread's steps go along its output row first
 * (k % ROW_STORES picks the 32 floats), so one warp writes the row's 64. */
static BF_HD struct transpose_move transpose_store_move(enum transpose_variant variant,
                                                        const struct transpose_tile *t, int tx,
                                                        int ty, int k)
{
    int i = ty + (k / TRANSPOSE_ROW_STORES) * TRANSPOSE_BLOCK_ROWS; /* output row in the tile */
    int j = (k % TRANSPOSE_ROW_STORES) * 32 + tx;                   /* output column in the tile */
    struct transpose_move m;
    m.global = t->out_origin + ty * t->rows + (k / TRANSPOSE_ROW_STORES) * t->out_step + j;
    m.smem = transpose_tile_offset(variant, j, i);
    m.active = i < t->cols_inside && j < t->rows_inside;
    return m;
}

#endif
