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
 * floats). Where output rows do not start on a 32-byte sector (an odd row
 * count, an output pointer off a sector), a row's segment would share its
 * end sectors with the blocks beside it, and those partial-sector writes
 * cost a fifth of the bandwidth on the H100 (fp32 at 7919x8209: 0.79 of
 * copy). So the tiles of whole elements of 4 bytes or more shift each
 * output row's segment back onto the sector at or before the tile's first
 * column, and read the rows above the tile that the shift reaches
 * (transpose_rows_above): every output sector is then written by one store
 * of one warp (0.94 of copy there). Packed bytes and halves also run two
 * kernels on a raw tile copied in by cp.async, whose functions close this
 * file: "packed on aligned shapes" (the cells kernel) and "packed at other
 * shapes" (the shifted kernel, which moves its output segments onto
 * sectors the same way).
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
#include "common/sm_limits.h"
#include "transpose/transpose.h"

/* The tile is 64 rows of 64 cells (up to 4 bytes each) or of 32 (8 or 16
 * bytes); threads are 32 x 16. For fp32 chosen on the H100 by
 * transpose/probes/tile_shape.cu among eight shapes (README): of those, the
 * only one level with or ahead of cublasSgeam from 4096^2 up and on odd
 * shapes, at 30 registers (32 since the rows above) and four blocks (all 64
 * warps) an SM. The shape may be overridden when compiling (the probe does),
 * as long as the tile's width is a power of two of at least 32. */
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

/* The bytes of a DRAM sector: the unit the output rows' segments are
 * shifted onto. */
#define TRANSPOSE_SECTOR 32

/* Whether the variant shifts its output segments onto sectors: the tiles
 * of whole elements of 4 bytes or more, whose time DRAM sets. Not packed
 * cells (k x k blocks: their rows cannot shift by one element), nor bytes
 * and halves in the other tiles, whose time the shared pipe sets: measured
 * on the H100 (2026-11-26), shifting slowed them 8-32% where nothing
 * shifts (16384^2, the addressing alone) and bytes 28% at 7919x8209 (31
 * rows above a 64-row tile). */
static TRANSPOSE_CONST BF_HD bool transpose_shifts(enum transpose_variant variant, int elem_bytes)
{
    return (variant == TRANSPOSE_CONFLICTING || variant == TRANSPOSE_PADDED ||
            variant == TRANSPOSE_SWIZZLED) &&
           elem_bytes >= 4;
}

/* The most rows a tile reads above its own: the elements of a sector less
 * one (7 floats, 3 doubles, one 16-byte element). */
static TRANSPOSE_CONST BF_HD int transpose_most_above(enum transpose_variant variant,
                                                      int elem_bytes)
{
    return transpose_shifts(variant, elem_bytes) ? TRANSPOSE_SECTOR / elem_bytes - 1 : 0;
}

/* How far `out` lies past a sector, in elements (0 where the variant does
 * not shift). */
static BF_HD int transpose_out_phase(enum transpose_variant variant, int elem_bytes,
                                     const void *out)
{
    return (int)((uintptr_t)out / (uintptr_t)elem_bytes &
                 (uintptr_t)transpose_most_above(variant, elem_bytes));
}

/* The rows a launch's tiles read above their own: none where every output
 * row starts on a sector (rows x elem_bytes a multiple of 32 and `out` on a
 * sector: out_phase 0), else the most. */
static BF_HD int transpose_rows_above(enum transpose_variant variant, int elem_bytes, int64_t rows,
                                      int out_phase)
{
    const int most = transpose_most_above(variant, elem_bytes);
    return (rows & most) != 0 || out_phase != 0 ? most : 0;
}

/* Tile rows a block loads at most, and load steps a thread makes at most
 * (a step whose tile row is past the launch's rows is skipped, by the whole
 * warp: see transpose_move.exists). */
static TRANSPOSE_CONST BF_HD int transpose_load_rows(enum transpose_variant variant, int elem_bytes)
{
    return TRANSPOSE_TILE_ROWS + transpose_most_above(variant, elem_bytes);
}
static TRANSPOSE_CONST BF_HD int transpose_load_steps(enum transpose_variant variant,
                                                      int elem_bytes)
{
    return (transpose_load_rows(variant, elem_bytes) + TRANSPOSE_BLOCK_ROWS - 1) /
           TRANSPOSE_BLOCK_ROWS * transpose_row_loads(variant, elem_bytes);
}

/* Bytes of shared memory a block's tile takes, in whole 128-byte lines (the
 * swizzle moves a unit within its line; at most 34 KiB: 16-byte cells,
 * padded, one row above). */
static TRANSPOSE_CONST BF_HD int transpose_tile_bytes(enum transpose_variant variant,
                                                      int elem_bytes)
{
    return (transpose_load_rows(variant, elem_bytes) * transpose_row_bytes(variant, elem_bytes) +
            127) /
           128 * 128;
}

/* Why transpose refuses a rows x cols matrix whose tiles read up to `above`
 * rows above their own (transpose_most_above) with cudaErrorInvalidValue
 * (NULL: it runs it). The launcher and the runner's refusals both ask this,
 * through transpose_refusal_elem. */
static inline const char *transpose_refusal(int64_t rows, int64_t cols, int above)
{
    if (rows < 1 || cols < 1)
        return "rows or cols below 1";
    if (rows > INT64_MAX / cols)
        return "rows x cols past 2^63 - 1";
    /* The grid's tile rows (transpose_grid_rows at its most), counted without
     * overflow: rows may be near INT64_MAX. */
    if (rows / TRANSPOSE_TILE_ROWS +
            (rows % TRANSPOSE_TILE_ROWS + above + TRANSPOSE_TILE_ROWS - 1) / TRANSPOSE_TILE_ROWS >
        INT32_MAX)
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
    const char *why = transpose_refusal(rows, cols, transpose_most_above(variant, elem_bytes));
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
    int64_t in_origin;  /* offset in `in` of the first row read (above the tile's own: < 0 in
                           the first tile row), at the tile's first column */
    int64_t out_origin; /* offset of its first element in `out` */
    int64_t rows, cols; /* in is rows x cols, out is cols x rows */
    int64_t in_step;    /* 16 cell rows: from step k to k + ROW_LOADS, load phase */
    int64_t out_step;   /* 16 cell rows of out: from step k to k + ROW_STORES, store */
    int rows_inside;    /* rows - r0, at most the tile's height: below it at the bottom edge,
                           and 0 or below in a tile row the shift adds */
    int cols_inside;    /* tile columns (elements) inside the matrix: all but at the right edge */
    int above;          /* rows read above the tile (transpose_rows_above) */
    int rows_from;      /* the first row inside the matrix, from the tile's first: 0 or below */
    int first_shift;    /* output row 0's shift back onto a sector; row i's adds i x row_shift */
    int row_shift;
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

/* Tile rows of a launch's grid: with rows read above, the last rows of the
 * matrix may fall to one more tile row. */
static BF_HD int64_t transpose_grid_rows(enum transpose_variant variant, int elem_bytes,
                                         int64_t rows, int out_phase)
{
    const int height = transpose_tile_height(variant, elem_bytes);
    return (rows + transpose_rows_above(variant, elem_bytes, rows, out_phase) + height - 1) /
           height;
}

/* Tile (tile_row, tile_col) of a launch whose `out` lies out_phase elements
 * past a sector. */
static BF_HD struct transpose_tile transpose_tile_at(enum transpose_variant variant, int elem_bytes,
                                                     int64_t rows, int64_t cols, int out_phase,
                                                     int64_t tile_row, int64_t tile_col)
{
    const int height = transpose_tile_height(variant, elem_bytes);
    const int width = transpose_tile_width(variant, elem_bytes);
    const int pack = transpose_pack(variant, elem_bytes);
    const int above = transpose_rows_above(variant, elem_bytes, rows, out_phase);
    int64_t r0 = tile_row * height, c0 = tile_col * width;
    struct transpose_tile t;
    t.in_origin = (r0 - above) * cols + c0;
    t.out_origin = c0 * rows + r0;
    t.rows = rows;
    t.cols = cols;
    t.in_step = TRANSPOSE_BLOCK_ROWS * pack * cols;
    t.out_step = TRANSPOSE_BLOCK_ROWS * pack * rows;
    t.rows_inside = rows - r0 < height ? (int)(rows - r0) : height;
    t.cols_inside = cols - c0 < width ? (int)(cols - c0) : width;
    t.above = above;
    t.rows_from = r0 < above ? -(int)r0 : -above;
    /* Output row c0 + i starts its segment at column r0 of `out`, which lies
     * (out_phase + out_origin + i x rows) mod (above + 1) elements past a
     * sector (above + 1 is a power of two, or above is 0). */
    t.first_shift = (int)((out_phase + t.out_origin) & above);
    t.row_shift = (int)(rows & above);
    return t;
}

/* One cell that thread (tx, ty) moves in step k of a phase. */
struct transpose_move {
    int64_t global; /* element offset, in the array read or written, of the cell's first element */
    uint32_t smem;  /* byte offset of the cell in the tile */
    int row, col;   /* the cell's first element, from the tile's first (row, column) of `in` */
    bool exists;    /* the step has a tile row (a load step past the rows read: no access) */
    bool active;    /* the cell is inside the matrix: the global access is made */
};

/* Whether the cell at (row, col) from the tile's first element lies inside
 * the matrix (rows above it only where the variant shifts). */
static BF_HD bool transpose_inside(enum transpose_variant variant, int elem_bytes,
                                   const struct transpose_tile *t, int row, int col)
{
    return (!transpose_shifts(variant, elem_bytes) || row >= t->rows_from) &&
           row < t->rows_inside && col < t->cols_inside;
}

/* Load phase: thread (tx, ty) reads tile row ty + 16 (k / ROW_LOADS), column
 * 32 (k % ROW_LOADS) + tx, along the input; tile row r is the tile's row r -
 * above. The steps past the tile's own rows exist only where it reads rows
 * above (and only up to them). */
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
    m.row = r * pack - t->above;
    m.col = c * pack;
    m.exists = k < transpose_steps(variant, elem_bytes) || r < TRANSPOSE_TILE_ROWS + t->above;
    m.active = transpose_inside(variant, elem_bytes, t, m.row, m.col) && m.exists;
    return m;
}

/* Store phase: the output tile's row i is the tile's column i, so the tile is
 * read down a column. A thread's steps go along its output row first
 * (k % ROW_STORES picks the 32 cells), so one warp writes the row's 64,
 * starting `shift` elements before the tile's first column: on a sector. */
static BF_HD struct transpose_move transpose_store_move(enum transpose_variant variant,
                                                        int elem_bytes,
                                                        const struct transpose_tile *t, int tx,
                                                        int ty, int k)
{
    const int pack = transpose_pack(variant, elem_bytes);
    int i = ty + (k / TRANSPOSE_ROW_STORES) * TRANSPOSE_BLOCK_ROWS; /* output cell row */
    int j = (k % TRANSPOSE_ROW_STORES) * 32 + tx;                   /* output cell column */
    /* (t->above is 0 where the variant does not shift; spelled out here, the
     * packed kernels' store phase compiles as it did before the shift.) */
    const int shift =
        transpose_shifts(variant, elem_bytes) ? (t->first_shift + i * t->row_shift) & t->above : 0;
    const int above = transpose_shifts(variant, elem_bytes) ? t->above : 0;
    struct transpose_move m;
    m.global = t->out_origin + ty * pack * t->rows + (k / TRANSPOSE_ROW_STORES) * t->out_step +
               j * pack - shift;
    m.smem = transpose_tile_offset(variant, elem_bytes, j + above - shift, i);
    m.row = j * pack - shift;
    m.col = i * pack;
    m.exists = true;
    m.active = transpose_inside(variant, elem_bytes, t, m.row, m.col);
    return m;
}

/* ---- packed on aligned shapes: the tile copied in raw ----
 *
 * Where every output row starts on a 32-byte sector (rows x elem_bytes a
 * multiple of 32, `out` on a sector), every input row on 16 bytes (cols x
 * elem_bytes a multiple of 16, `in` on 16 bytes) and rows are whole cells,
 * packed takes another kernel (transpose_packed_cells): its tile is 128
 * input rows x 256 bytes, copied straight into shared memory by cp.async,
 * 16 bytes a lane, so a block's whole tile is in flight with no register
 * holding any of it; each lane then reads the k rows of its cell row, 16
 * bytes of each (four cells), transposes the cells in registers and writes
 * their words, lanes along the output row. On the H100 (2026-11-26) 0.95-0.96
 * of copy for bytes and halves where the register-loaded tile above stops
 * at 0.91-0.94: both the 256-byte rows (half as many rows a byte, so half
 * the DRAM pages opened) and the copies are needed (README, "Element
 * sizes"). With output rows off the sectors it loses to that tile (halves
 * at 7916x8208 1.18x its time, bytes 1.05x), so it does not take them. */
#define TRANSPOSE_CELLS_ROWS    128 /* input rows a tile */
#define TRANSPOSE_CELLS_CHUNKS  16  /* 16-byte chunks a tile row: 256 bytes */
#define TRANSPOSE_CELLS_THREADS (32 * TRANSPOSE_CELLS_CHUNKS) /* a warp a chunk column */
#define TRANSPOSE_CELLS_COPIES                                                                     \
    (TRANSPOSE_CELLS_ROWS * TRANSPOSE_CELLS_CHUNKS / TRANSPOSE_CELLS_THREADS) /* a thread's */
#define TRANSPOSE_CELLS_TILE_BYTES (TRANSPOSE_CELLS_ROWS * TRANSPOSE_CELLS_CHUNKS * 16) /* 32K */

/* Tile rows and columns of the cells kernel's grid (gridDim.y: at most 65535). */
static BF_HD int64_t transpose_cells_tile_rows(int64_t rows)
{
    return (rows + TRANSPOSE_CELLS_ROWS - 1) / TRANSPOSE_CELLS_ROWS;
}
static BF_HD int64_t transpose_cells_tile_cols(int elem_bytes, int64_t cols)
{
    return (cols * elem_bytes + 16 * TRANSPOSE_CELLS_CHUNKS - 1) / (16 * TRANSPOSE_CELLS_CHUNKS);
}

/* Whether packed takes the cells kernel at this shape (pointers aside:
 * transpose_cells_takes). */
static BF_HD bool transpose_cells_shape(int elem_bytes, int64_t rows, int64_t cols)
{
    return (elem_bytes == 1 || elem_bytes == 2) &&
           rows % transpose_pack(TRANSPOSE_PACKED, elem_bytes) == 0 &&
           rows * elem_bytes % TRANSPOSE_SECTOR == 0 && cols * elem_bytes % 16 == 0 &&
           transpose_cells_tile_cols(elem_bytes, cols) <= 65535;
}
/* Whether a launch of `variant` on this shape takes the cells kernel, for
 * the model and the tests (`in` and `out` from cudaMalloc), on a GPU of
 * compute capability cc: cp.async from 80 on; below, packed keeps its
 * register-loaded tile. */
static BF_HD bool transpose_cells_launch(enum transpose_variant variant, int elem_bytes,
                                         int64_t rows, int64_t cols, int cc)
{
    return variant == TRANSPOSE_PACKED && cc >= 80 && transpose_cells_shape(elem_bytes, rows, cols);
}
static BF_HD bool transpose_cells_takes(int elem_bytes, int64_t rows, int64_t cols, const void *out,
                                        const void *in)
{
    return transpose_cells_shape(elem_bytes, rows, cols) && (uintptr_t)in % 16 == 0 &&
           (uintptr_t)out % TRANSPOSE_SECTOR == 0;
}

/* Byte offset in the tile of chunk j of tile row t: the chunks of a row
 * XORed with its cell row (t / k) mod 16, so that the 8 lanes of a
 * quarter-warp, reading chunk j of 8 consecutive cell rows, read 8
 * different 16-byte groups of banks (the ideal), and a row's 16 copies
 * still fill its own 256 bytes. */
static BF_HD uint32_t transpose_cells_offset(int elem_bytes, int t, int j)
{
    const int cell_row = t / transpose_pack(TRANSPOSE_PACKED, elem_bytes);
    return 16u * (uint32_t)(t * TRANSPOSE_CELLS_CHUNKS + (j ^ (cell_row % TRANSPOSE_CELLS_CHUNKS)));
}

/* Copy n of thread `thread`: tile row *t, chunk *j (a warp's 32 lanes copy
 * two whole tile rows). */
static BF_HD void transpose_cells_copy(int thread, int n, int *t, int *j)
{
    const int id = thread + TRANSPOSE_CELLS_THREADS * n;
    *t = id / TRANSPOSE_CELLS_CHUNKS;
    *j = id % TRANSPOSE_CELLS_CHUNKS;
}

/* Whether chunk column j of tile column tile_col lies inside the matrix
 * (else its warp reads nothing and stores nothing); whether tile (tile_row,
 * tile_col)'s chunk j of tile row t does (else its copy reads nothing and
 * writes zeros), and where it starts in `in`, in bytes. */
static BF_HD bool transpose_cells_column_inside(int elem_bytes, int64_t cols, int64_t tile_col,
                                                int j)
{
    return tile_col * 16 * TRANSPOSE_CELLS_CHUNKS + 16 * j < cols * elem_bytes;
}
static BF_HD bool transpose_cells_inside(int elem_bytes, int64_t rows, int64_t cols,
                                         int64_t tile_row, int64_t tile_col, int t, int j)
{
    return tile_row * TRANSPOSE_CELLS_ROWS + t < rows &&
           transpose_cells_column_inside(elem_bytes, cols, tile_col, j);
}
static BF_HD int64_t transpose_cells_in_byte(int elem_bytes, int64_t cols, int64_t tile_row,
                                             int64_t tile_col, int t, int j)
{
    return (tile_row * TRANSPOSE_CELLS_ROWS + t) * (cols * elem_bytes) +
           tile_col * 16 * TRANSPOSE_CELLS_CHUNKS + 16 * j;
}

/* Cell rows of tile row tile_row inside the matrix: lanes q past them
 * neither read the tile nor store. */
static BF_HD int transpose_cells_rows_inside(int elem_bytes, int64_t rows, int64_t tile_row)
{
    const int64_t left = rows - tile_row * TRANSPOSE_CELLS_ROWS;
    return (int)(left < TRANSPOSE_CELLS_ROWS ? left : TRANSPOSE_CELLS_ROWS) /
           transpose_pack(TRANSPOSE_PACKED, elem_bytes);
}

/* Where, in bytes of `out`, the lane of cell row q writes word e of cell m
 * of chunk column j: output row (the chunk's first column) + k m + e, from
 * input row tile_row x 128 + k q on. */
static BF_HD int64_t transpose_cells_out_byte(int elem_bytes, int64_t rows, int64_t tile_row,
                                              int64_t tile_col, int j, int q, int m, int e)
{
    const int k = transpose_pack(TRANSPOSE_PACKED, elem_bytes);
    const int64_t oc = (tile_col * 16 * TRANSPOSE_CELLS_CHUNKS + 16 * j) / elem_bytes + k * m + e;
    return (oc * rows + tile_row * TRANSPOSE_CELLS_ROWS + k * q) * elem_bytes;
}

/* ---- packed at other shapes: the cells tile, each output segment shifted ----
 *
 * Where the cells kernel does not run (rows off the sectors, odd shapes) but
 * `in` is on 16 bytes and the matrix has at least 256 rows of at least 256
 * bytes (transpose_shifted_shape), packed takes transpose_packed_shifted:
 * the cells kernel's raw cp.async tile, of each input row the 256 bytes at
 * any phase, copied as the three whole 128-byte lines of `in` they touch
 * (24 chunks: each line one line of the tile, the ideal), each lane's 16
 * bytes of a row picked out of two chunks by the row's phase; and, as the
 * 4- to 16-byte tiles do, each output row's segment moved back onto a
 * 32-byte sector (README, "Odd shapes"). The shift is up to a sector's
 * elements less one, 8 cell rows, so a tile reads 32 cell rows, one a lane:
 * the 8 above its own and its own 24 (96 rows of bytes, 48 of halves), and
 * writes 24 words of each of its 256 / elem_bytes output rows. A word of an
 * output row whose shift is not a whole cell holds the end of one lane's
 * cell and the start of the next's: each lane takes the cell of the lane
 * before by a shuffle. On the H100 (2026-11-26) 0.85-0.89 of copy for bytes
 * and halves at 7919x8209, 8193^2, 16383x16385 and 11587^2 where the
 * register-loaded tile reads 0.69-0.72 (bytes) and 0.79-0.82 (halves). */
#define TRANSPOSE_SHIFTED_ABOVE         8 /* cell rows above a tile's own: a sector's elements / k */
#define TRANSPOSE_SHIFTED_OWN           24 /* cell rows a tile writes: 32 - ABOVE, one a lane */
#define TRANSPOSE_SHIFTED_ROW           24 /* chunks a tile row: 3 lines, 256 bytes at any phase */
/* A tile of 32 cell rows of k rows of 24 chunks (transpose_shifted_offset):
 * 48 KiB for bytes, 24 KiB for halves. */
#define TRANSPOSE_SHIFTED_TILE_BYTES(k) (32 * (k)*TRANSPOSE_SHIFTED_ROW * 16)

/* Whether packed takes the shifted kernel at this shape where the cells
 * kernel does not (pointers aside: transpose_shifted_takes); a tile column
 * a block column, at most 65535. */
static BF_HD bool transpose_shifted_shape(int elem_bytes, int64_t rows, int64_t cols)
{
    return (elem_bytes == 1 || elem_bytes == 2) && rows >= 256 && cols * elem_bytes >= 256 &&
           transpose_cells_tile_cols(elem_bytes, cols) <= 65535;
}
/* Whether a launch of `variant` takes it, `in` and `out` from cudaMalloc
 * (the model and the tests); whether it is taken with these pointers (the
 * cells kernel goes first). */
static BF_HD bool transpose_shifted_launch(enum transpose_variant variant, int elem_bytes,
                                           int64_t rows, int64_t cols, int cc)
{
    return variant == TRANSPOSE_PACKED && cc >= 80 &&
           !transpose_cells_shape(elem_bytes, rows, cols) &&
           transpose_shifted_shape(elem_bytes, rows, cols);
}
static BF_HD bool transpose_shifted_takes(int elem_bytes, int64_t rows, int64_t cols,
                                          const void *in)
{
    return transpose_shifted_shape(elem_bytes, rows, cols) && (uintptr_t)in % 16 == 0;
}

/* Input rows a tile writes (its own), and tile rows of the grid: the last
 * output words of a column lie up to 8 cell rows below its last tile's own. */
static BF_HD int64_t transpose_shifted_rows(int elem_bytes)
{
    return TRANSPOSE_SHIFTED_OWN * transpose_pack(TRANSPOSE_PACKED, elem_bytes);
}
static BF_HD int64_t transpose_shifted_tile_rows(int elem_bytes, int64_t rows)
{
    const int64_t own = transpose_shifted_rows(elem_bytes);
    return (rows + TRANSPOSE_SHIFTED_ABOVE * transpose_pack(TRANSPOSE_PACKED, elem_bytes) - 1 +
            own - 1) /
           own;
}
/* Whether tile row tile_row of tile column tile_col checks what it copies
 * and stores: the first (rows above the matrix), those that reach its last
 * row (a copy may pass the end of `in`), the right edge (columns past it).
 * The others copy 16 bytes every time and store whole words. */
static BF_HD bool transpose_shifted_edge(int elem_bytes, int64_t rows, int64_t cols,
                                         int64_t tile_row, int64_t tile_col)
{
    const int64_t own = transpose_shifted_rows(elem_bytes);
    return tile_row == 0 || (tile_row + 1) * own > rows - 1 ||
           (tile_col + 1) * 16 * TRANSPOSE_CELLS_CHUNKS > cols * elem_bytes;
}

/* Which 16-byte chunk of its 128-byte line of `in` tile row t's first
 * chunk is (in_at: `in`'s own place in its line; row_byte from
 * transpose_shifted_row_byte). */
static BF_HD unsigned transpose_shifted_line(unsigned in_at, int64_t row_byte)
{
    return ((in_at + (unsigned)row_byte) >> 4) & 7u; /* the low bits are all it needs */
}
/* Byte offset in the tile of chunk c of tile row t (c from -g to 23 - g:
 * chunk 0 holds the row's first byte), g the place of that chunk in its
 * 128-byte line of `in`: the row's three lines of `in` are its three lines
 * of the tile, so that each line a warp copies fills one (a wavefront, the
 * ideal); within it chunk c sits at (c + t / k) mod 8, so that the 8 lanes
 * of a quarter-warp, reading the same chunk of 8 consecutive cell rows,
 * read 8 different 16-byte groups of banks (the ideal too). */
static BF_HD uint32_t transpose_shifted_offset(int elem_bytes, int t, int c, unsigned g)
{
    const int k = transpose_pack(TRANSPOSE_PACKED, elem_bytes);
    return 16u *
           (uint32_t)(TRANSPOSE_SHIFTED_ROW * t + 8 * (((int)g + c) >> 3) + ((c + 8 + t / k) & 7));
}

/* Copy n of thread `thread`: tile row *t, chunk *s of its three lines (the
 * row's chunk s - g); 32 k rows of 24, 6 copies a thread for bytes, 3 for
 * halves (false past them: whole warps). */
static BF_HD bool transpose_shifted_copy(int elem_bytes, int thread, int n, int *t, int *s)
{
    const int id = thread + TRANSPOSE_CELLS_THREADS * n;
    *t = id / TRANSPOSE_SHIFTED_ROW;
    *s = id % TRANSPOSE_SHIFTED_ROW;
    return id < 32 * transpose_pack(TRANSPOSE_PACKED, elem_bytes) * TRANSPOSE_SHIFTED_ROW;
}
#define TRANSPOSE_SHIFTED_COPIES 6 /* the most copies a thread makes (bytes) */

/* Where tile row t's 256 bytes start in `in`, in bytes (the row may lie
 * above the matrix: negative); its phase is this mod 16 (`in` on 16). */
static BF_HD int64_t transpose_shifted_row_byte(int elem_bytes, int64_t cols, int64_t tile_row,
                                                int64_t tile_col, int t)
{
    const int k = transpose_pack(TRANSPOSE_PACKED, elem_bytes);
    const int64_t row =
        tile_row * transpose_shifted_rows(elem_bytes) - TRANSPOSE_SHIFTED_ABOVE * k + t;
    return row * cols * elem_bytes + tile_col * 16 * TRANSPOSE_CELLS_CHUNKS;
}
/* Whether chunk s of tile row t's three lines copies its 16 bytes, from
 * *from (bytes into `in`; else it reads nothing and writes zeros): its row
 * is inside the matrix and the chunk wholly inside `in` (in_at: `in`'s
 * place in its line). A copy of fewer bytes would still read 16 (the
 * sanitizer says so), so the last bytes of `in`, the end of its last row
 * where that is not on 16 bytes, never reach the tile: the kernel stores
 * the last row's elements from `in` itself. */
static BF_HD bool transpose_shifted_copy_inside(int elem_bytes, int64_t rows, int64_t cols,
                                                int64_t tile_row, int64_t tile_col, int t, int s,
                                                unsigned in_at, int64_t *from)
{
    const int k = transpose_pack(TRANSPOSE_PACKED, elem_bytes);
    const int64_t row =
        tile_row * transpose_shifted_rows(elem_bytes) - TRANSPOSE_SHIFTED_ABOVE * k + t;
    const int64_t start = transpose_shifted_row_byte(elem_bytes, cols, tile_row, tile_col, t);
    *from = start - (int64_t)((in_at + (unsigned)start) % 128) + 16 * s;
    return row >= 0 && row < rows && *from >= 0 && *from + 16 <= rows * cols * elem_bytes;
}

/* Output row o's shift in tile row tile_row: its element (o, the tile's
 * first own row) lies this many bytes past a 32-byte sector of `out` (out_at:
 * `out`'s own place in its sector); the row's segment starts that far
 * before it. */
static BF_HD unsigned transpose_shifted_sector_bytes(int elem_bytes, int64_t rows, unsigned out_at,
                                                     int64_t o, int64_t tile_row)
{
    const int64_t element = o * rows + tile_row * transpose_shifted_rows(elem_bytes);
    return (unsigned)((out_at + (uint64_t)(element * elem_bytes)) % TRANSPOSE_SECTOR);
}

/* The output word a lane writes: the last bs elements of the cell row
 * before (`prev`) and the first k - bs of its own, bs its row's shift in
 * elements mod k; what a funnel shift gives. */
static BF_HD uint32_t transpose_shifted_word(int elem_bytes, uint32_t prev, uint32_t cell,
                                             unsigned bs)
{
    const unsigned b = 8u * (unsigned)elem_bytes * bs; /* bits from prev */
#ifdef __CUDA_ARCH__
    return __funnelshift_rc(prev, cell, 32 - b); /* one shf; 32 (b = 0): cell */
#else
    return b == 0 ? cell : (uint32_t)(prev >> (32 - b)) | (uint32_t)(cell << b);
#endif
}

#endif
