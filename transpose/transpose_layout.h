/* Where the transpose kernels put each element in shared memory.
 *
 * A block of 32 x 16 threads moves one tile of 64 rows of cells. A cell is
 * one element, or for the packed variant a block of k x k elements (4 x 4
 * bytes, 2 x 2 halves) that a thread transposes in registers, so that each of
 * its k rows is one 4-byte word. A tile row holds 64 cells of up to 4 bytes,
 * or 32 cells of 8 or 16 (so that a warp's load covers at least 128
 * contiguous bytes and a thread keeps at most 16 bytes a step). In the load
 * phase each warp reads 32 cells of a tile row along the input (lane =
 * column) and writes them into the tile; in the store phase each warp reads
 * 32 rows of one tile column (lane = row) and writes them along an output
 * row. Each output row gets 64 consecutive cells from one warp (256 bytes of
 * floats): when output rows do not start on a 32-byte sector, only the two
 * sectors at the ends are shared with other blocks. With 32-row tiles every
 * 128-byte store is split that way, and the partial-sector writes cost a
 * third of the bandwidth on H100.
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
#include "transpose/transpose.h"

/* The tile is 64 rows of 64 cells (up to 4 bytes each) or of 32 (8 or 16
 * bytes); threads are 32 x 16. For fp32 chosen on the H100 by
 * transpose/probes/tile_shape.cu among eight shapes (README): of those, the
 * only one level with or ahead of cublasSgeam from 4096^2 up and on odd
 * shapes, at 30 registers and four blocks (all 64 warps) an SM. The shape may
 * be overridden when compiling (the probe does), as long as the tile's width
 * is a power of two of at least 32. */
#ifndef TRANSPOSE_TILE_ROWS
#define TRANSPOSE_TILE_ROWS 64
#endif
#ifndef TRANSPOSE_TILE_COLS_LOG2
#define TRANSPOSE_TILE_COLS_LOG2 6
#endif
#ifndef TRANSPOSE_BLOCK_ROWS
#define TRANSPOSE_BLOCK_ROWS 16
#endif
#define TRANSPOSE_TILE_COLS  (1 << TRANSPOSE_TILE_COLS_LOG2) /* cells of up to 4 bytes */
#define TRANSPOSE_WIDE_COLS  32                              /* cells of 8 or 16 bytes */
#define TRANSPOSE_THREADS    (32 * TRANSPOSE_BLOCK_ROWS)
#define TRANSPOSE_ROW_STORES (TRANSPOSE_TILE_ROWS / 32) /* warp-wide stores per output row */

/* The shape functions are constant expressions under nvcc (they size the
 * kernels' tiles and register arrays); plain inline functions in C. */
#ifdef __cplusplus
#define TRANSPOSE_CONST constexpr
#else
#define TRANSPOSE_CONST
#endif

/* Elements a side of a cell: 4 for packed bytes, 2 for packed halves (a
 * cell row is then one 4-byte word), else 1. */
static TRANSPOSE_CONST BF_HD int transpose_pack(enum transpose_variant variant, int elem_bytes)
{
    return variant == TRANSPOSE_PACKED && elem_bytes < 4 ? 4 / elem_bytes : 1;
}

/* Bytes of a cell, the width of every shared access the kernel makes. */
static TRANSPOSE_CONST BF_HD int transpose_cell_bytes(enum transpose_variant variant,
                                                      int elem_bytes)
{
    return elem_bytes * transpose_pack(variant, elem_bytes) * transpose_pack(variant, elem_bytes);
}

/* Cells a tile row. */
static TRANSPOSE_CONST BF_HD int transpose_tile_cols(enum transpose_variant variant, int elem_bytes)
{
    return transpose_cell_bytes(variant, elem_bytes) <= 4 ? TRANSPOSE_TILE_COLS
                                                          : TRANSPOSE_WIDE_COLS;
}

/* Warp-wide loads per tile row, and cells a thread moves in a phase. */
static TRANSPOSE_CONST BF_HD int transpose_row_loads(enum transpose_variant variant, int elem_bytes)
{
    return transpose_tile_cols(variant, elem_bytes) / 32;
}
static TRANSPOSE_CONST BF_HD int transpose_steps(enum transpose_variant variant, int elem_bytes)
{
    return TRANSPOSE_TILE_ROWS * transpose_tile_cols(variant, elem_bytes) / TRANSPOSE_THREADS;
}

/* The unit the banks see a column read in: a 4-byte word, or the cell where
 * it is wider. The pad and the swizzle are counted in it. */
static TRANSPOSE_CONST BF_HD int transpose_unit_bytes(enum transpose_variant variant,
                                                      int elem_bytes)
{
    return transpose_cell_bytes(variant, elem_bytes) > 4 ? transpose_cell_bytes(variant, elem_bytes)
                                                         : 4;
}

/* Bytes from one tile row to the next: the padded tiles (padded, packed)
 * add one unit, so that a column steps one unit further along the banks
 * each row (an odd number of units a row); a unit, not a cell, because the
 * banks are 4 bytes wide and a wider cell must stay aligned. */
static TRANSPOSE_CONST BF_HD int transpose_row_bytes(enum transpose_variant variant, int elem_bytes)
{
    return transpose_tile_cols(variant, elem_bytes) * transpose_cell_bytes(variant, elem_bytes) +
           (variant == TRANSPOSE_PADDED || variant == TRANSPOSE_PACKED
                ? transpose_unit_bytes(variant, elem_bytes)
                : 0);
}

/* Bytes of shared memory a block's tile takes (at most 33 KiB: 16-byte
 * cells, padded). */
static TRANSPOSE_CONST BF_HD int transpose_tile_bytes(enum transpose_variant variant,
                                                      int elem_bytes)
{
    return TRANSPOSE_TILE_ROWS * transpose_row_bytes(variant, elem_bytes);
}

/* Why transpose_f32 refuses a rows x cols matrix with cudaErrorInvalidValue
 * (NULL: it runs it; it refuses NULL pointers too). The launcher and the
 * runner's refusals both ask this, through transpose_refusal_elem. */
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

/* Why transpose refuses a launch (NULL: it runs it): the element size and
 * the variant, then the matrix (transpose_refusal, whose 64-row tiles are
 * the most tiles any element size makes). Misaligned and null pointers are
 * refused too; the launcher checks those. */
static inline const char *transpose_refusal_elem(enum transpose_variant variant, int elem_bytes,
                                                 int64_t rows, int64_t cols)
{
    if (elem_bytes != 1 && elem_bytes != 2 && elem_bytes != 4 && elem_bytes != 8 &&
        elem_bytes != 16)
        return "element size not 1, 2, 4, 8 or 16 bytes";
    if ((unsigned)variant >= TRANSPOSE_VARIANTS)
        return "no such variant";
    if (variant == TRANSPOSE_PACKED && elem_bytes > 2)
        return "packed is for 1- and 2-byte elements";
    const char *why = transpose_refusal(rows, cols);
    if (why != NULL)
        return why;
    if (rows * cols > INT64_MAX / elem_bytes)
        return "rows x cols x element size past 2^63 - 1 bytes";
    return NULL;
}

/* Byte offset of cell (row, col) in the variant's tile. The only line that
 * differs between the conflicting kernel and its fixes. */
static BF_HD uint32_t transpose_tile_offset(enum transpose_variant variant, int elem_bytes, int row,
                                            int col)
{
    const uint32_t r = (uint32_t)row, c = (uint32_t)col;
    const uint32_t row_major = r * (uint32_t)transpose_row_bytes(variant, elem_bytes) +
                               c * (uint32_t)transpose_cell_bytes(variant, elem_bytes);
    const uint32_t unit = (uint32_t)transpose_unit_bytes(variant, elem_bytes);
    switch (variant) {
    case TRANSPOSE_PADDED: /* a unit a row: a column steps through all banks */
    case TRANSPOSE_PACKED:
        return row_major;
    case TRANSPOSE_SWIZZLED: /* unit u of a 128-byte line at u ^ (row % units a line) */
        return row_major ^ (r % (128u / unit)) * unit;
    case TRANSPOSE_CONFLICTING: /* row-major: a column lies in one bank (or a few) */
    default:
        return row_major;
    }
}

/* Where one tile lies in the two matrices, in elements, in 64 bits,
 * computed once per tile: an element then costs a 64-bit add and 32-bit
 * bounds checks, not a 64-bit multiply (which, at 8 elements a thread, the
 * SM would feel). */
struct transpose_tile {
    int64_t in_origin;  /* offset of the tile's first element in `in` */
    int64_t out_origin; /* offset of its first element in `out` */
    int64_t rows, cols; /* in is rows x cols, out is cols x rows */
    int64_t in_step;    /* 16 cell rows: from step k to k + ROW_LOADS, load phase */
    int64_t out_step;   /* 16 cell rows of out: from step k to k + ROW_STORES, store */
    int rows_inside;    /* tile rows (elements) inside the matrix: all but at the bottom edge */
    int cols_inside;    /* tile columns (elements) inside the matrix: all but at the right edge */
};

/* Elements a tile spans down and across. */
static TRANSPOSE_CONST BF_HD int transpose_tile_height(enum transpose_variant variant,
                                                       int elem_bytes)
{
    return TRANSPOSE_TILE_ROWS * transpose_pack(variant, elem_bytes);
}
static TRANSPOSE_CONST BF_HD int transpose_tile_width(enum transpose_variant variant,
                                                      int elem_bytes)
{
    return transpose_tile_cols(variant, elem_bytes) * transpose_pack(variant, elem_bytes);
}

static BF_HD struct transpose_tile transpose_tile_at(enum transpose_variant variant, int elem_bytes,
                                                     int64_t rows, int64_t cols, int64_t tile_row,
                                                     int64_t tile_col)
{
    const int height = transpose_tile_height(variant, elem_bytes);
    const int width = transpose_tile_width(variant, elem_bytes);
    const int pack = transpose_pack(variant, elem_bytes);
    int64_t r0 = tile_row * height, c0 = tile_col * width;
    struct transpose_tile t;
    t.in_origin = r0 * cols + c0;
    t.out_origin = c0 * rows + r0;
    t.rows = rows;
    t.cols = cols;
    t.in_step = TRANSPOSE_BLOCK_ROWS * pack * cols;
    t.out_step = TRANSPOSE_BLOCK_ROWS * pack * rows;
    t.rows_inside = rows - r0 < height ? (int)(rows - r0) : height;
    t.cols_inside = cols - c0 < width ? (int)(cols - c0) : width;
    return t;
}

/* One cell that thread (tx, ty) moves in step k of a phase. */
struct transpose_move {
    int64_t global; /* element offset, in the array read or written, of the cell's first element */
    uint32_t smem;  /* byte offset of the cell in the tile */
    int row, col;   /* the cell's first element in the tile, as in `in` (row, column) */
    bool active;    /* the cell is inside the matrix: the global access is made */
};

/* Load phase: thread (tx, ty) reads tile row ty + 16 (k / ROW_LOADS), column
 * 32 (k % ROW_LOADS) + tx, along the input. */
static BF_HD struct transpose_move transpose_load_move(enum transpose_variant variant,
                                                       int elem_bytes,
                                                       const struct transpose_tile *t, int tx,
                                                       int ty, int k)
{
    const int loads = transpose_row_loads(variant, elem_bytes);
    const int pack = transpose_pack(variant, elem_bytes);
    int r = ty + (k / loads) * TRANSPOSE_BLOCK_ROWS;
    int c = (k % loads) * 32 + tx;
    struct transpose_move m;
    m.global = t->in_origin + ty * pack * t->cols + (k / loads) * t->in_step + c * pack;
    m.smem = transpose_tile_offset(variant, elem_bytes, r, c);
    m.row = r * pack;
    m.col = c * pack;
    m.active = m.row < t->rows_inside && m.col < t->cols_inside;
    return m;
}

/* Store phase: the output tile's row i is the tile's column i, so the tile is
 * read down a column. A thread's steps go along its output row first
 * (k % ROW_STORES picks the 32 cells), so one warp writes the row's 64. */
static BF_HD struct transpose_move transpose_store_move(enum transpose_variant variant,
                                                        int elem_bytes,
                                                        const struct transpose_tile *t, int tx,
                                                        int ty, int k)
{
    const int pack = transpose_pack(variant, elem_bytes);
    int i = ty + (k / TRANSPOSE_ROW_STORES) * TRANSPOSE_BLOCK_ROWS; /* output cell row */
    int j = (k % TRANSPOSE_ROW_STORES) * 32 + tx;                   /* output cell column */
    struct transpose_move m;
    m.global =
        t->out_origin + ty * pack * t->rows + (k / TRANSPOSE_ROW_STORES) * t->out_step + j * pack;
    m.smem = transpose_tile_offset(variant, elem_bytes, j, i);
    m.row = j * pack;
    m.col = i * pack;
    m.active = m.row < t->rows_inside && m.col < t->cols_inside;
    return m;
}

#endif
