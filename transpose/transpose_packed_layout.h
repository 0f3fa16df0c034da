/* Where the packed variant's two cp.async kernels (transpose_packed.cu) put
 * their tiles, and which launches take them. transpose(TRANSPOSE_PACKED, ...)
 * runs, on sm_80 and later:
 *   - the cells kernel where output rows start on 32-byte sectors (rows x
 *     elem_bytes a multiple of 32, `out` on a sector), a row of `in` is a
 *     multiple of 16 bytes and `in` lies on 16: tiles of 128 rows x 256
 *     bytes copied in by cp.async (transpose_cells_shape);
 *   - the lines kernel at other shapes with `in` on 16 bytes and at least
 *     256 rows of at least 256 bytes: such tiles copied from any phase, each
 *     output row's segment starting on a sector (transpose_lines_shape);
 *   - elsewhere the register-loaded tile (transpose_layout.h): aligned 4-byte
 *     words at any shape and pointer (rows that start off a word
 *     funnel-shifted), single elements in partial tiles at the right edge,
 *     the first tile and any that ends fewer than 3 bytes before the input.
 * As in transpose_layout.h, which this extends, the kernels and the bank
 * model (transpose_model.c) call the very same functions. */
#ifndef BANKFREE_TRANSPOSE_PACKED_LAYOUT_H
#define BANKFREE_TRANSPOSE_PACKED_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/hostdev.h"
#include "transpose/transpose.h"
#include "transpose/transpose_layout.h"

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
 * their words, lanes along the output row. On the H100 0.95-0.96 of copy
 * for bytes and halves where the register-loaded tile stops at 0.91-0.94:
 * both the 256-byte rows (half as many rows a byte, so half the DRAM pages
 * opened) and the copies are needed (transpose/probes/cp_async_cells.cu).
 * With output rows off the sectors it loses to that tile (halves at
 * 7916x8208 1.18x its time, bytes 1.05x), so it does not take them. */
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

/* ---- packed at other shapes: the lines kernel, sector-aligned output ----
 *
 * Where the cells kernel does not run (rows off the sectors, odd shapes) but
 * `in` is on 16 bytes and the matrix has at least 256 rows of at least 256
 * bytes (transpose_lines_shape), packed takes transpose_packed_lines: the
 * cells kernel's raw cp.async tile, of each input row the 256 bytes at any
 * phase, copied as the three whole 128-byte lines of `in` they touch (24
 * chunks: each line one line of the tile, the ideal), each lane's 16 bytes
 * of a row picked out of two chunks by the row's phase; and, as the 4- to
 * 16-byte tiles do, each output row's segment started on a 32-byte sector
 * (docs/notes/transpose/). A row's phase is up to a sector's elements less
 * one, 8 cell rows, so a tile reads 32 cell rows, one a lane: the 8 above
 * its own and its own 24 (96 rows of bytes, 48 of halves), and writes 24
 * words of each of its 256 / elem_bytes output rows. A word of an output
 * row whose phase is not a whole cell holds the end of one lane's cell and
 * the start of the next's: each lane takes the cell of the lane before by
 * a shuffle. Against the register-loaded tile's 0.69-0.72 (bytes) and
 * 0.79-0.82 (halves) of copy at odd shapes on the H100, 0.84-0.92 where
 * the data is 4x L2 or more, but 0.75 for bytes at 7919x8209 with L2
 * flushed (H100, before the copies were dealt by line); on the H200 bytes
 * 0.79-0.93, halves 0.91-0.94 stacked (transpose_lines_stack)
 * (docs/notes/transpose/odd-shapes.md). */
#define TRANSPOSE_LINES_ABOVE         8  /* cell rows above a tile's own: a sector's elements / k */
#define TRANSPOSE_LINES_OWN           24 /* cell rows a tile writes: 32 - ABOVE, one a lane */
#define TRANSPOSE_LINES_ROW           24 /* chunks a tile row: 3 lines, 256 bytes at any phase */
/* A tile of 32 cell rows of k rows of 24 chunks (transpose_lines_offset):
 * 48 KiB for bytes, 24 KiB for halves. */
#define TRANSPOSE_LINES_TILE_BYTES(k) (32 * (k)*TRANSPOSE_LINES_ROW * 16)

/* Input rows a tile writes (its own), and tile rows of the grid: the last
 * output words of a column lie up to 8 cell rows below its last tile's own. */
static BF_HD int64_t transpose_lines_rows(int elem_bytes)
{
    return TRANSPOSE_LINES_OWN * transpose_pack(TRANSPOSE_PACKED, elem_bytes);
}
static BF_HD int64_t transpose_lines_tile_rows(int elem_bytes, int64_t rows)
{
    const int64_t own = transpose_lines_rows(elem_bytes);
    return (rows + TRANSPOSE_LINES_ABOVE * transpose_pack(TRANSPOSE_PACKED, elem_bytes) - 1 + own -
            1) /
           own;
}

/* Tiles a block of the lines kernel takes, one under the other in its tile
 * column (tile rows stack * blockIdx.x on). Halves stack two where the
 * grid is large (at least four waves of four blocks an SM after stacking,
 * where four fit: the H100's and H200's 228 KiB of shared memory):
 * 48 KiB a block as one tile of bytes, so an SM has as many bytes in
 * flight, and the second tile's copies land while the block stores the
 * first; on the H200 halves at 7919 x 8209 and up run 8-14% faster so,
 * at 2047 x 2049 (under a wave) 16% slower
 * (docs/notes/transpose/odd-shapes.md). */
#define TRANSPOSE_LINES_STACK_MAX 2
static BF_HD int transpose_lines_stack(int elem_bytes, int64_t rows, int64_t cols, int sms)
{
    const int64_t tiles = transpose_lines_tile_rows(elem_bytes, rows) *
                          transpose_cells_tile_cols(elem_bytes, cols),
                  four_waves = (int64_t)4 * 4 * sms; /* blocks: four waves of four an SM */
    return elem_bytes == 2 && tiles >= TRANSPOSE_LINES_STACK_MAX * four_waves
               ? TRANSPOSE_LINES_STACK_MAX
               : 1;
}
static BF_HD int64_t transpose_lines_blocks(int elem_bytes, int64_t rows, int stack)
{
    return (transpose_lines_tile_rows(elem_bytes, rows) + stack - 1) / stack;
}

/* Whether packed takes the lines kernel at this shape where the cells
 * kernel does not (pointers aside: transpose_lines_takes); a tile column
 * a block column, at most 65535, and at most 2^31 - 1 tile rows (halves'
 * 48-row tiles can pass the refusal's count of 64-row ones). */
static BF_HD bool transpose_lines_shape(int elem_bytes, int64_t rows, int64_t cols)
{
    return (elem_bytes == 1 || elem_bytes == 2) && rows >= 256 && cols * elem_bytes >= 256 &&
           transpose_cells_tile_cols(elem_bytes, cols) <= 65535 &&
           transpose_lines_tile_rows(elem_bytes, rows) <= INT32_MAX;
}
/* Whether a launch of `variant` takes it, `in` and `out` from cudaMalloc
 * (the model and the tests); whether it is taken with these pointers (the
 * cells kernel goes first). */
static BF_HD bool transpose_lines_launch(enum transpose_variant variant, int elem_bytes,
                                         int64_t rows, int64_t cols, int cc)
{
    return variant == TRANSPOSE_PACKED && cc >= 80 &&
           !transpose_cells_shape(elem_bytes, rows, cols) &&
           transpose_lines_shape(elem_bytes, rows, cols);
}
static BF_HD bool transpose_lines_takes(int elem_bytes, int64_t rows, int64_t cols, const void *in)
{
    return transpose_lines_shape(elem_bytes, rows, cols) && (uintptr_t)in % 16 == 0;
}

/* Whether tile row tile_row of tile column tile_col checks what it copies
 * and stores: the first (rows above the matrix), those whose output
 * segments can reach the sector where the next output row starts (a
 * segment is 96 bytes from the sector of its first own row: own rows past
 * rows - 32 / elem_bytes; a copy may pass the end of `in`), the right edge
 * (columns past it). The others copy 16 bytes every time and store whole
 * words. */
static BF_HD bool transpose_lines_edge(int elem_bytes, int64_t rows, int64_t cols, int64_t tile_row,
                                       int64_t tile_col)
{
    const int64_t own = transpose_lines_rows(elem_bytes);
    return tile_row == 0 || (tile_row + 1) * own + TRANSPOSE_SECTOR / elem_bytes > rows ||
           (tile_col + 1) * 16 * TRANSPOSE_CELLS_CHUNKS > cols * elem_bytes;
}

/* Whether a block of `stack` tiles takes the edge path: where any of its
 * tiles needs it (on an interior tile that path does what the interior's
 * does; a tile row past the grid counts as an edge). */
static BF_HD bool transpose_lines_edge_block(int elem_bytes, int64_t rows, int64_t cols, int stack,
                                             int64_t block_row, int64_t tile_col)
{
#if TRANSPOSE_LINES_STACK_MAX != 2
#error "transpose_lines_edge_block asks two tiles at most"
#endif
    return transpose_lines_edge(elem_bytes, rows, cols, stack * block_row, tile_col) ||
           (stack == 2 &&
            transpose_lines_edge(elem_bytes, rows, cols, stack * block_row + 1, tile_col));
}

/* Which 16-byte chunk of its 128-byte line of `in` tile row t's first
 * chunk is (in_at: `in`'s own place in its line; row_byte from
 * transpose_lines_row_byte). */
static BF_HD unsigned transpose_lines_first_chunk(unsigned in_at, int64_t row_byte)
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
static BF_HD uint32_t transpose_lines_offset(int elem_bytes, int t, int c, unsigned g)
{
    const int k = transpose_pack(TRANSPOSE_PACKED, elem_bytes);
    return 16u *
           (uint32_t)(TRANSPOSE_LINES_ROW * t + 8 * (((int)g + c) >> 3) + ((c + 8 + t / k) & 7));
}

/* transpose_lines_offset of chunk c of row t = k lane + i of a tile (i <
 * k), in two parts: the lane's, and the row's, from where the row starts
 * past a 128-byte line of `in` (in_row_byte: in_at + row_byte, mod 2^32;
 * its chunk (in_row_byte / 16) % 8 is the row's g). */
static BF_HD uint32_t transpose_lines_offset_lane(int elem_bytes, int lane, int c)
{
    const int k = transpose_pack(TRANSPOSE_PACKED, elem_bytes);
    return 16u * (uint32_t)(TRANSPOSE_LINES_ROW * k * lane + ((c + lane) & 7));
}
static BF_HD uint32_t transpose_lines_offset_row(int i, unsigned in_row_byte, int c)
{
    return 16u * TRANSPOSE_LINES_ROW * (uint32_t)i +
           (((in_row_byte & 0x70u) + 16u * (unsigned)c) & ~127u);
}
/* Both parts: where the store phase finds chunk c of row i of lane's cell
 * row (the kernel, the model and the emulation ask this). */
static BF_HD uint32_t transpose_lines_chunk(int elem_bytes, int lane, int i, unsigned in_row_byte,
                                            int c)
{
    return transpose_lines_offset_lane(elem_bytes, lane, c) +
           transpose_lines_offset_row(i, in_row_byte, c);
}

/* The store phase's warp j reads chunks j and j + 1 of each row, in lines
 * (g + j) / 8 and (g + j + 1) / 8 of the three the row copies (g < 8: the
 * chunk of its line the row starts at): at most line 1 for the first 8
 * warps, which so store once lines 0 and 1 are in (lines_tile). */
#define TRANSPOSE_LINES_NEAR_WARPS 8

/* Copy n of thread `thread`: tile row *t, chunk *s of its three lines (the
 * row's chunk s - g). Eight lanes copy a line: a warp's copy n is line n %
 * 3 of 4 tile rows, thread / 8 + 64 (n / 3), so that a thread's copies
 * take two rows (bytes: 32 k = 128 rows, 6 copies; halves 64, 3) and each
 * row's place in `in` is worked out once (false past them: whole warps). */
static BF_HD bool transpose_lines_copy(int elem_bytes, int thread, int n, int *t, int *s)
{
    *t = thread / 8 + TRANSPOSE_CELLS_THREADS / 8 * (n / 3);
    *s = 8 * (n % 3) + thread % 8;
    return *t < 32 * transpose_pack(TRANSPOSE_PACKED, elem_bytes);
}
#define TRANSPOSE_LINES_COPIES 6 /* the most copies a thread makes (bytes) */

/* Where tile row t's 256 bytes start in `in`, in bytes (the row may lie
 * above the matrix: negative); its phase is this mod 16 (`in` on 16). */
static BF_HD int64_t transpose_lines_row_byte(int elem_bytes, int64_t cols, int64_t tile_row,
                                              int64_t tile_col, int t)
{
    const int k = transpose_pack(TRANSPOSE_PACKED, elem_bytes);
    const int64_t row = tile_row * transpose_lines_rows(elem_bytes) - TRANSPOSE_LINES_ABOVE * k + t;
    return row * cols * elem_bytes + tile_col * 16 * TRANSPOSE_CELLS_CHUNKS;
}
/* transpose_lines_row_byte for the edge tiles, which take the matrix as
 * one run of rows x cols elements: a row above it is its row rows - i one
 * element to the left, a row below it its row i one element to the right.
 * So the words before output row o's first element come out as row o - 1's
 * last elements and those after its last as o + 1's first: the sector
 * where o + 1 starts is written whole by o + 1's first tile row
 * (transpose_lines_owns), never in part by two blocks. */
static BF_HD int64_t transpose_lines_row_byte_wrapped(int elem_bytes, int64_t rows, int64_t cols,
                                                      int64_t tile_row, int64_t tile_col, int t)
{
    const int k = transpose_pack(TRANSPOSE_PACKED, elem_bytes);
    const int64_t row = tile_row * transpose_lines_rows(elem_bytes) - TRANSPOSE_LINES_ABOVE * k + t,
                  byte = transpose_lines_row_byte(elem_bytes, cols, tile_row, tile_col, t),
                  wrap = (rows * cols - 1) * elem_bytes;
    return row < 0 ? byte + wrap : row >= rows ? byte - wrap : byte;
}
/* Where chunk s of the three lines of a tile row starting at row_byte
 * (transpose_lines_row_byte) lies in `in`, in bytes (in_at: `in`'s place
 * in its line). */
static BF_HD int64_t transpose_lines_from(unsigned in_at, int64_t row_byte, int s)
{
    return row_byte - (int64_t)((in_at + (unsigned)row_byte) % 128) + 16 * s;
}
/* Whether chunk s of tile row t's three lines copies its 16 bytes, from
 * *from (bytes into `in`, rows wrapped as transpose_lines_row_byte_wrapped
 * has them; else it reads nothing and writes zeros): the chunk lies wholly
 * inside `in` (in_at: `in`'s place in its line). A copy of fewer bytes
 * would still read 16 (the sanitizer says so), so the last bytes of `in`,
 * the end of its last row where that is not on 16 bytes, never reach the
 * tile: the kernel loads that row's 16 bytes from `in` itself. */
static BF_HD bool transpose_lines_copy_inside(int elem_bytes, int64_t rows, int64_t cols,
                                              int64_t tile_row, int64_t tile_col, int t, int s,
                                              unsigned in_at, int64_t *from)
{
    *from = transpose_lines_from(
        in_at, transpose_lines_row_byte_wrapped(elem_bytes, rows, cols, tile_row, tile_col, t), s);
    return *from >= 0 && *from + 16 <= rows * cols * elem_bytes;
}

/* Whether tile (tile_row, tile_col), an edge tile, can hold 16 bytes at a
 * row's phase that reach the last 16 bytes of `in` where those are not
 * whole (never copied: transpose_lines_copy_inside): row rows - 1 (in the
 * tile rows whose own rows reach it or pass it, the last one or two, and
 * wrapped in from row -1 in tile row 0) read within 16 bytes of its end.
 * Tile-uniform: the other edge tiles skip the test a row. */
static BF_HD bool transpose_lines_tail(int elem_bytes, int64_t rows, int64_t cols, int64_t tile_row,
                                       int64_t tile_col)
{
    return (tile_row == 0 || (tile_row + 1) * transpose_lines_rows(elem_bytes) >= rows) &&
           (tile_col + 1) * 16 * TRANSPOSE_CELLS_CHUNKS + 16 > cols * elem_bytes;
}

/* Whether an edge tile writes the word at byte address `word` (on 4
 * bytes) of output row o, next_row the address of o + 1's first element:
 * not from the sector where o + 1 starts on, which o + 1's first tile row
 * writes whole (transpose_lines_row_byte_wrapped), unless o is the last
 * output row. */
static BF_HD bool transpose_lines_owns(uint64_t word, uint64_t next_row, bool last_output_row)
{
    return last_output_row || word < (next_row & ~(uint64_t)(TRANSPOSE_SECTOR - 1));
}

/* Output row o's phase in tile row tile_row, in bytes: its element (o, the tile's
 * first own row) lies this many bytes past a 32-byte sector of `out` (out_at:
 * `out`'s own place in its sector); the row's segment starts that far
 * before it. */
static BF_HD unsigned transpose_lines_phase_bytes(int elem_bytes, int64_t rows, unsigned out_at,
                                                  int64_t o, int64_t tile_row)
{
    const int64_t element = o * rows + tile_row * transpose_lines_rows(elem_bytes);
    return (unsigned)((out_at + (uint64_t)(element * elem_bytes)) % TRANSPOSE_SECTOR);
}

/* The output word a lane writes: the last elements of the cell row before
 * (`prev`) and the first of its own, as many of prev's as the row's phase
 * sb (bytes past a sector, whole elements; any number equal to it mod 4)
 * is past a word: a funnel shift by 8 sb mod 32 bits, which shf's wrap
 * mode takes as it is. */
static BF_HD uint32_t transpose_lines_word(uint32_t prev, uint32_t cell, unsigned sb)
{
#ifdef __CUDA_ARCH__
    uint32_t word; /* one shf, the shift mod 32 (__funnelshift_l would mask it first) */
    asm("shf.l.wrap.b32 %0, %1, %2, %3;" : "=r"(word) : "r"(prev), "r"(cell), "r"(8 * sb));
    return word;
#else
    const unsigned b = 8 * sb % 32; /* bits from prev */
    return b == 0 ? cell : (uint32_t)(prev >> (32 - b)) | (uint32_t)(cell << b);
#endif
}

/* Whether lane `lane` writes its word of an output row, by where its word
 * would start if cell rows began on words (at: (o, the tile's first own
 * row) + 4 (lane - 8) bytes of `out`, mod 32 all it needs): bit at % 32 of
 * transpose_lines_writes(lane). The row's phase sb = at - 4 (lane - 8) mod
 * 32 puts the lane's word at lane - 8 + sb / 4 of the segment's 24: lanes
 * 8 to 24 always write; lane 8 - n only where at % 32 < 4 (8 - n), lane
 * 24 + n only where at % 32 >= 4 n. */
static BF_HD uint32_t transpose_lines_writes(int lane)
{
    if (lane < TRANSPOSE_LINES_ABOVE)
        return (1u << 4 * lane) - 1;
    return lane > TRANSPOSE_LINES_OWN ? ~0u << 4 * (lane - TRANSPOSE_LINES_OWN) : ~0u;
}
static BF_HD bool transpose_lines_writes_at(uint32_t writes, unsigned at)
{
#ifdef __CUDA_ARCH__
    uint32_t turned; /* one shf, the shift mod 32 */
    asm("shf.r.wrap.b32 %0, %1, %1, %2;" : "=r"(turned) : "r"(writes), "r"(at));
    return turned & 1;
#else
    return writes >> at % 32 & 1;
#endif
}

#endif
