/* Where the transpose kernels put each element in shared memory, and which
 * elements each thread moves. A block of 32 x 16 threads moves a tile of 64
 * rows of cells: 64 cells a row of up to 4 bytes, 32 of 8 or 16 (a warp's
 * load then covers at least 128 contiguous bytes). A cell is one element, or
 * for packed's register-loaded tile a k x k block (4 x 4 bytes, 2 x 2 halves)
 * whose rows are 4-byte words. Load phase: a warp reads 32 cells of a tile
 * row along the input (lane = column). Store phase: a warp reads 32 rows of a
 * tile column (lane = row) and writes them along an output row, 64 cells of
 * a row from one warp. The kernels (transpose.cu, transpose_packed.cu) call
 * these functions for every shared access, and the bank model calls the very
 * same ones for every lane, so the model cannot drift from the code. The
 * tiles' one body, transpose_tiled, closes this file (nvcc only). */
#ifndef BANKFREE_TRANSPOSE_LAYOUT_H
#define BANKFREE_TRANSPOSE_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/hostdev.h"
#include "common/sm_limits.h"
#include "transpose/transpose.h"

/* 64 x 64 cells, 32 x 16 threads: of eight shapes tried for fp32 on the H100
 * (transpose/probes/tile_shape.cu, docs/notes/transpose/), the only one level
 * with or ahead of cublasSgeam from 4096^2 up and on odd shapes. A probe may
 * override it (the width a power of two of at least 32). */
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

/* Sector-aligned output. Where output rows do not start on a 32-byte DRAM
 * sector (an odd row count, `out` off a sector), a warp's 64-cell segment
 * shares its end sectors with the blocks beside it, and those partial
 * writes cost a fifth of the bandwidth (fp32 at 7919 x 8209 on the H100:
 * 0.79 of copy; transpose/probes/odd_rows.cu). So a tile starts each output
 * segment on the sector at or before its first column, `phase` elements
 * early, and reads the rows above it that this reaches: every output sector
 * is then written by one store (0.94 of copy). Done for elements of 4 bytes
 * or more, whose time DRAM sets; not for packed's k x k cells (their rows
 * cannot move by one element), nor for bytes and halves in the other tiles,
 * whose time the shared pipe sets (8-32% slower on the H100;
 * docs/notes/transpose/). */
#define TRANSPOSE_SECTOR 32
static TRANSPOSE_CONST BF_HD bool transpose_sector_aligned(enum transpose_variant variant,
                                                           int elem_bytes)
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
    return transpose_sector_aligned(variant, elem_bytes) ? TRANSPOSE_SECTOR / elem_bytes - 1 : 0;
}

/* How far `out` lies past a sector, in elements (0 where the variant's
 * output is not sector-aligned). */
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
                           and 0 or below in a tile row the rows above add */
    int cols_inside;    /* tile columns (elements) inside the matrix: all but at the right edge */
    int above;          /* rows read above the tile (transpose_rows_above) */
    int rows_from;      /* the first row inside the matrix, from the tile's first: 0 or below */
    int first_phase;    /* output row 0's phase: its segment starts this many elements early,
                           on a sector; row i's adds i x row_phase */
    int row_phase;
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
    t.first_phase = (int)((out_phase + t.out_origin) & above);
    t.row_phase = (int)(rows & above);
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
 * the matrix (rows above it only where the output is sector-aligned). */
static BF_HD bool transpose_inside(enum transpose_variant variant, int elem_bytes,
                                   const struct transpose_tile *t, int row, int col)
{
    return (!transpose_sector_aligned(variant, elem_bytes) || row >= t->rows_from) &&
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
 * starting `phase` elements before the tile's first column: on a sector. */
static BF_HD struct transpose_move transpose_store_move(enum transpose_variant variant,
                                                        int elem_bytes,
                                                        const struct transpose_tile *t, int tx,
                                                        int ty, int k)
{
    const int pack = transpose_pack(variant, elem_bytes);
    int i = ty + (k / TRANSPOSE_ROW_STORES) * TRANSPOSE_BLOCK_ROWS; /* output cell row */
    int j = (k % TRANSPOSE_ROW_STORES) * 32 + tx;                   /* output cell column */
    /* (t->above is 0 where the output is not sector-aligned; spelled out
     * here, the packed kernel's store phase compiles as it would without
     * the rows above.) */
    const int phase = transpose_sector_aligned(variant, elem_bytes)
                          ? (t->first_phase + i * t->row_phase) & t->above
                          : 0;
    const int above = transpose_sector_aligned(variant, elem_bytes) ? t->above : 0;
    struct transpose_move m;
    m.global = t->out_origin + ty * pack * t->rows + (k / TRANSPOSE_ROW_STORES) * t->out_step +
               j * pack - phase;
    m.smem = transpose_tile_offset(variant, elem_bytes, j + above - phase, i);
    m.row = j * pack - phase;
    m.col = i * pack;
    m.exists = true;
    m.active = transpose_inside(variant, elem_bytes, t, m.row, m.col);
    return m;
}

/* ---- the tiles' one body (nvcc only): transpose.cu's kernels and
 * transpose_packed.cu's register-loaded tile run it ---- */
#ifdef __CUDACC__

/* Four blocks an SM, all 64 warps: 32 registers for fp32, no spills. Free,
 * the compiler takes 40 and three blocks fit, 2-4% slower on H100 at 2048^2
 * (transpose/probes/tile_shape.sh, which sets it). Where an SM holds fewer
 * threads (sm_86/89/120: 3 blocks; sm_75: 2), BF_MIN_BLOCKS asks for what
 * it holds. */
#ifndef TRANSPOSE_MIN_BLOCKS
#define TRANSPOSE_MIN_BLOCKS 4
#endif

/* An element of E bytes as the type one load or store moves. */
template <int E> struct transpose_elem;
template <> struct transpose_elem<1> {
    typedef uint8_t type;
};
template <> struct transpose_elem<2> {
    typedef uint16_t type;
};
template <> struct transpose_elem<4> {
    typedef uint32_t type;
};
template <> struct transpose_elem<8> {
    typedef uint2 type;
};
template <> struct transpose_elem<16> {
    typedef uint4 type;
};

/* Tile columns across a matrix of `cols`. */
template <int E, enum transpose_variant V>
static __device__ __forceinline__ int64_t tile_cols(int64_t cols)
{
    constexpr int width = transpose_tile_width(V, E);
    return (cols + width - 1) / width;
}

/* One tile. Both global accesses coalesced: filled along input rows,
 * emptied along output rows; each phase issues all its loads before any
 * store. Every thread writes its cells of the tile, inside the matrix or not,
 * so tile writes compile to plain stores (a load step past the rows read is
 * skipped by the whole warp); tile reads are guarded, as a cell outside is
 * never written out. The global accesses are Mover's (transpose_elements in
 * transpose.cu, transpose_blocks in transpose_packed.cu); a Mover whose
 * accesses shuffle across the warp (all_lanes) is called for every cell and
 * guards its own. */
template <int E, enum transpose_variant V, class Mover>
static __device__ __forceinline__ void
transpose_tile_move(unsigned char *tile, void *__restrict__ out, const void *__restrict__ in,
                    const struct transpose_tile &t)
{
    typedef typename Mover::Cell Cell;
    const int tx = threadIdx.x, ty = threadIdx.y;
    Mover mover(out, in, t);
    Cell v[transpose_load_steps(V, E)] = {};
#pragma unroll
    for (int k = 0; k < transpose_load_steps(V, E); ++k) {
        struct transpose_move m = transpose_load_move(V, E, &t, tx, ty, k);
        if (m.exists && (Mover::all_lanes || m.active))
            v[k] = mover.load(m);
    }
#pragma unroll
    for (int k = 0; k < transpose_load_steps(V, E); ++k) {
        struct transpose_move m = transpose_load_move(V, E, &t, tx, ty, k);
        if (m.exists)
            *(Cell *)(tile + m.smem) = v[k];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < transpose_steps(V, E); ++k) {
        struct transpose_move m = transpose_store_move(V, E, &t, tx, ty, k);
        if (m.active)
            v[k] = *(const Cell *)(tile + m.smem);
    }
#pragma unroll
    for (int k = 0; k < transpose_steps(V, E); ++k) {
        struct transpose_move m = transpose_store_move(V, E, &t, tx, ty, k);
        if (Mover::all_lanes || m.active)
            mover.store(m, v[k]);
    }
}

/* The tiles of the block's tile row. Mover moves those it takes
 * (Mover::takes), Edge the others. */
template <int E, enum transpose_variant V, class Mover, class Edge = Mover>
static __device__ __forceinline__ void transpose_tiled(unsigned char *tile, void *__restrict__ out,
                                                       const void *__restrict__ in, int64_t rows,
                                                       int64_t cols)
{
    const int64_t tile_row = blockIdx.x;
    const int out_phase = transpose_out_phase(V, E, out);
    for (int64_t tile_col = blockIdx.y; tile_col < tile_cols<E, V>(cols); tile_col += gridDim.y) {
        const struct transpose_tile t =
            transpose_tile_at(V, E, rows, cols, out_phase, tile_row, tile_col);
        if (Mover::takes(t))
            transpose_tile_move<E, V, Mover>(tile, out, in, t);
        else
            transpose_tile_move<E, V, Edge>(tile, out, in, t);
        if (tile_col + gridDim.y < tile_cols<E, V>(cols))
            __syncthreads(); /* the next tile overwrites this one */
    }
}

#endif /* __CUDACC__ */

#endif
