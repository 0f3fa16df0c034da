/* The transpose family on the CPU: the bank model on every shared access site
 * of every variant and element size, and the CPU reference. */
#include <stdlib.h>
#include <string.h>

#include "common/bank_model.h"
#include "tests/unit.h"
#include "transpose/transpose.h"
#include "transpose/transpose_layout.h"
#include "transpose/transpose_packed_layout.h"
#include "transpose/transpose_model.h"
#include "transpose/transpose_ref.h"

static const struct bf_size shapes[] = {
    {2, {8192, 8192}}, {2, {32, 32}},  {2, {33, 4097}},   {2, {1, 1}},
    {2, {100, 37}},    {2, {1, 4099}}, {2, {2097185, 3}}, {2, {7919, 8209}},
};
#define NSHAPES (int)(sizeof shapes / sizeof *shapes)

static const int sizes[] = {1, 2, 4, 8, 16};
#define NSIZES (int)(sizeof sizes / sizeof *sizes)

/* The conflicting tile's column read on whole tiles, in ways: a column of
 * 64-byte rows of bytes is 16 words in 2 banks; of 128-byte rows of halves
 * and 256-byte rows of floats, 32 words in one bank; 8-byte elements take
 * 32 wavefronts where 2 would do, 16-byte ones 32 where 4 would. */
static int conflicting_ways(int elem)
{
    return elem == 1 ? 16 : elem <= 4 ? 32 : elem == 8 ? 16 : 8;
}

static const enum transpose_variant tiled[] = {TRANSPOSE_CONFLICTING, TRANSPOSE_PADDED,
                                               TRANSPOSE_SWIZZLED, TRANSPOSE_PACKED};
#define NTILED (int)(sizeof tiled / sizeof *tiled)

/* Every tiled variant at every element size it runs (packed: 1 and 2 bytes). */
struct combo {
    enum transpose_variant v;
    int elem;
};
static int tiled_combos(struct combo out[NTILED * NSIZES])
{
    int n = 0;
    for (int e = 0; e < NSIZES; ++e)
        for (int l = 0; l < NTILED; ++l)
            if (transpose_refusal_elem(tiled[l], sizes[e], 1, 1) == NULL)
                out[n++] = (struct combo){tiled[l], sizes[e]};
    return n;
}

static int model(int variant, int elem, const struct bf_size *s, struct bf_site sites[BF_MAX_SITES])
{
    return transpose_model(variant, elem, s, &bf_rules_sm90, sites);
}

/* The naive kernel uses no shared memory; a refused launch makes none. */
static void test_naive_and_refused(void)
{
    struct bf_site sites[BF_MAX_SITES];
    for (int i = 0; i < NSHAPES; ++i)
        for (int e = 0; e < NSIZES; ++e) {
            EXPECT_EQ(model(TRANSPOSE_NAIVE, sizes[e], &shapes[i], sites), 0,
                      "naive: shared access sites");
            if (sizes[e] > 2)
                EXPECT(model(TRANSPOSE_PACKED, sizes[e], &shapes[i], sites) == 0,
                       "packed %d-byte: refused", sizes[e]);
        }
    EXPECT(transpose_refusal_elem(TRANSPOSE_PADDED, 3, 8, 8) != NULL, "3-byte elements refused");
    EXPECT(transpose_refusal_elem(TRANSPOSE_PACKED, 4, 8, 8) != NULL, "packed floats refused");
    EXPECT(transpose_refusal_elem(TRANSPOSE_PACKED, 1, 8, 8) == NULL, "packed bytes run");
    EXPECT(transpose_refusal_elem(TRANSPOSE_VARIANTS, 4, 8, 8) != NULL, "no such variant");
    EXPECT(transpose_refusal_elem(TRANSPOSE_PADDED, 16, 1, 0) != NULL, "empty refused");
}

/* Each tile is written a row at a time in the load phase (ideal for every
 * layout). Read by column, the plain tile conflicts (conflicting_ways on
 * whole tiles); padded, swizzled and packed are ideal at every size. */
static void test_tiled_sites(void)
{
    for (int e = 0; e < NSIZES; ++e)
        for (int i = 0; i < NSHAPES; ++i) {
            const int elem = sizes[e];
            const struct bf_size *s = &shapes[i];
            const int64_t rows = s->dim[0], cols = s->dim[1];
            const uint64_t elements = (uint64_t)(rows * cols);
            struct bf_site c[BF_MAX_SITES], f[BF_MAX_SITES];
            EXPECT_EQ(model(TRANSPOSE_CONFLICTING, elem, s, c), 2, "conflicting: sites");
            for (int l = 1; l < NTILED; ++l) {
                if (tiled[l] == TRANSPOSE_PACKED && elem > 2)
                    continue;
                EXPECT(model(tiled[l], elem, s, f) == 2, "variant %d: sites", tiled[l]);
                /* Packed's cells and lines kernels: 16-byte copies and
                 * reads; the cells kernel's copies ideal where each row
                 * starts a 128-byte line, else each line's copies straddle
                 * two of the tile's; the lines kernel's rows of 17 chunks
                 * span three lines of `in`, the first and last partly (ncu
                 * is held to the model, not the ideal: tests/hw_check.sh). */
                const bool lines = transpose_lines_launch(tiled[l], elem, rows, cols, 90);
                const bool cells = transpose_cells_launch(tiled[l], elem, rows, cols, 90) || lines;
                for (int k = 0; k < 2; ++k) {
                    EXPECT(f[k].wavefronts == f[k].ideal ||
                               (cells && k == 0 && (cols * elem % 128 != 0 || lines) &&
                                f[k].wavefronts > f[k].ideal),
                           "variant %d, %d-byte, %s %lldx%lld: %llu wavefronts, ideal %llu",
                           tiled[l], elem, f[k].name, (long long)rows, (long long)cols,
                           (unsigned long long)f[k].wavefronts, (unsigned long long)f[k].ideal);
                    EXPECT_EQ(f[k].access.bytes, cells ? 16 : transpose_cell_bytes(tiled[l], elem),
                              "a cell an access (the cells kernel: 16 bytes)");
                    if (cells)
                        EXPECT(f[k].access.op == (k == 0 ? BF_CP_ASYNC : BF_LOAD),
                               "cells: copies, then reads");
                    if (tiled[l] != TRANSPOSE_PACKED)
                        EXPECT(f[k].requests == c[k].requests, "same requests in every layout");
                }
            }
            EXPECT(c[0].access.op == BF_STORE && c[1].access.op == BF_LOAD, "write, then read");
            EXPECT(c[0].wavefronts == c[0].ideal, "conflicting tile write is a row: ideal");
            /* Every lane of every warp writes the tile, edge tiles too, and
             * the rows above it where the output rows are off the sectors. */
            const int64_t height = transpose_tile_height(TRANSPOSE_CONFLICTING, elem),
                          width = transpose_tile_width(TRANSPOSE_CONFLICTING, elem);
            const int above = transpose_rows_above(TRANSPOSE_CONFLICTING, elem, rows, 0);
            EXPECT_EQ(above, elem >= 4 && (rows * elem) % 32 != 0 ? 32 / elem - 1 : 0,
                      "rows read above");
            const int64_t tiles = transpose_grid_rows(TRANSPOSE_CONFLICTING, elem, rows, 0) *
                                  ((cols + width - 1) / width);
            EXPECT_EQ(tiles / ((cols + width - 1) / width), (rows + above + height - 1) / height,
                      "tile rows");
            EXPECT_EQ(c[0].requests,
                      tiles * (TRANSPOSE_TILE_ROWS + above) *
                          transpose_row_loads(TRANSPOSE_CONFLICTING, elem),
                      "tile writes");
            if (elem >= 2 && elem <= 4) /* one bank, one wavefront per active lane */
                EXPECT(c[1].wavefronts == elements,
                       "conflicting read %lldx%lld: %llu wavefronts, want %llu", (long long)rows,
                       (long long)cols, (unsigned long long)c[1].wavefronts,
                       (unsigned long long)elements);
            if (rows % height == 0 && cols % width == 0) {
                EXPECT(c[1].wavefronts == (uint64_t)conflicting_ways(elem) * c[1].ideal,
                       "%d-byte whole tiles: %d-way, got %llu / %llu", elem, conflicting_ways(elem),
                       (unsigned long long)c[1].wavefronts, (unsigned long long)c[1].ideal);
                EXPECT_EQ(c[1].worst, elem == 1 ? 16 : 32, "conflicting read: worst request");
                EXPECT_EQ(c[1].requests, elements / 32, "one request per 32 elements");
            }
        }
}

/* The model replays one tile of each kind (interior, bottom and right edge,
 * corner) and counts the rest; replaying every tile must give the same counts. */
static void test_interior_shortcut(void)
{
    const struct bf_size s[] = {
        {2, {100, 37}},  {2, {65, 97}},   {2, {128, 64}},   {2, {31, 200}},   {2, {200, 31}},
        {2, {300, 33}},  {2, {1, 100}},   {2, {257, 1}},    {2, {60, 70}},    {2, {127, 65}},
        {2, {190, 3}},   {2, {160, 272}}, {2, {288, 1040}}, {2, {32, 16}},    {2, {256, 528}},
        {2, {300, 260}}, {2, {520, 777}}, {2, {1000, 999}}, {2, {999, 1000}}, {2, {289, 129}},
        {2, {481, 258}}, {2, {337, 150}}};
    struct combo combos[NTILED * NSIZES];
    const int ncombos = tiled_combos(combos);
    for (int c = 0; c < ncombos; ++c)
        for (size_t i = 0; i < sizeof s / sizeof *s; ++i) {
            const enum transpose_variant v = combos[c].v;
            const int elem = combos[c].elem;
            struct bf_site fast[BF_MAX_SITES], slow[2];
            model(v, elem, &s[i], fast);
            const int64_t rows = s[i].dim[0], cols = s[i].dim[1];
            transpose_model_sites(v, elem, rows, cols, 90, slow);
            const bool cells = transpose_cells_launch(v, elem, rows, cols, 90),
                       lines = transpose_lines_launch(v, elem, rows, cols, 90);
            const int64_t grid_r = cells   ? transpose_cells_tile_rows(rows)
                                   : lines ? transpose_lines_tile_rows(elem, rows)
                                           : transpose_grid_rows(v, elem, rows, 0);
            const int64_t grid_c = cells || lines ? transpose_cells_tile_cols(elem, cols)
                                                  : (cols + transpose_tile_width(v, elem) - 1) /
                                                        transpose_tile_width(v, elem);
            for (int64_t tr = 0; tr < grid_r; ++tr)
                for (int64_t tc = 0; tc < grid_c; ++tc)
                    transpose_model_tile(v, elem, rows, cols, 0, tr, tc, &bf_rules_sm90, &slow[0],
                                         &slow[1]);
            for (int k = 0; k < 2; ++k)
                EXPECT(fast[k].requests == slow[k].requests &&
                           fast[k].wavefronts == slow[k].wavefronts &&
                           fast[k].ideal == slow[k].ideal && fast[k].worst == slow[k].worst,
                       "shortcut differs from full replay: variant %d, %d-byte, %lldx%lld, "
                       "site %d",
                       v, elem, (long long)rows, (long long)cols, k);
        }
}

/* Every cell lands in the tile once, aligned to its width, inside the tile;
 * and each element is read back from where it landed. */
static void test_layouts_are_permutations(void)
{
    static unsigned char used[64 * 1024];
    struct combo combos[NTILED * NSIZES];
    const int ncombos = tiled_combos(combos);
    for (int i = 0; i < ncombos; ++i) {
        const enum transpose_variant v = combos[i].v;
        const int elem = combos[i].elem;
        const int cell = transpose_cell_bytes(v, elem);
        const uint32_t bytes = (uint32_t)transpose_tile_bytes(v, elem);
        EXPECT(bytes <= 48 * 1024, "variant %d, %d-byte: %u bytes of static shared memory", v, elem,
               bytes);
        memset(used, 0, sizeof used);
        for (int r = 0; r < transpose_load_rows(v, elem); ++r)
            for (int c = 0; c < transpose_tile_cols(v, elem); ++c) {
                uint32_t o = transpose_tile_offset(v, elem, r, c);
                EXPECT(o + (uint32_t)cell <= bytes && o % (uint32_t)cell == 0,
                       "variant %d, %d-byte: offset %u outside the tile or misaligned", v, elem, o);
                if (o + (uint32_t)cell <= bytes && o % (uint32_t)cell == 0)
                    EXPECT(!used[o / (uint32_t)cell]++, "variant %d, %d-byte: offset %u twice", v,
                           elem, o);
            }
    }
    /* The swizzled fp32 tile keeps column c of row r at c ^ (r % 32), as
     * transpose_swizzled (transpose.cu) says. */
    for (int r = 0; r < TRANSPOSE_TILE_ROWS; ++r)
        for (int c = 0; c < TRANSPOSE_TILE_COLS; ++c)
            EXPECT(transpose_tile_offset(TRANSPOSE_SWIZZLED, 4, r, c) ==
                       4u * (uint32_t)(r * TRANSPOSE_TILE_COLS + (c ^ (r % 32))),
                   "column ^ (row %% 32) at (%d,%d)", r, c);

    /* Each store move of a tile writes out[i][j] = in[j][i] (for packed: the
     * cell's first element) from the very cell the load move of in[j][i]
     * wrote, and together they cover the matrix (packed: every k-th). Where
     * the output rows are off the sectors (rows x 4 bytes at 150 rows, 200
     * at 151; or `out` off one), each output row's segment of a tile starts
     * on a sector. */
    static unsigned char written[151 * 45];
    for (int64_t rows = 150; rows <= 151; ++rows)
        for (int phase = 0; phase < 3; ++phase)
            for (int i = 0; i < ncombos; ++i) {
                const enum transpose_variant v = combos[i].v;
                const int elem = combos[i].elem, cols = 45;
                const int out_phase = phase & transpose_most_above(v, elem);
                const int pack = transpose_pack(v, elem);
                const int height = transpose_tile_height(v, elem);
                const int width = transpose_tile_width(v, elem);
                memset(written, 0, sizeof written);
                for (int64_t tr = 0; tr < transpose_grid_rows(v, elem, rows, out_phase); ++tr)
                    for (int64_t tc = 0; tc * width < cols; ++tc) {
                        struct transpose_tile t =
                            transpose_tile_at(v, elem, rows, cols, out_phase, tr, tc);
                        for (int ty = 0; ty < TRANSPOSE_BLOCK_ROWS; ++ty)
                            for (int k = 0; k < transpose_steps(v, elem); ++k)
                                for (int tx = 0; tx < 32; ++tx) {
                                    struct transpose_move st =
                                        transpose_store_move(v, elem, &t, tx, ty, k);
                                    if (t.above != 0 && tx == 0 && k % TRANSPOSE_ROW_STORES == 0)
                                        EXPECT(((out_phase + st.global) & t.above) == 0,
                                               "variant %d, %d-byte, %lld rows, phase %d: "
                                               "segment off a sector",
                                               v, elem, (long long)rows, out_phase);
                                    if (!st.active)
                                        continue;
                                    written[st.global]++;
                                    int64_t r = st.global % rows,
                                            c = st.global / rows; /* in[r][c] */
                                    int rt = (int)(r - tr * height + t.above) / pack,
                                        ct = (int)(c % width) / pack;
                                    struct transpose_move ld = transpose_load_move(
                                        v, elem, &t, ct % 32, rt % TRANSPOSE_BLOCK_ROWS,
                                        rt / TRANSPOSE_BLOCK_ROWS * transpose_row_loads(v, elem) +
                                            ct / 32);
                                    EXPECT(ld.active && ld.global == r * cols + c &&
                                               ld.smem == st.smem && ld.row == st.row &&
                                               ld.col == st.col,
                                           "variant %d, %d-byte, phase %d: store move (%d,%d,%d) "
                                           "of tile (%lld,%lld)",
                                           v, elem, out_phase, tx, ty, k, (long long)tr,
                                           (long long)tc);
                                }
                    }
                int once = 1;
                for (int64_t r = 0; r < rows; ++r)
                    for (int64_t c = 0; c < cols; ++c)
                        once &= written[c * rows + r] == (r % pack == 0 && c % pack == 0);
                EXPECT(once,
                       "variant %d, %d-byte, %lld rows, phase %d: every output cell written "
                       "exactly once",
                       v, elem, (long long)rows, out_phase);
            }
}

/* A kernel emulated on the CPU: its input (random bytes), what it writes
 * (poisoned first), the reference and how many times each byte was written. */
struct emulation {
    unsigned char *in, *out, *want, *times;
    size_t bytes;
    int outside; /* a write outside the output */
};

static struct emulation emulation_start(int elem, int64_t rows, int64_t cols)
{
    struct emulation e;
    e.bytes = (size_t)(rows * cols * elem);
    e.in = malloc(e.bytes);
    e.out = malloc(e.bytes);
    e.want = malloc(e.bytes);
    e.times = calloc(e.bytes, 1);
    for (size_t b = 0; b < e.bytes; ++b)
        e.in[b] = (unsigned char)(b * 2654435761u >> 13);
    transpose_ref(e.want, e.in, elem, rows, cols);
    memset(e.out, 0xa5, e.bytes);
    e.outside = 0;
    return e;
}

/* One element written at byte `at` of the output. */
static void emulation_put(struct emulation *e, int64_t at, const unsigned char *from, int elem)
{
    if (at < 0 || at + elem > (int64_t)e->bytes) {
        e->outside = 1;
        return;
    }
    memcpy(e->out + at, from, (size_t)elem);
    e->times[at]++;
}

/* Whether the output is the reference, each element written once and
 * nothing outside; frees it all. */
static bool emulation_end(struct emulation *e, int elem)
{
    int once = 1;
    for (size_t b = 0; b < e->bytes; b += (size_t)elem)
        once &= e->times[b] == 1;
    const bool right = !e->outside && once && memcmp(e->out, e->want, e->bytes) == 0;
    free(e->in);
    free(e->out);
    free(e->want);
    free(e->times);
    return right;
}

/* The cells kernel (transpose_packed_cells) emulated through its layout
 * functions: each tile's copies into a tile (zeros where a copy reads
 * nothing), then each warp's 16-byte reads of its lanes' cell rows and the
 * cells' words written where the kernel writes them; the output must be the
 * reference, byte for byte, with nothing written twice or outside. */
static void test_cells_emulated(void)
{
    const int64_t cases[][2] = {{32, 16},   {128, 256},   {160, 272},
                                {288, 528}, {1056, 1040}, {32, 4112}};
    static unsigned char tile[TRANSPOSE_CELLS_TILE_BYTES];
    for (int elem = 1; elem <= 2; ++elem)
        for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
            const int64_t rows = cases[c][0], cols = cases[c][1];
            const int k = transpose_pack(TRANSPOSE_PACKED, elem);
            EXPECT(transpose_cells_shape(elem, rows, cols), "%d-byte %lldx%lld: a cells shape",
                   elem, (long long)rows, (long long)cols);
            struct emulation em = emulation_start(elem, rows, cols);
            for (int64_t tr = 0; tr < transpose_cells_tile_rows(rows); ++tr)
                for (int64_t tc = 0; tc < transpose_cells_tile_cols(elem, cols); ++tc) {
                    for (int thread = 0; thread < TRANSPOSE_CELLS_THREADS; ++thread)
                        for (int n = 0; n < TRANSPOSE_CELLS_COPIES; ++n) {
                            int t, j;
                            transpose_cells_copy(thread, n, &t, &j);
                            unsigned char *to = tile + transpose_cells_offset(elem, t, j);
                            if (transpose_cells_inside(elem, rows, cols, tr, tc, t, j))
                                memcpy(to,
                                       em.in + transpose_cells_in_byte(elem, cols, tr, tc, t, j),
                                       16);
                            else
                                memset(to, 0, 16);
                        }
                    const int cell_rows = transpose_cells_rows_inside(elem, rows, tr);
                    for (int j = 0; j < TRANSPOSE_CELLS_CHUNKS; ++j) { /* warp j */
                        if (!transpose_cells_column_inside(elem, cols, tc, j))
                            continue;
                        for (int q = 0; q < cell_rows; ++q) {
                            unsigned char row[4][16]; /* the chunk of cell row q's rows */
                            for (int i = 0; i < k; ++i)
                                memcpy(row[i], tile + transpose_cells_offset(elem, k * q + i, j),
                                       16);
                            /* word e of cell m: element e of word m of each row, in row order */
                            for (int m = 0; m < 4; ++m)
                                for (int e = 0; e < k; ++e) {
                                    const int64_t at =
                                        transpose_cells_out_byte(elem, rows, tr, tc, j, q, m, e);
                                    for (int i = 0; i < k; ++i)
                                        emulation_put(&em, at + i * elem, row[i] + 4 * m + e * elem,
                                                      elem);
                                }
                        }
                    }
                }
            EXPECT(emulation_end(&em, elem),
                   "cells kernel emulated, %d-byte %lldx%lld: the transpose, each element once, "
                   "nothing outside",
                   elem, (long long)rows, (long long)cols);
        }
    const int64_t most = (int64_t)16 * TRANSPOSE_CELLS_CHUNKS * 65535; /* bytes of 65535 tiles */
    EXPECT(!transpose_cells_shape(1, 6, 16) && !transpose_cells_shape(1, 36, 16) &&
               !transpose_cells_shape(2, 24, 8) && !transpose_cells_shape(1, 32, 20) &&
               !transpose_cells_shape(2, 3, 8) && !transpose_cells_shape(4, 32, 16) &&
               !transpose_cells_shape(0, 32, 16) && !transpose_cells_shape(1, 32, most + 16),
           "cells: whole cells, output rows on sectors, 16-byte input rows, bytes and halves, a "
           "grid that fits");
    EXPECT(transpose_cells_shape(1, 32, most) && transpose_cells_shape(2, 16, most / 2),
           "cells: 65535 tile columns fit");
}

/* The lines kernel's shortcuts, against the layout functions the copies
 * and the model are written in: a row's other two lines 128 bytes on from
 * its first, in `in` and in the tile; a lane's chunks found in two parts
 * (transpose_lines_offset_lane, _row); and which lanes write a word
 * (transpose_lines_writes: lane - 8 + sb / 4 among the segment's 24). */
static void test_lines_shortcuts(void)
{
    for (int elem = 1; elem <= 2; ++elem) {
        const int k = transpose_pack(TRANSPOSE_PACKED, elem);
        bool lines = true, parts = true;
        for (int t = 0; t < 32 * k; ++t)
            for (unsigned g = 0; g < 8; ++g)
                for (int s = 0; s < 8; ++s)
                    for (int line = 1; line < 3; ++line)
                        lines &= transpose_lines_offset(elem, t, s + 8 * line - (int)g, g) ==
                                     transpose_lines_offset(elem, t, s - (int)g, g) + 128u * line &&
                                 transpose_lines_from(48, 1000 + g, s + 8 * line) ==
                                     transpose_lines_from(48, 1000 + g, s) + 128 * line;
        for (int lane = 0; lane < 32; ++lane)
            for (int i = 0; i < k; ++i)
                for (unsigned in_row_byte = 0; in_row_byte < 256; ++in_row_byte)
                    for (int c = 0; c <= TRANSPOSE_CELLS_CHUNKS; ++c)
                        parts &=
                            transpose_lines_chunk(elem, lane, i, in_row_byte + 128u * 77, c) ==
                            transpose_lines_offset(elem, k * lane + i, c,
                                                   transpose_lines_first_chunk(0, in_row_byte));
        EXPECT(lines, "%d-byte lines kernel: a row's lines 128 bytes apart in `in` and the tile",
               elem);
        EXPECT(parts, "%d-byte lines kernel: a lane's chunks in two parts", elem);

        /* lines_tile's split: the first TRANSPOSE_LINES_NEAR_WARPS warps read
         * their lanes' own rows' lines 0 and 1 only, at every phase; the next
         * warp reads line 2 at some phase (the bound is tight) */
        const uint32_t row_bytes = 16u * TRANSPOSE_LINES_ROW;
        bool near = true, next_reads_line_2 = false;
        for (int lane = 0; lane < 32; ++lane)
            for (int i = 0; i < k; ++i)
                for (unsigned in_row_byte = 0; in_row_byte < 256; ++in_row_byte)
                    for (int j = 0; j <= TRANSPOSE_LINES_NEAR_WARPS; ++j)
                        for (int c = j; c <= j + 1; ++c) {
                            const uint32_t o = transpose_lines_chunk(elem, lane, i, in_row_byte, c);
                            if (j < TRANSPOSE_LINES_NEAR_WARPS)
                                near &= o / row_bytes == (uint32_t)(k * lane + i) &&
                                        o % row_bytes < 256u;
                            else
                                next_reads_line_2 |= o % row_bytes >= 256u;
                        }
        EXPECT(near && next_reads_line_2,
               "%d-byte lines kernel: warps 0-%d read lines 0 and 1 only, warp %d line 2 too", elem,
               TRANSPOSE_LINES_NEAR_WARPS - 1, TRANSPOSE_LINES_NEAR_WARPS);
    }
    bool writes = true;
    for (int lane = 0; lane < 32; ++lane)
        for (unsigned sb = 0; sb < 32; ++sb)
            for (unsigned sector = 0; sector < 3; ++sector) {
                const int w = lane - TRANSPOSE_LINES_ABOVE + (int)(sb / 4);
                const unsigned at = 32u * (sector + 1000) + sb + 4u * (unsigned)lane - 32u;
                writes &= transpose_lines_writes_at(transpose_lines_writes(lane), at) ==
                          (w >= 0 && w < TRANSPOSE_LINES_OWN);
            }
    EXPECT(writes, "lines kernel: the lanes that write a word, at every phase");
}

/* The lines kernel (transpose_packed_lines) emulated through its layout
 * functions: each block's copies into a tile (rows past the matrix's ends
 * wrapped in edge tiles; zeros where a copy reads nothing: the last bytes of
 * `in` too, that row's 16 bytes then taken from `in` in the tiles
 * transpose_lines_tail names, as the kernel takes them), then each warp's
 * reads of its lanes' rows (16 bytes at each row's phase, from its two
 * chunks), the cells transposed, and each output word made of the lane
 * before's cell and the lane's own (transpose_lines_word), written where the
 * kernel writes it if the tile owns it (transpose_lines_owns), element by
 * element across an end of `out`; the output must be the reference, byte for
 * byte, each element once, nothing outside, every whole word on 4 bytes of
 * `out` and each segment's first on a sector. `out` on a sector and 1, 2, 3,
 * 5, 6, 7 (bytes) or 2, 6 (halves) bytes past one; `in` on a line and 48
 * bytes past one. Shapes: rows a multiple of the tile's own (the edge test's
 * boundary) and rows of under 383 bytes (whose last tile column copies past
 * `in` a tile row early). */
static void test_lines_emulated(void)
{
    const int64_t cases[][2] = {{264, 257}, {300, 260}, {257, 509}, {520, 777}, {1021, 1031},
                                {288, 259}, {384, 300}, {336, 261}, {481, 258}};
    static unsigned char tile[TRANSPOSE_LINES_TILE_BYTES(4)];
    const size_t shapes = sizeof cases / sizeof *cases;
    for (int elem = 1; elem <= 2; ++elem)
        for (size_t run = 0; run < shapes * TRANSPOSE_LINES_STACK_MAX; ++run)
            for (unsigned at = 0; at < 16; at += (unsigned)elem) {
                /* each shape one tile a block, then (halves) stacked */
                const size_t c = run % shapes;
                const int stack = 1 + (int)(run / shapes);
                const unsigned out_at = at % 8, in_at = at < 8 ? 0 : 48;
                if ((out_at != 0 && out_at % 4 == 0) || (elem == 1 && stack > 1))
                    continue;
                const int64_t rows = cases[c][0], cols = cases[c][1];
                const int k = transpose_pack(TRANSPOSE_PACKED, elem);
                EXPECT(transpose_lines_launch(TRANSPOSE_PACKED, elem, rows, cols, 90),
                       "%d-byte %lldx%lld: the lines kernel's", elem, (long long)rows,
                       (long long)cols);
                struct emulation em = emulation_start(elem, rows, cols);
                for (int64_t tr = 0; tr < transpose_lines_tile_rows(elem, rows); ++tr)
                    for (int64_t tc = 0; tc < transpose_cells_tile_cols(elem, cols); ++tc) {
                        /* Interior tiles copy 16 bytes every time and store whole words
                         * unchecked: all must lie inside. A block takes the edge path for
                         * all its tiles where one needs it. */
                        const bool edge =
                            transpose_lines_edge_block(elem, rows, cols, stack, tr / stack, tc);
                        memset(tile, 0x5a, sizeof tile);
                        for (int thread = 0; thread < TRANSPOSE_CELLS_THREADS; ++thread)
                            for (int n = 0; n < TRANSPOSE_LINES_COPIES; ++n) {
                                int t, ch;
                                if (!transpose_lines_copy(elem, thread, n, &t, &ch))
                                    continue;
                                int64_t from;
                                const bool got = transpose_lines_copy_inside(
                                    elem, rows, cols, tr, tc, t, ch, in_at, &from);
                                const int64_t rb =
                                    transpose_lines_row_byte_wrapped(elem, rows, cols, tr, tc, t);
                                const unsigned g = transpose_lines_first_chunk(in_at, rb);
                                unsigned char *to =
                                    tile + transpose_lines_offset(elem, t, ch - (int)g, g);
                                memset(to, 0, 16);
                                /* interior tiles: nothing wrapped, nothing left out */
                                em.outside |=
                                    !edge &&
                                    (!got || rb != transpose_lines_row_byte(elem, cols, tr, tc, t));
                                if (got)
                                    memcpy(to, em.in + from, 16);
                            }
                        for (int j = 0; j < TRANSPOSE_CELLS_CHUNKS; ++j) { /* warp j */
                            if (!transpose_cells_column_inside(elem, cols, tc, j))
                                continue;
                            uint32_t cell[32][4][4]; /* lane, cell m, word e */
                            for (int lane = 0; lane < 32; ++lane)
                                for (int i = 0; i < k; ++i) {
                                    const int t = k * lane + i;
                                    const int64_t rb = transpose_lines_row_byte_wrapped(
                                        elem, rows, cols, tr, tc, t);
                                    const unsigned in_rb = in_at + (unsigned)rb;
                                    unsigned char two[32];
                                    for (int half = 0; half < 2; ++half)
                                        memcpy(two + 16 * half,
                                               tile + transpose_lines_chunk(elem, lane, i, in_rb,
                                                                            j + half),
                                               16);
                                    /* the row's 16 bytes from its phase; where they reach
                                     * the last 16 bytes of `in` (not whole: never copied),
                                     * from `in` (zeros past it) */
                                    unsigned char past[16];
                                    const unsigned char *row16 = two + (rb & 15);
                                    const int64_t at = rb + 16 * j;
                                    if (edge && transpose_lines_tail(elem, rows, cols, tr, tc) &&
                                        at + 16 > ((int64_t)em.bytes & ~(int64_t)15)) {
                                        for (int b = 0; b < 16; ++b)
                                            past[b] =
                                                at + b < (int64_t)em.bytes ? em.in[at + b] : 0;
                                        row16 = past;
                                    }
                                    /* word e of cell m: element e of word m of those,
                                     * rows in order */
                                    for (int m = 0; m < 4; ++m)
                                        for (int e = 0; e < k; ++e) {
                                            uint32_t *w = &cell[lane][m][e];
                                            if (i == 0)
                                                *w = 0;
                                            uint32_t v = 0;
                                            memcpy(&v, row16 + 4 * m + e * elem, (size_t)elem);
                                            *w |= v << (8 * elem * i);
                                        }
                                }
                            const int64_t o0 = (tc * 16 * TRANSPOSE_CELLS_CHUNKS + 16 * j) / elem;
                            for (int m = 0; m < 4; ++m)
                                for (int e = 0; e < k; ++e) {
                                    const int64_t o = o0 + k * m + e;
                                    em.outside |= !edge && o >= cols;
                                    if (o >= cols)
                                        continue;
                                    const unsigned sb =
                                        transpose_lines_phase_bytes(elem, rows, out_at, o, tr);
                                    const unsigned cs = sb / (unsigned)elem / (unsigned)k;
                                    for (int lane = 0; lane < 32; ++lane) {
                                        /* the kernel's `at`: its element's place in `out`
                                         * (mod 2^32), the lane's word's 4 (lane - 8) on */
                                        const unsigned at =
                                            out_at +
                                            (unsigned)((o * rows +
                                                        tr * transpose_lines_rows(elem)) *
                                                       elem) +
                                            4u * (unsigned)(lane - TRANSPOSE_LINES_ABOVE);
                                        const int w = lane - TRANSPOSE_LINES_ABOVE + (int)cs;
                                        const bool writes = transpose_lines_writes_at(
                                            transpose_lines_writes(lane), at);
                                        em.outside |= writes != (w >= 0 && w < TRANSPOSE_LINES_OWN);
                                        if (!writes)
                                            continue;
                                        const uint32_t word = transpose_lines_word(
                                            cell[lane > 0 ? lane - 1 : 0][m][e], cell[lane][m][e],
                                            at);
                                        /* where the kernel stores the word: on 4 bytes of
                                         * `out`, the segment's first word on a sector
                                         * (addresses from out - out_at, on a sector) */
                                        const int64_t word_at =
                                            (int64_t)out_at +
                                            (o * rows + tr * transpose_lines_rows(elem) -
                                             sb / elem) *
                                                elem +
                                            4 * w;
                                        em.outside |= (word_at % 4 + 4) % 4 != 0 ||
                                                      (w == 0 && (word_at % 32 + 32) % 32 != 0) ||
                                                      (unsigned)word_at != (at & ~3u);
                                        const int64_t begin = out_at, end = begin + em.bytes;
                                        const bool mine = transpose_lines_owns(
                                            (uint64_t)word_at,
                                            (uint64_t)(begin + (o + 1) * rows * elem),
                                            o + 1 == cols);
                                        const bool whole = word_at >= begin && word_at + 4 <= end;
                                        em.outside |= !edge && !(mine && whole);
                                        if (!mine)
                                            continue;
                                        for (int n = 0; n < k; ++n)
                                            if (word_at + n * elem >= begin &&
                                                word_at + (n + 1) * elem <= end)
                                                emulation_put(
                                                    &em, word_at + n * elem - begin,
                                                    (const unsigned char *)&word + n * elem, elem);
                                    }
                                }
                        }
                    }
                EXPECT(emulation_end(&em, elem),
                       "lines kernel emulated, %d-byte %lldx%lld, %d tiles a block, out %u "
                       "bytes past a sector: the transpose, each element once, nothing outside",
                       elem, (long long)rows, (long long)cols, stack, out_at);
            }
    EXPECT(!transpose_lines_shape(1, 255, 4096) && !transpose_lines_shape(1, 4096, 255) &&
               !transpose_lines_shape(2, 4096, 127) && !transpose_lines_shape(4, 4096, 4096) &&
               transpose_lines_shape(2, 256, 128) && transpose_lines_shape(1, 256, 256) &&
               !transpose_lines_launch(TRANSPOSE_PACKED, 1, 1056, 1040, 90) &&
               !transpose_lines_launch(TRANSPOSE_PADDED, 1, 1000, 999, 90),
           "lines: bytes and halves, 256 rows of 256 bytes or more, not where cells runs");
    /* Halves' 48-row tiles: 2^31 - 1 of them at most (gridDim.x). */
    const int64_t most_rows = 48 * (int64_t)INT32_MAX - 15;
    EXPECT(transpose_lines_tile_rows(2, most_rows) == INT32_MAX &&
               transpose_lines_shape(2, most_rows, 128) &&
               !transpose_lines_shape(2, most_rows + 1, 128) &&
               transpose_refusal_elem(TRANSPOSE_PACKED, 2, most_rows + 1, 128) == NULL,
           "lines: 2^31 - 1 tile rows of halves taken, one more left to the register tile");
    /* Below sm_80 (no cp.async) packed keeps its register-loaded tile: the
     * model replays it, a store and a load of whole cells. */
    EXPECT(!transpose_cells_launch(TRANSPOSE_PACKED, 1, 1024, 1024, 75) &&
               !transpose_lines_launch(TRANSPOSE_PACKED, 1, 1000, 999, 75) &&
               transpose_cells_launch(TRANSPOSE_PACKED, 1, 1024, 1024, 80) &&
               transpose_lines_launch(TRANSPOSE_PACKED, 1, 1000, 999, 80),
           "the cells and lines kernels from sm_80 on");
    struct bf_bank_rules t4 = bf_rules_sm90;
    t4.cc = 75;
    t4.sms = 40;
    const struct bf_size s = {2, {1024, 1024}};
    for (int elem = 1; elem <= 2; ++elem) {
        struct bf_site sites[BF_MAX_SITES];
        EXPECT_EQ(transpose_model(TRANSPOSE_PACKED, elem, &s, &t4, sites), 2, "two sites");
        EXPECT(sites[0].access.op == BF_STORE && sites[1].access.op == BF_LOAD &&
                   sites[0].wavefronts == sites[0].ideal && sites[1].wavefronts == sites[1].ideal,
               "sm_75, %d-byte packed: the register-loaded tile, conflict-free", elem);
    }
}

static void test_reference(void)
{
    const float in[6] = {1, 2, 3, 4, 5, 6}; /* 2 x 3 */
    const float want[6] = {1, 4, 2, 5, 3, 6};
    float out[6];
    transpose_ref_f32(out, in, 2, 3);
    EXPECT(memcmp(out, want, sizeof out) == 0, "2x3 by hand");

    const int64_t shapes2[][2] = {{1, 1}, {1, 97}, {97, 1}, {65, 130}, {200, 3}};
    for (int e = 0; e < NSIZES; ++e)
        for (int i = 0; i < 5; ++i) {
            const int64_t r = shapes2[i][0], c = shapes2[i][1];
            const size_t elem = (size_t)sizes[e], bytes = (size_t)(r * c) * elem;
            unsigned char *a = malloc(bytes), *b = malloc(bytes), *back = malloc(bytes);
            for (size_t j = 0; j < bytes; ++j)
                a[j] = (unsigned char)(j * 2654435761u >> 13);
            transpose_ref(b, a, sizes[e], r, c);
            for (int64_t x = 0; x < r; ++x)
                for (int64_t y = 0; y < c; ++y)
                    EXPECT(memcmp(b + (size_t)(y * r + x) * elem, a + (size_t)(x * c + y) * elem,
                                  elem) == 0,
                           "%zu-byte element (%lld,%lld)", elem, (long long)x, (long long)y);
            transpose_ref(back, b, sizes[e], c, r);
            EXPECT(memcmp(a, back, bytes) == 0, "transposed twice is the input");
            free(a);
            free(b);
            free(back);
        }
}

int main(void)
{
    test_naive_and_refused();
    test_tiled_sites();
    test_interior_shortcut();
    test_layouts_are_permutations();
    test_cells_emulated();
    test_lines_shortcuts();
    test_lines_emulated();
    test_reference();
    return unit_finish("transpose (cpu)");
}
