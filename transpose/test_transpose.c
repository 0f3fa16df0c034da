/* The transpose family on the CPU: the bank model on every shared access site
 * of every variant, and the CPU reference. */
#include <stdlib.h>
#include <string.h>

#include "common/bank_model.h"
#include "tests/unit.h"
#include "transpose/transpose.h"
#include "transpose/transpose_layout.h"
#include "transpose/transpose_model.h"
#include "transpose/transpose_ref.h"

static const struct bf_size shapes[] = {
    {2, {8192, 8192}}, {2, {32, 32}},  {2, {33, 4097}},   {2, {1, 1}},
    {2, {100, 37}},    {2, {1, 4099}}, {2, {2097185, 3}}, {2, {7919, 8209}},
};
#define NSHAPES (int)(sizeof shapes / sizeof *shapes)

static int model(int variant, const struct bf_size *s, struct bf_site sites[BF_MAX_SITES])
{
    return transpose_model(variant, s, &bf_rules_sm90, sites);
}

/* The naive kernel uses no shared memory. */
static void test_naive(void)
{
    struct bf_site sites[BF_MAX_SITES];
    for (int i = 0; i < NSHAPES; ++i)
        EXPECT_EQ(model(TRANSPOSE_NAIVE, &shapes[i], sites), 0, "naive: shared access sites");
}

/* The tile (TRANSPOSE_TILE_ROWS x TRANSPOSE_TILE_COLS: 64 rows of 64) written
 * in the load phase is half a row per warp: ideal for every layout. Read by column,
 * the plain tile is 32-way; padded (65 words a row) and swizzled are ideal. */
static void test_tiled_sites(void)
{
    for (int i = 0; i < NSHAPES; ++i) {
        const struct bf_size *s = &shapes[i];
        struct bf_site c[BF_MAX_SITES], p[BF_MAX_SITES], z[BF_MAX_SITES];
        EXPECT_EQ(model(TRANSPOSE_CONFLICTING, s, c), 2, "conflicting: sites");
        EXPECT_EQ(model(TRANSPOSE_PADDED, s, p), 2, "padded: sites");
        EXPECT_EQ(model(TRANSPOSE_SWIZZLED, s, z), 2, "swizzled: sites");
        int64_t rows = s->dim[0], cols = s->dim[1];
        uint64_t elements = (uint64_t)(rows * cols);
        for (int k = 0; k < 2; ++k) {
            EXPECT(c[k].access.bytes == 4 && p[k].access.bytes == 4, "4-byte accesses");
            EXPECT(p[k].wavefronts == p[k].ideal,
                   "padded %s %lldx%lld: %llu wavefronts, ideal %llu", p[k].name, (long long)rows,
                   (long long)cols, (unsigned long long)p[k].wavefronts,
                   (unsigned long long)p[k].ideal);
            EXPECT(z[k].wavefronts == z[k].ideal, "swizzled %s %lldx%lld: %llu, ideal %llu",
                   z[k].name, (long long)rows, (long long)cols, (unsigned long long)z[k].wavefronts,
                   (unsigned long long)z[k].ideal);
            EXPECT(p[k].requests == c[k].requests && z[k].requests == c[k].requests,
                   "same requests in every layout");
        }
        EXPECT(c[0].access.op == BF_STORE && c[1].access.op == BF_LOAD, "write, then read");
        EXPECT(c[0].wavefronts == c[0].ideal, "conflicting tile write is a row: ideal");
        /* Every lane of every warp writes the tile, edge tiles too. */
        int64_t tiles = ((rows + TRANSPOSE_TILE_ROWS - 1) / TRANSPOSE_TILE_ROWS) *
                        ((cols + TRANSPOSE_TILE_COLS - 1) / TRANSPOSE_TILE_COLS);
        EXPECT_EQ(c[0].requests, tiles * TRANSPOSE_BLOCK_ROWS * TRANSPOSE_STEPS, "tile writes");
        /* Read down a column, every lane is in one bank: one wavefront per
         * active lane, and the lanes of all requests cover each element once. */
        EXPECT(c[1].wavefronts == elements,
               "conflicting read %lldx%lld: %llu wavefronts, want %llu", (long long)rows,
               (long long)cols, (unsigned long long)c[1].wavefronts, (unsigned long long)elements);
        if (rows % TRANSPOSE_TILE_ROWS == 0 && cols % TRANSPOSE_TILE_COLS == 0) {
            EXPECT(c[1].wavefronts == 32 * c[1].ideal, "whole tiles: 32-way");
            EXPECT_EQ(c[1].worst, 32, "conflicting read: worst request");
            EXPECT_EQ(c[1].requests, elements / 32, "one request per 32 elements");
        }
    }
}

/* The model replays one tile of each kind (interior, bottom and right edge,
 * corner) and counts the rest; replaying every tile must give the same counts. */
static void test_interior_shortcut(void)
{
    const struct bf_size s[] = {{2, {100, 37}}, {2, {65, 97}},  {2, {128, 64}}, {2, {31, 200}},
                                {2, {200, 31}}, {2, {300, 33}}, {2, {1, 100}},  {2, {257, 1}}};
    const enum transpose_variant variants[] = {TRANSPOSE_CONFLICTING, TRANSPOSE_PADDED,
                                               TRANSPOSE_SWIZZLED};
    for (size_t i = 0; i < sizeof s / sizeof *s; ++i)
        for (int l = 0; l < 3; ++l) {
            struct bf_site fast[BF_MAX_SITES];
            struct bf_site slow[2] = {bf_site_new("w", bf_st(4)), bf_site_new("r", bf_ld(4))};
            model(variants[l], &s[i], fast);
            int64_t rows = s[i].dim[0], cols = s[i].dim[1];
            for (int64_t tr = 0; tr * TRANSPOSE_TILE_ROWS < rows; ++tr)
                for (int64_t tc = 0; tc * TRANSPOSE_TILE_COLS < cols; ++tc)
                    transpose_model_tile(variants[l], rows, cols, tr, tc, &bf_rules_sm90, &slow[0],
                                         &slow[1]);
            for (int k = 0; k < 2; ++k)
                EXPECT(fast[k].requests == slow[k].requests &&
                           fast[k].wavefronts == slow[k].wavefronts &&
                           fast[k].ideal == slow[k].ideal && fast[k].worst == slow[k].worst,
                       "shortcut differs from full replay: variant %d, %lldx%lld, site %d", l,
                       (long long)rows, (long long)cols, k);
        }
}

/* Every element lands in the tile once and is read back from where it landed. */
static void test_layouts_are_permutations(void)
{
    const enum transpose_variant variants[] = {TRANSPOSE_CONFLICTING, TRANSPOSE_PADDED,
                                               TRANSPOSE_SWIZZLED};
    const int dense = TRANSPOSE_TILE_ROWS * TRANSPOSE_TILE_COLS;
    for (int l = 0; l < 3; ++l) {
        static unsigned char used[TRANSPOSE_TILE_WORDS];
        memset(used, 0, sizeof used);
        for (int r = 0; r < TRANSPOSE_TILE_ROWS; ++r)
            for (int c = 0; c < TRANSPOSE_TILE_COLS; ++c) {
                uint32_t o = transpose_tile_offset(variants[l], r, c);
                EXPECT(
                    o < (uint32_t)(variants[l] == TRANSPOSE_PADDED ? TRANSPOSE_TILE_WORDS : dense),
                    "variant %d: offset %u outside the tile", l, o);
                if (o < TRANSPOSE_TILE_WORDS)
                    EXPECT(!used[o]++, "variant %d: offset %u used twice", l, o);
            }
    }
    /* The swizzled tile keeps column c of row r at c ^ (r % 32), as the
     * README says; CuTe's Swizzle<5,0,5> on the row-major offset is that. */
    for (int r = 0; r < TRANSPOSE_TILE_ROWS; ++r)
        for (int c = 0; c < TRANSPOSE_TILE_COLS; ++c)
            EXPECT(transpose_tile_offset(TRANSPOSE_SWIZZLED, r, c) ==
                       (uint32_t)(r * TRANSPOSE_TILE_COLS + (c ^ (r % 32))),
                   "column ^ (row %% 32) at (%d,%d)", r, c);

    /* Each store move of a tile writes out[i][j] = in[j][i] from the very word
     * the load move of in[j][i] wrote, and together they cover the matrix. */
    const int64_t rows = 150, cols = 45;
    static unsigned char written[150 * 45];
    memset(written, 0, sizeof written);
    for (int64_t tr = 0; tr * TRANSPOSE_TILE_ROWS < rows; ++tr)
        for (int64_t tc = 0; tc * TRANSPOSE_TILE_COLS < cols; ++tc)
            for (int ty = 0; ty < TRANSPOSE_BLOCK_ROWS; ++ty)
                for (int k = 0; k < TRANSPOSE_STEPS; ++k)
                    for (int tx = 0; tx < 32; ++tx) {
                        struct transpose_tile t = transpose_tile_at(rows, cols, tr, tc);
                        struct transpose_move st =
                            transpose_store_move(TRANSPOSE_SWIZZLED, &t, tx, ty, k);
                        if (!st.active)
                            continue;
                        written[st.global]++;
                        int64_t r = st.global % rows, c = st.global / rows; /* in[r][c] */
                        int rt = (int)(r % TRANSPOSE_TILE_ROWS);
                        int ct = (int)(c % TRANSPOSE_TILE_COLS);
                        struct transpose_move ld = transpose_load_move(
                            TRANSPOSE_SWIZZLED, &t, ct % 32, rt % TRANSPOSE_BLOCK_ROWS,
                            rt / TRANSPOSE_BLOCK_ROWS * TRANSPOSE_ROW_LOADS + ct / 32);
                        EXPECT(ld.active && ld.global == r * cols + c && ld.smem == st.smem,
                               "store move (%d,%d,%d) of tile (%lld,%lld)", tx, ty, k,
                               (long long)tr, (long long)tc);
                    }
    int once = 1;
    for (int i = 0; i < rows * cols; ++i)
        once &= written[i] == 1;
    EXPECT(once, "every output element written exactly once");
}

static void test_reference(void)
{
    const float in[6] = {1, 2, 3, 4, 5, 6}; /* 2 x 3 */
    const float want[6] = {1, 4, 2, 5, 3, 6};
    float out[6];
    transpose_ref_f32(out, in, 2, 3);
    EXPECT(memcmp(out, want, sizeof out) == 0, "2x3 by hand");

    const int64_t shapes2[][2] = {{1, 1}, {1, 97}, {97, 1}, {65, 130}, {200, 3}};
    for (int i = 0; i < 5; ++i) {
        int64_t r = shapes2[i][0], c = shapes2[i][1];
        float *a = malloc((size_t)(r * c) * sizeof *a), *b = malloc((size_t)(r * c) * sizeof *b),
              *back = malloc((size_t)(r * c) * sizeof *back);
        for (int64_t j = 0; j < r * c; ++j)
            a[j] = (float)j + 0.5f;
        transpose_ref_f32(b, a, r, c);
        for (int64_t x = 0; x < r; ++x)
            for (int64_t y = 0; y < c; ++y)
                EXPECT(b[y * r + x] == a[x * c + y], "element (%lld,%lld)", (long long)x,
                       (long long)y);
        transpose_ref_f32(back, b, c, r);
        EXPECT(memcmp(a, back, (size_t)(r * c) * sizeof *a) == 0, "transposed twice is the input");
        free(a);
        free(b);
        free(back);
    }
}

int main(void)
{
    test_naive();
    test_tiled_sites();
    test_interior_shortcut();
    test_layouts_are_permutations();
    test_reference();
    return unit_finish("transpose (cpu)");
}
