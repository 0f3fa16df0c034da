/* The public C API as a new user meets it, at the edges the headers promise
 * and the suites do not list. Transpose: every element size and variant at
 * odd shapes, pointers one element into their allocation (and halves and
 * bytes off 4-byte alignment) and one element short of a 32-byte sector (the
 * transpose starts its output segments on sectors from every phase), packed
 * bytes and halves with `in` on 16 bytes and `out` on a sector off the lines
 * (its cells kernel) and just off what it takes, with `in` on 16 bytes at
 * larger shapes and `out` at any phase (its lines kernel) and just off what
 * that takes, and shapes past 2^31 elements. The Hopper GEMM at shapes
 * around its tiles, clusters and split K against exact small-integer
 * products, C in fp32 and fp16 at 2-, 4- and 8-byte offsets into its
 * allocation. AES (every variant, against aes_lut_ref.c) in place on its
 * 16-byte fast path and with aligned buffers ending in a partial block;
 * histograms of 16-bit samples 6 and 14 bytes in and of bytes 8 in; sums 8
 * and 12 bytes in with the workspace 4 bytes into its allocation: where the
 * suites' sizes, whose offsets follow n, never put them. Each output
 * poisoned with guard bytes on both sides and checked in full. Each family's
 * refusals (another element size, misaligned or null pointers, empty or
 * overflowing shapes, bad variants) return cudaErrorInvalidValue with the
 * output untouched. A GEMM, a histogram and AES captured in a CUDA graph,
 * each its family's first call of the process, give the bytes direct calls
 * give. No GPU: exit 77. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "aes_lut/aes_lut.h"
#include "aes_lut/aes_lut_ref.h"
#include "gemm_tile/gemm_tile.h"
#include "gemm_tile/gemm_tile_wgmma.h"
#include "histogram/histogram.h"
#include "reduction/reduction.h"
#include "transpose/transpose.h"

#define GUARD  64 /* poisoned bytes on each side of an output */
#define POISON 0xa5

static int failures;

static void fail(const char *what)
{
    fprintf(stderr, "api_edges: FAIL %s\n", what);
    ++failures;
}

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "api_edges: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,               \
                    cudaGetErrorString(err_));                                                     \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static uint64_t state = 0x9e3779b97f4a7c15u;
static unsigned char random_byte(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (unsigned char)(state >> 24);
}

/* A device buffer of `bytes` starting `offset` bytes into an allocation with
 * GUARD poisoned bytes before and after. */
struct buffer {
    unsigned char *base, *at;
    size_t bytes;
};

static struct buffer buffer_new(size_t bytes, size_t offset)
{
    struct buffer b;
    b.bytes = bytes;
    CHECK(cudaMalloc((void **)&b.base, bytes + 2 * GUARD + offset));
    CHECK(cudaMemset(b.base, POISON, bytes + 2 * GUARD + offset));
    b.at = b.base + GUARD + offset;
    return b;
}

/* 0 if the guards (and, untouched, the whole buffer) still hold the poison. */
static int guards_hold(const struct buffer *b, size_t offset, int untouched)
{
    if (!untouched) { /* the bytes before and after alone */
        unsigned char h[2 * GUARD + 64];
        int bad = 0;
        CHECK(cudaMemcpy(h, b->base, GUARD + offset, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < GUARD + offset; ++i)
            bad |= h[i] != POISON;
        CHECK(cudaMemcpy(h, b->at + b->bytes, GUARD, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < GUARD; ++i)
            bad |= h[i] != POISON;
        return bad;
    }
    const size_t all = b->bytes + 2 * GUARD + offset;
    unsigned char *h = malloc(all);
    if (h == NULL) {
        fprintf(stderr, "api_edges: no host memory for %zu bytes\n", all);
        exit(1);
    }
    CHECK(cudaMemcpy(h, b->base, all, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (size_t i = 0; i < all; ++i)
        bad |= h[i] != POISON;
    free(h);
    return bad;
}

static const char *const variant_names[TRANSPOSE_VARIANTS] = {"naive", "conflicting", "padded",
                                                              "swizzled", "packed"};

/* One transpose through the API, `in` and `out` in_offset and out_offset
 * bytes into their allocations, checked in full against a plain loop. */
static void transpose_case_at(enum transpose_variant v, int elem, int64_t rows, int64_t cols,
                              size_t in_offset, size_t out_offset)
{
    const size_t bytes = (size_t)(rows * cols) * (size_t)elem;
    unsigned char *in = malloc(bytes), *out = malloc(bytes);
    if (in == NULL || out == NULL) {
        printf("api_edges: transpose %lldx%lld skipped (no host memory for it)\n", (long long)rows,
               (long long)cols);
        free(in);
        free(out);
        return;
    }
    for (size_t i = 0; i < bytes; ++i)
        in[i] = random_byte();
    const size_t offset = out_offset;
    struct buffer d_in = buffer_new(bytes, in_offset), d_out = buffer_new(bytes, offset);
    CHECK(cudaMemcpy(d_in.at, in, bytes, cudaMemcpyHostToDevice));
    const cudaError_t err = transpose(v, elem, d_out.at, d_in.at, rows, cols, 0);
    char what[160];
    snprintf(what, sizeof what, "transpose %s, %d-byte elements, %lldx%lld, out +%zu, in +%zu",
             variant_names[v], elem, (long long)rows, (long long)cols, offset, in_offset);
    if (err != cudaSuccess) {
        fprintf(stderr, "api_edges: %s: %s\n", what, cudaGetErrorString(err));
        fail(what);
    } else {
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(out, d_out.at, bytes, cudaMemcpyDeviceToHost));
        size_t wrong = 0;
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = 0; c < cols; ++c)
                wrong += memcmp(out + (size_t)(c * rows + r) * (size_t)elem,
                                in + (size_t)(r * cols + c) * (size_t)elem, (size_t)elem) != 0;
        const int guard_written = guards_hold(&d_out, offset, 0) != 0;
        if (wrong != 0 || guard_written) {
            fprintf(stderr, "api_edges: %s: %zu elements wrong%s\n", what, wrong,
                    guard_written ? ", a guard byte written" : "");
            fail(what);
        }
    }
    CHECK(cudaFree(d_in.base));
    CHECK(cudaFree(d_out.base));
    free(in);
    free(out);
}

static void transpose_case(enum transpose_variant v, int elem, int64_t rows, int64_t cols,
                           size_t offset)
{
    transpose_case_at(v, elem, rows, cols, offset, offset);
}

/* A call the API must refuse: err is cudaErrorInvalidValue and `out`, the
 * call's output (`offset` bytes into its allocation), untouched. */
static void expect_refused(const char *what, cudaError_t err, const struct buffer *out,
                           size_t offset)
{
    CHECK(cudaDeviceSynchronize());
    const int written = guards_hold(out, offset, 1) != 0;
    if (err != cudaErrorInvalidValue || written) {
        fprintf(stderr, "api_edges: %s: %s%s\n", what, cudaGetErrorString(err),
                written ? ", the output written" : "");
        fail(what);
    }
}

/* A transpose the API must refuse; `null`: 1 passes a null input, 2 a null
 * output. */
static void transpose_refused(enum transpose_variant v, int elem, int64_t rows, int64_t cols,
                              size_t offset, int null, const char *why)
{
    const size_t bytes = 4096;
    struct buffer d_in = buffer_new(bytes, offset), d_out = buffer_new(bytes, offset);
    const cudaError_t err =
        transpose(v, elem, null == 2 ? NULL : d_out.at, null == 1 ? NULL : d_in.at, rows, cols, 0);
    char what[160];
    snprintf(what, sizeof what, "refusal of %s (%s, %d-byte elements, %lldx%lld)", why,
             (unsigned)v < TRANSPOSE_VARIANTS ? variant_names[v] : "bad variant", elem,
             (long long)rows, (long long)cols);
    expect_refused(what, err, &d_out, offset);
    CHECK(cudaFree(d_in.base));
    CHECK(cudaFree(d_out.base));
}

static void transposes(void)
{
    static const int64_t shapes[][2] = {{1, 1},      {1, 77},   {77, 1},   {3, 5},     {4, 8},
                                        {8, 4},      {65, 63},  {64, 128}, {128, 64},  {129, 257},
                                        {256, 1024}, {1000, 3}, {5, 4099}, {257, 1025}};
    static const int elems[] = {1, 2, 4, 8, 16};
    for (size_t e = 0; e < sizeof elems / sizeof elems[0]; ++e)
        for (int v = 0; v < TRANSPOSE_VARIANTS; ++v) {
            if (v == TRANSPOSE_PACKED && elems[e] > 2)
                continue;
            for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
                transpose_case((enum transpose_variant)v, elems[e], shapes[s][0], shapes[s][1], 0);
                /* one element in: aligned to the element, not to 4 bytes below it */
                transpose_case((enum transpose_variant)v, elems[e], shapes[s][0], shapes[s][1],
                               (size_t)elems[e]);
                /* an element short of a 32-byte sector: the last phase the
                 * sector-aligned tiles start their output rows' segments from */
                transpose_case((enum transpose_variant)v, elems[e], shapes[s][0], shapes[s][1],
                               (size_t)(32 - elems[e]));
            }
        }
    /* Packed's cells kernel (`in` on 16 bytes, `out` on a sector, rows x
     * elem a multiple of 32, cols x elem of 16) with both pointers off the
     * 128-byte lines, edge tiles on both sides; and beside it what just
     * misses it, taking the register-loaded tile: `out` off the sector, a
     * row 4 bytes short of 16, rows off the sectors. */
    for (int elem = 1; elem <= 2; ++elem) {
        transpose_case_at(TRANSPOSE_PACKED, elem, 160, 272, 16, 32);
        transpose_case_at(TRANSPOSE_PACKED, elem, 288, 1040, 48, 96);
        transpose_case_at(TRANSPOSE_PACKED, elem, 160, 272, 16, 4);
        transpose_case_at(TRANSPOSE_PACKED, elem, 160, 276, 16, 32);
        transpose_case_at(TRANSPOSE_PACKED, elem, 164, 272, 16, 32);
    }
    /* Packed's lines kernel (`in` on 16 bytes, at least 256 rows of 256
     * bytes, where the cells kernel does not run): `in` off the 128-byte
     * lines, `out` at several phases of a sector, edge tiles on every side;
     * and beside it what just misses it, taking the register-loaded tile: 255
     * rows, rows of 255 or 254 bytes, `in` 8 bytes off 16. Halves at
     * 6050x6001 stack two tiles a block (transpose_lines_stack, on up to
     * 186 SMs), the last block one. */
    transpose_case_at(TRANSPOSE_PACKED, 2, 6050, 6001, 48, 6);
    for (int elem = 1; elem <= 2; ++elem) {
        transpose_case_at(TRANSPOSE_PACKED, elem, 257, 1025, 16, 0);
        transpose_case_at(TRANSPOSE_PACKED, elem, 300, 260, 48, (size_t)elem);
        transpose_case_at(TRANSPOSE_PACKED, elem, 1000, 999, 112, (size_t)(32 - elem));
        transpose_case_at(TRANSPOSE_PACKED, elem, 999, 1000, 0, 6);
        transpose_case_at(TRANSPOSE_PACKED, elem, 255, 1025, 16, 0);
        transpose_case_at(TRANSPOSE_PACKED, elem, 1025, 255 / elem, 16, 0);
        transpose_case_at(TRANSPOSE_PACKED, elem, 257, 1025, 8, 0);
    }
    transpose_refused(TRANSPOSE_PADDED, 3, 8, 8, 0, 0, "a 3-byte element");
    transpose_refused(TRANSPOSE_PADDED, 0, 8, 8, 0, 0, "a 0-byte element");
    transpose_refused(TRANSPOSE_PADDED, 32, 8, 8, 0, 0, "a 32-byte element");
    transpose_refused(TRANSPOSE_PADDED, 8, 8, 8, 4, 0, "8-byte elements 4 bytes off");
    transpose_refused(TRANSPOSE_SWIZZLED, 16, 8, 8, 8, 0, "16-byte elements 8 bytes off");
    transpose_refused(TRANSPOSE_PADDED, 2, 8, 8, 1, 0, "halves 1 byte off");
    transpose_refused(TRANSPOSE_PACKED, 4, 8, 8, 0, 0, "packed 4-byte elements");
    transpose_refused(TRANSPOSE_PACKED, 16, 8, 8, 0, 0, "packed 16-byte elements");
    transpose_refused(TRANSPOSE_PADDED, 4, 0, 8, 0, 0, "zero rows");
    transpose_refused(TRANSPOSE_PADDED, 4, 8, -1, 0, 0, "negative cols");
    transpose_refused(TRANSPOSE_PADDED, 4, 8, 8, 0, 1, "a null input");
    transpose_refused(TRANSPOSE_PACKED, 1, 8, 8, 0, 2, "a null output");
    transpose_refused((enum transpose_variant)TRANSPOSE_VARIANTS, 4, 8, 8, 0, 0, "a bad variant");
    /* Past 2^31 elements (2.5 GB each way): the 64-bit index paths of the
     * cells kernel (whole sectors and 16-byte rows) and of the lines kernel
     * (odd rows), where a 32-bit product would wrap. */
    size_t free_bytes = 0, total_bytes = 0;
    CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (free_bytes < ((size_t)11 << 29)) { /* 5.5 GiB: two 2.5 GB buffers and guards */
        printf("api_edges: transposes past 2^31 elements skipped (%zu MiB free)\n",
               free_bytes >> 20);
        return;
    }
    transpose_case_at(TRANSPOSE_PACKED, 1, 49984, 50016, 0, 0);
    transpose_case_at(TRANSPOSE_PACKED, 1, 49999, 50001, 0, 0);
}

/* Small integers as fp16 bits (-4 ... 4): every product and sum of K of them
 * is exact in fp32 for the K used here, so C is checked for equality. */
static uint16_t small_half(int v)
{
    static const uint16_t bits[9] = {0xc400, 0xc200, 0xc000, 0xbc00, 0x0000,
                                     0x3c00, 0x4000, 0x4200, 0x4400};
    return bits[v + 4];
}

/* An fp16's value (C11 has no half type), and the fp16 an integer rounds
 * to (nearest, ties to even; |w| < 65520 here): C in fp16 checked exactly. */
static double half_value(uint16_t h)
{
    const int exponent = h >> 10 & 31, mantissa = h & 1023;
    const double magnitude = exponent == 0    ? ldexp(mantissa, -24)
                             : exponent == 31 ? HUGE_VAL
                                              : ldexp(1024 + mantissa, exponent - 25);
    return h & 0x8000 ? -magnitude : magnitude;
}

static double half_of_int(long w)
{
    const long size = labs(w);
    int bits = 0;
    while (size >> bits > 2047)
        ++bits; /* the unit in the last place: 2^bits */
    const long ulp = 1L << bits, rest = size % ulp;
    long q = size / ulp;
    if (2 * rest > ulp || (2 * rest == ulp && q % 2 == 1))
        ++q;
    return w < 0 ? -(double)(q * ulp) : (double)(q * ulp);
}

/* C = A B^T in fp32 (half_c 0) or fp16 (1), c_offset bytes into its
 * allocation; A and B small integers, so C is checked for equality. */
static void gemm_case(enum gemm_tile_variant v, int half_c, int64_t m, int64_t n, int64_t k,
                      size_t c_offset)
{
    const size_t c_bytes = (size_t)(m * n) * (half_c ? 2 : 4);
    uint16_t *a = malloc((size_t)(m * k) * 2), *b = malloc((size_t)(n * k) * 2);
    int *av = malloc((size_t)(m * k) * sizeof(int)), *bv = malloc((size_t)(n * k) * sizeof(int));
    void *c = malloc(c_bytes);
    for (int64_t i = 0; i < m * k; ++i) {
        av[i] = (int)(random_byte() % 9) - 4;
        a[i] = small_half(av[i]);
    }
    for (int64_t i = 0; i < n * k; ++i) {
        bv[i] = (int)(random_byte() % 9) - 4;
        b[i] = small_half(bv[i]);
    }
    uint16_t *d_a, *d_b;
    CHECK(cudaMalloc((void **)&d_a, (size_t)(m * k) * 2));
    CHECK(cudaMalloc((void **)&d_b, (size_t)(n * k) * 2));
    struct buffer d_c = buffer_new(c_bytes, c_offset);
    CHECK(cudaMemcpy(d_a, a, (size_t)(m * k) * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, b, (size_t)(n * k) * 2, cudaMemcpyHostToDevice));
    char what[160];
    snprintf(what, sizeof what, "gemm_tile variant %d, %s C, at %lldx%lldx%lld, C %zu bytes in",
             (int)v, half_c ? "fp16" : "fp32", (long long)m, (long long)n, (long long)k, c_offset);
    const cudaError_t err = half_c ? gemm_tile_f16(v, (uint16_t *)d_c.at, d_a, d_b, m, n, k, 0)
                                   : gemm_tile_f32(v, (float *)d_c.at, d_a, d_b, m, n, k, 0);
    if (err != cudaSuccess) {
        fprintf(stderr, "api_edges: %s: %s\n", what, cudaGetErrorString(err));
        fail(what);
    } else {
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(c, d_c.at, c_bytes, cudaMemcpyDeviceToHost));
        size_t wrong = 0;
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
                long want = 0;
                for (int64_t p = 0; p < k; ++p)
                    want += (long)av[i * k + p] * bv[j * k + p];
                wrong += half_c ? half_value(((const uint16_t *)c)[i * n + j]) != half_of_int(want)
                                : ((const float *)c)[i * n + j] != (float)want;
            }
        if (wrong != 0 || guards_hold(&d_c, c_offset, 0) != 0) {
            fprintf(stderr, "api_edges: %s: %zu elements wrong\n", what, wrong);
            fail(what);
        }
    }
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_c.base));
    free(a);
    free(b);
    free(av);
    free(bv);
    free(c);
}

/* Around the Hopper kernel's tiles (128 x 32 thin, 128 x 64 narrow, 128 x
 * 96, 128 x 128 middle, 128 x 168, 128 x 176, 128 x 256 wide) and its
 * clusters of two tile rows: where the narrow tiles would fill half the SMs
 * or fewer and K is not split the thin tile takes them
 * (gemm_tile_wgmma_thin): one tile, an odd count of tile rows, one past a
 * tile, a last tile 1 wide with C one element in, its 8-stage ring twice
 * round with a K tail (128 x 2048 x 1000), M inside the second consumer's
 * rows, one row of 66 tiles, 96 thin tiles (300 x 1000: 48 narrow ones, a
 * quarter to a half of the SMs) with an odd N and C one element in, and one
 * whole round of 132 (1 x 4224 x 1024); the narrow tile where they fill
 * more (557 x 1000: 80 narrow tiles), an odd N with C one element in; 168
 * tiles with edges in M and N (1100 x 2100), wide ones (769 x 3000); and K
 * split over clusters of two (from 2048 on few narrow tiles:
 * gemm_tile_wgmma_split): a last tile 8 wide, an odd N with C one element
 * into its allocation (its stores one by one); one tile row of 89 tiles 96
 * wide and one of 100 middle ones, which run alone (no cluster), and the 96
 * tile with C one element in; the 168 and 176 tiles, stored directly (an
 * odd N, C one element in); and C in two launches (whole rounds of one
 * tile, then the rest, where K is long: gemm_tile_wgmma_first_columns on
 * 132 SMs): wide then middle tiles through the staging buffers, wide then
 * narrow ones with K split and stored directly (an odd N, C one element
 * in), wide then 168 ones, and middle tiles alone then a narrow one at M =
 * 1. */
static void gemm_refusals(enum gemm_tile_variant v);

/* The GEMM the cases run: the Hopper path's 128-byte swizzle where this GPU
 * and build have it, else the mma.sync path's swizzled tile. */
static enum gemm_tile_variant gemm_variant(int device)
{
    return gemm_tile_supported(GEMM_TILE_WGMMA_SW128, device) == cudaSuccess ? GEMM_TILE_WGMMA_SW128
                                                                             : GEMM_TILE_SWIZZLED;
}

static void gemms(void)
{
    static const int64_t shapes[][4] = {
        {1, 1, 8, 0},          {128, 64, 64, 0},      {129, 65, 72, 0},     {384, 64, 136, 0},
        {257, 300, 24, 0},     {2000, 70, 8, 0},      {1100, 2100, 64, 0},  {3, 72, 2056, 0},
        {5, 131, 2056, 4},     {1, 8449, 2056, 0},    {257, 8449, 1032, 4}, {257, 11624, 5184, 0},
        {513, 11617, 2560, 4}, {257, 12674, 4096, 0}, {1, 16904, 10304, 0}, {769, 3000, 64, 0},
        {1, 12673, 2056, 0},   {100, 9000, 72, 4},    {257, 5801, 1032, 4}, {129, 65, 72, 4},
        {557, 1000, 72, 0},    {557, 1001, 72, 4},    {128, 2048, 1000, 0}, {100, 300, 1000, 4},
        {1, 2112, 1024, 4},    {300, 1000, 72, 0},    {300, 1001, 72, 4},   {1, 4224, 1024, 0},
    };
    /* fp16 C (bytes in last): the 168 tile's quads (rows on 8 bytes; its
     * 21st n8 tile in pairs), its pairs (rows or C on 4 bytes) and single
     * stores (C on 2); the narrow tile's quads, pairs and single stores,
     * unstaged; the wide tile unstaged (C 8 bytes in: quads), staged; M =
     * 1; quads in a second launch (wide then 168, 8448 columns in); the 96
     * tile's quads (M = 64: the first consumer's rows inside C) and its
     * single stores at an odd N; the 176 tile's quads; the thin tile's
     * quads, pairs and single stores (a last tile 4, 2 and 3 wide), and
     * its 8-stage ring nearly four times round (31 K tiles), C 2 bytes in. */
    static const int64_t half_shapes[][4] = {
        {257, 8452, 264, 0}, {257, 8452, 264, 4}, {257, 8450, 264, 0},   {257, 8450, 264, 2},
        {557, 1000, 72, 8},  {557, 1000, 72, 4},  {557, 1000, 72, 6},    {257, 8448, 264, 8},
        {257, 8448, 264, 0}, {1, 8448, 264, 8},   {257, 12676, 4096, 0}, {64, 8456, 264, 8},
        {37, 9001, 264, 2},  {257, 5548, 264, 0}, {129, 68, 72, 8},      {129, 66, 72, 4},
        {129, 67, 72, 2},    {256, 256, 1984, 2},
    };
    /* gemm_tile_wgmma.h's entry takes the Hopper layouts only, on any GPU
     * and in any build: refused before it asks what the GPU is. */
    {
        struct buffer c = buffer_new(64 * 64 * 4, 0), a = buffer_new(64 * 64 * 2, 0),
                      b = buffer_new(64 * 64 * 2, 0);
        expect_refused("gemm_tile_wgmma_launch refusal, an mma.sync variant",
                       gemm_tile_wgmma_launch(GEMM_TILE_SWIZZLED, c.at, 0, (const uint16_t *)a.at,
                                              (const uint16_t *)b.at, 64, 64, 64, 0),
                       &c, 0);
        CHECK(cudaFree(c.base));
        CHECK(cudaFree(a.base));
        CHECK(cudaFree(b.base));
    }
    int device = 0;
    CHECK(cudaGetDevice(&device));
    const enum gemm_tile_variant v = gemm_variant(device);
    if (gemm_tile_supported(v, device) != cudaSuccess) { /* below sm_80: no GEMM runs */
        printf("api_edges: gemm_tile: no variant runs on this GPU, its cases skipped\n");
        return;
    }
    gemm_refusals(v);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
        gemm_case(v, 0, shapes[s][0], shapes[s][1], shapes[s][2], (size_t)shapes[s][3]);
    for (size_t s = 0; s < sizeof half_shapes / sizeof half_shapes[0]; ++s)
        gemm_case(v, 1, half_shapes[s][0], half_shapes[s][1], half_shapes[s][2],
                  (size_t)half_shapes[s][3]);
    /* The other three layouts through the public entry point, exactly, at
     * the thin and narrow tiles' edges (fp16 C last): the suites hold them
     * to a relative L2 error, which a few wrong elements can pass. */
    static const int64_t layouts_shapes[][5] = {
        {129, 65, 72, 4, 0}, {128, 2048, 1000, 0, 0}, {557, 1001, 72, 4, 0}, {129, 67, 72, 2, 1}};
    const enum gemm_tile_variant layouts[3] = {GEMM_TILE_WGMMA_INTERLEAVE, GEMM_TILE_WGMMA_SW32,
                                               GEMM_TILE_WGMMA_SW64};
    if (v != GEMM_TILE_WGMMA_SW128)
        return;
    for (int l = 0; l < 3; ++l)
        for (size_t s = 0; s < sizeof layouts_shapes / sizeof layouts_shapes[0]; ++s)
            gemm_case(layouts[l], (int)layouts_shapes[s][4], layouts_shapes[s][0],
                      layouts_shapes[s][1], layouts_shapes[s][2], (size_t)layouts_shapes[s][3]);
}

/* One AES call through the API, every variant: CTR (ecb 0) or ECB on n
 * bytes of random input `in_offset` bytes into its allocation, out
 * `out_offset` bytes into its own or, in place, the input's buffer; checked
 * in full against the reference (aes_lut_ref.c, held to FIPS-197's and SP
 * 800-38A's vectors), guards and all. The counter's low 64 bits sit just
 * below a carry into the high ones. */
static void aes_case(int ecb, int key_bytes, int64_t n, size_t in_offset, size_t out_offset,
                     int in_place)
{
    uint8_t key[32], counter[16];
    for (int i = 0; i < 32; ++i)
        key[i] = random_byte();
    for (int i = 0; i < 16; ++i)
        counter[i] = i < 8 ? random_byte() : 0xff;
    counter[15] = 0xf0;
    struct aes_lut_ref_key k;
    aes_lut_ref_expand(&k, key, key_bytes);
    const size_t bytes = (size_t)n;
    uint8_t *in = malloc(bytes + 1), *want = malloc(bytes + 1), *got = malloc(bytes + 1);
    for (size_t i = 0; i < bytes; ++i)
        in[i] = random_byte();
    if (ecb)
        aes_lut_ref_ecb(&k, want, in, bytes);
    else
        aes_lut_ref_ctr(&k, counter, want, in, bytes);
    for (int v = 0; v < AES_LUT_VARIANTS; ++v) {
        struct buffer d_in = buffer_new(bytes, in_offset), d_out = d_in;
        if (!in_place)
            d_out = buffer_new(bytes, out_offset);
        CHECK(cudaMemcpy(d_in.at, in, bytes, cudaMemcpyHostToDevice));
        const enum aes_lut_variant var = (enum aes_lut_variant)v;
        const cudaError_t err =
            ecb ? aes_lut_ecb(var, key, key_bytes, d_out.at, d_in.at, n, 0)
                : aes_lut_ctr(var, key, key_bytes, counter, d_out.at, d_in.at, n, 0);
        char what[160];
        snprintf(what, sizeof what, "aes_lut variant %d, %s, %d-byte key, n %lld, in +%zu, %s%zu",
                 v, ecb ? "ECB" : "CTR", key_bytes, (long long)n, in_offset,
                 in_place ? "in place +" : "out +", in_place ? in_offset : out_offset);
        if (err != cudaSuccess) {
            fprintf(stderr, "api_edges: %s: %s\n", what, cudaGetErrorString(err));
            fail(what);
        } else {
            CHECK(cudaDeviceSynchronize());
            CHECK(cudaMemcpy(got, d_out.at, bytes, cudaMemcpyDeviceToHost));
            size_t wrong = 0;
            for (size_t i = 0; i < bytes; ++i)
                wrong += got[i] != want[i];
            const int guard_written = guards_hold(&d_out, in_place ? in_offset : out_offset, 0);
            if (wrong != 0 || guard_written) {
                fprintf(stderr, "api_edges: %s: %zu bytes wrong%s\n", what, wrong,
                        guard_written ? ", a guard byte written" : "");
                fail(what);
            }
        }
        if (!in_place)
            CHECK(cudaFree(d_out.base));
        CHECK(cudaFree(d_in.base));
    }
    free(in);
    free(want);
    free(got);
}

/* AES at the edges aes_lut.h promises and the suite's sizes miss (its
 * offsets follow n % 16, so an aligned input is always whole blocks): in
 * place on the 16-byte fast path (CTR, with a partial last block; ECB);
 * aligned buffers with a partial block after whole tiles, every key size;
 * ECB with both buffers off 16 bytes; and the refusals. */
static void aess(void)
{
    aes_case(0, 16, 65541, 0, 0, 1);
    aes_case(1, 32, 262144, 0, 0, 1);
    aes_case(0, 16, 65537, 0, 0, 0);
    aes_case(0, 24, 65537, 0, 0, 0);
    aes_case(0, 32, 16777233, 0, 0, 0);
    aes_case(1, 24, 4096, 5, 3, 0);
    uint8_t key[32] = {1}, counter[16] = {0};
    struct buffer out = buffer_new(64, 0), in = buffer_new(64, 0);
    expect_refused("aes_lut refusal, key_bytes 20",
                   aes_lut_ctr(AES_LUT_REPLICATED, key, 20, counter, out.at, in.at, 64, 0), &out,
                   0);
    expect_refused("aes_lut refusal, a bad variant",
                   aes_lut_ctr(AES_LUT_VARIANTS, key, 16, counter, out.at, in.at, 64, 0), &out, 0);
    expect_refused("aes_lut refusal, a null key",
                   aes_lut_ctr(AES_LUT_SHARED, NULL, 16, counter, out.at, in.at, 64, 0), &out, 0);
    expect_refused("aes_lut refusal, a null counter",
                   aes_lut_ctr(AES_LUT_SHARED, key, 16, NULL, out.at, in.at, 64, 0), &out, 0);
    expect_refused("aes_lut refusal, ECB of 17 bytes",
                   aes_lut_ecb(AES_LUT_SHARED, key, 16, out.at, in.at, 17, 0), &out, 0);
    if (aes_lut_ctr(AES_LUT_SHARED, key, 16, counter, NULL, NULL, 0, 0) != cudaSuccess)
        fail("aes_lut: n = 0 with null buffers refused");
    CHECK(cudaFree(out.base));
    CHECK(cudaFree(in.base));
}

/* One histogram through the API, every variant: n samples of random bytes
 * `offset` bytes into their allocation (u16: little-endian 16-bit samples,
 * bin s >> 4), the bins poisoned and guarded, checked against a plain
 * count. */
static void histogram_case(int u16, int64_t n, size_t offset, int variant_only)
{
    const size_t bytes = (size_t)n * (u16 ? 2 : 1),
                 bins = u16 ? HISTOGRAM_U16_BINS : HISTOGRAM_U8_BINS;
    unsigned char *in = malloc(bytes);
    uint32_t *want = calloc(bins, sizeof *want), *got = malloc(bins * sizeof *got);
    for (size_t i = 0; i < bytes; ++i)
        in[i] = random_byte();
    for (int64_t i = 0; i < n; ++i)
        ++want[u16 ? (size_t)(in[2 * i] | in[2 * i + 1] << 8) >> 4 : in[i]];
    struct buffer d_in = buffer_new(bytes, offset);
    if (bytes > 0)
        CHECK(cudaMemcpy(d_in.at, in, bytes, cudaMemcpyHostToDevice));
    const void *const from = n > 0 ? d_in.at : NULL; /* no samples: in may be NULL */
    for (int v = 0; v < HISTOGRAM_VARIANTS; ++v) {
        if (variant_only >= 0 && v != variant_only)
            continue;
        struct buffer d_hist = buffer_new(bins * sizeof(uint32_t), 0);
        const enum histogram_variant var = (enum histogram_variant)v;
        const cudaError_t err =
            u16 ? histogram_u16(var, (uint32_t *)d_hist.at, from, n, 0)
                : histogram_u8(var, (uint32_t *)d_hist.at, (const uint8_t *)from, n, 0);
        char what[160];
        snprintf(what, sizeof what, "histogram variant %d, %s, n %lld, in +%zu", v,
                 u16 ? "u16" : "u8", (long long)n, offset);
        if (err != cudaSuccess) {
            fprintf(stderr, "api_edges: %s: %s\n", what, cudaGetErrorString(err));
            fail(what);
        } else {
            CHECK(cudaDeviceSynchronize());
            CHECK(cudaMemcpy(got, d_hist.at, bins * sizeof *got, cudaMemcpyDeviceToHost));
            size_t wrong = 0;
            for (size_t b = 0; b < bins; ++b)
                wrong += got[b] != want[b];
            const int guard_written = guards_hold(&d_hist, 0, 0);
            if (wrong != 0 || guard_written) {
                fprintf(stderr, "api_edges: %s: %zu bins wrong%s\n", what, wrong,
                        guard_written ? ", a guard byte written" : "");
                fail(what);
            }
        }
        CHECK(cudaFree(d_hist.base));
    }
    CHECK(cudaFree(d_in.base));
    free(in);
    free(want);
    free(got);
}

/* Histograms where histogram.h promises any byte address and the suite's
 * sizes (their offsets follow n) start every even size of 16 or more on 16
 * bytes: 16-bit samples 6 and 14 bytes in (1-7 head samples beside the
 * vectors; the 14 at 2162690 aligned vectors, two past the 4-copy limit of
 * the replicated bins on 132 SMs: 8 copies), bytes 8 in; no samples
 * from a null input (the bins cleared); and the refusals, the bins
 * untouched. */
static void histograms(void)
{
    histogram_case(1, 500001, 6, -1);
    histogram_case(1, 17301521, 14, HISTOGRAM_REPLICATED);
    histogram_case(0, 65537, 8, -1);
    histogram_case(0, 0, 0, -1); /* no samples, in NULL: every bin cleared */
    histogram_case(1, 0, 0, -1);
    struct buffer hist = buffer_new(HISTOGRAM_U16_BINS * sizeof(uint32_t), 0),
                  in = buffer_new(64, 0);
    uint32_t *const bins = (uint32_t *)hist.at;
    expect_refused("histogram refusal, a bad variant",
                   histogram_u8(HISTOGRAM_VARIANTS, bins, in.at, 64, 0), &hist, 0);
    expect_refused("histogram refusal, n = -1", histogram_u16(HISTOGRAM_SHARED, bins, in.at, -1, 0),
                   &hist, 0);
    expect_refused("histogram refusal, a null input",
                   histogram_u8(HISTOGRAM_SHARED, bins, NULL, 5, 0), &hist, 0);
    expect_refused("histogram refusal, null bins",
                   histogram_u8(HISTOGRAM_SHARED, NULL, in.at, 64, 0), &hist, 0);
    CHECK(cudaFree(hist.base));
    CHECK(cudaFree(in.base));
}

/* One sum through the API, every variant, fp32 (fp = 1) or int32: n small
 * integers (so fp32's sums are exact too) `in_offset` bytes into their
 * allocation, the workspace `work_offset` bytes into its own and exactly
 * reduction_workspace_bytes long, the result poisoned and guarded. */
static void reduction_case(int fp, int64_t n, size_t in_offset, size_t work_offset)
{
    int32_t *in = malloc((size_t)n * 4);
    long want = 0;
    for (int64_t i = 0; i < n; ++i) {
        const int x = (int)(random_byte() % 9) - 4;
        want += x;
        if (fp) {
            const float f = (float)x;
            memcpy(&in[i], &f, 4);
        } else {
            in[i] = x;
        }
    }
    struct buffer d_in = buffer_new((size_t)n * 4, in_offset);
    if (n > 0)
        CHECK(cudaMemcpy(d_in.at, in, (size_t)n * 4, cudaMemcpyHostToDevice));
    const void *const from = n > 0 ? d_in.at : NULL; /* a sum of nothing: in may be NULL */
    for (int v = 0; v < REDUCTION_VARIANTS; ++v) {
        const enum reduction_variant var = (enum reduction_variant)v;
        const size_t work_bytes = reduction_workspace_bytes(var, n);
        struct buffer d_out = buffer_new(4, 0), d_work = buffer_new(work_bytes, work_offset);
        void *const work =
            work_bytes > 0 ? (void *)d_work.at : NULL; /* NULL where none is needed */
        const cudaError_t err =
            fp ? reduction_sum_f32(var, (float *)d_out.at, (const float *)from, n, work, work_bytes,
                                   0)
               : reduction_sum_i32(var, (int32_t *)d_out.at, (const int32_t *)from, n, work,
                                   work_bytes, 0);
        char what[160];
        snprintf(what, sizeof what, "reduction variant %d, %s, n %lld, in +%zu, workspace +%zu", v,
                 fp ? "f32" : "i32", (long long)n, in_offset, work_offset);
        if (err != cudaSuccess) {
            fprintf(stderr, "api_edges: %s: %s\n", what, cudaGetErrorString(err));
            fail(what);
        } else {
            CHECK(cudaDeviceSynchronize());
            unsigned char got[4];
            CHECK(cudaMemcpy(got, d_out.at, 4, cudaMemcpyDeviceToHost));
            float f;
            int32_t i;
            memcpy(&f, got, 4);
            memcpy(&i, got, 4);
            const int right = fp ? f == (float)want : i == (int32_t)want;
            const int guard_written =
                guards_hold(&d_out, 0, 0) || guards_hold(&d_work, work_offset, 0);
            if (!right || guard_written) {
                fprintf(stderr, "api_edges: %s: sum %s (want %ld)%s\n", what,
                        right ? "right" : "wrong", want,
                        guard_written ? ", a guard byte written" : "");
                fail(what);
            }
        }
        CHECK(cudaFree(d_out.base));
        CHECK(cudaFree(d_work.base));
    }
    CHECK(cudaFree(d_in.base));
    free(in);
}

/* Sums where reduction.h promises any 4-byte-aligned input and a workspace
 * from anywhere, and the suite's offsets (n % 4 elements) put `in` 8 bytes
 * past 16 only at n = 2: fp32 and int32 4, 8 and 12 bytes in, in one pass
 * (1022 elements: no workspace, NULL passed) and in two or three (the
 * workspace 4 bytes into its allocation); a sum of nothing from a null
 * input (0); and the refusals, the result untouched. */
static void reductions(void)
{
    reduction_case(1, 0, 0, 0); /* a sum of nothing from a null input: 0 */
    reduction_case(0, 0, 0, 0);
    reduction_case(1, 1022, 8, 0);
    reduction_case(0, 1022, 4, 0);
    reduction_case(1, 8194, 8, 4);
    reduction_case(0, 8194, 8, 4);
    reduction_case(1, 16777258, 8, 4);
    reduction_case(0, 16777258, 12, 0);
    const int64_t n = 16777258;
    const size_t need = reduction_workspace_bytes(REDUCTION_TUNED, n);
    if (need < 4) {
        fail("reduction: 16777258 elements take no workspace (the refusal cases assume one)");
        return;
    }
    struct buffer out = buffer_new(4, 0), in = buffer_new((size_t)n * 4, 0),
                  work = buffer_new(need, 0);
    int32_t *const sum = (int32_t *)out.at;
    const int32_t *const ints = (const int32_t *)in.at;
    const float *const floats = (const float *)in.at;
    expect_refused("reduction refusal, a bad variant",
                   reduction_sum_i32(REDUCTION_VARIANTS, sum, ints, n, work.at, need, 0), &out, 0);
    expect_refused("reduction refusal, n = -1",
                   reduction_sum_i32(REDUCTION_TUNED, sum, ints, -1, work.at, need, 0), &out, 0);
    expect_refused(
        "reduction refusal, a workspace 4 bytes short",
        reduction_sum_f32(REDUCTION_TUNED, (float *)sum, floats, n, work.at, need - 4, 0), &out, 0);
    expect_refused("reduction refusal, a null input",
                   reduction_sum_f32(REDUCTION_TUNED, (float *)sum, NULL, n, work.at, need, 0),
                   &out, 0);
    expect_refused("reduction refusal, a null result",
                   reduction_sum_f32(REDUCTION_TUNED, NULL, floats, n, work.at, need, 0), &out, 0);
    expect_refused("reduction refusal, a null workspace of the bytes it needs",
                   reduction_sum_i32(REDUCTION_TUNED, sum, ints, n, NULL, need, 0), &out, 0);
    CHECK(cudaFree(out.base));
    CHECK(cudaFree(in.base));
    CHECK(cudaFree(work.base));
}

/* The refusals gemm_tile.h lists, through the launchers on a GPU. */
static void gemm_refusals(enum gemm_tile_variant v)
{
    struct buffer c = buffer_new(64 * 64 * 4, 0), a = buffer_new(64 * 64 * 2 + 16, 0),
                  b = buffer_new(64 * 64 * 2, 0);
    float *const cf = (float *)c.at;
    const uint16_t *const ap = (const uint16_t *)a.at, *const bp = (const uint16_t *)b.at;
    expect_refused("gemm_tile refusal, a null A", gemm_tile_f32(v, cf, NULL, bp, 64, 64, 64, 0), &c,
                   0);
    expect_refused("gemm_tile refusal, A 8 bytes off 16",
                   gemm_tile_f32(v, cf, ap + 4, bp, 64, 64, 64, 0), &c, 0);
    expect_refused("gemm_tile refusal, M = 0", gemm_tile_f32(v, cf, ap, bp, 0, 64, 64, 0), &c, 0);
    expect_refused("gemm_tile refusal, K = 12",
                   gemm_tile_f16(v, (uint16_t *)c.at, ap, bp, 64, 64, 12, 0), &c, 0);
    expect_refused(
        "gemm_tile refusal, a bad variant",
        gemm_tile_f32((enum gemm_tile_variant)GEMM_TILE_VARIANTS, cf, ap, bp, 64, 64, 64, 0), &c,
        0);
    CHECK(cudaFree(c.base));
    CHECK(cudaFree(a.base));
    CHECK(cudaFree(b.base));
}

/* The launchers inside a CUDA graph (stream capture in the global mode, a
 * non-blocking stream), each the process's first call of its family (so its
 * one-time setup runs inside the capture): a GEMM in two launches (wide
 * tiles, then the rest), a histogram of 16-bit samples (its bins cleared,
 * then counted) and AES-128 CTR; the graph replayed twice gives the same
 * bytes as the same calls made directly afterwards. */
static void captured(void)
{
    int device = 0;
    CHECK(cudaGetDevice(&device));
    const enum gemm_tile_variant v = gemm_variant(device);
    const int gemm = gemm_tile_supported(v, device) == cudaSuccess;
    const int64_t m = 257, n = 11624, k = 5184, samples = 1000003, bytes = 1 << 20;
    const size_t c_bytes = (size_t)(m * n) * 4, hist_bytes = HISTOGRAM_U16_BINS * 4;
    unsigned char *h = malloc((size_t)(n * k) * 2), *h2 = malloc(c_bytes);
    if (h == NULL || h2 == NULL) {
        fprintf(stderr, "api_edges: no host memory for the captured calls\n");
        exit(1);
    }
    uint16_t *a, *b;
    unsigned char *in, *out[2], *c[2], *hist[2];
    CHECK(cudaMalloc((void **)&a, (size_t)(m * k) * 2));
    CHECK(cudaMalloc((void **)&b, (size_t)(n * k) * 2));
    CHECK(cudaMalloc((void **)&in, (size_t)samples * 2 + 3));
    for (int64_t i = 0; i < n * k; ++i)
        ((uint16_t *)h)[i] = small_half((int)(random_byte() % 9) - 4);
    CHECK(cudaMemcpy(a, h, (size_t)(m * k) * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, h, (size_t)(n * k) * 2, cudaMemcpyHostToDevice));
    for (int64_t i = 0; i < samples * 2 + 3; ++i)
        h[i] = random_byte();
    CHECK(cudaMemcpy(in, h, (size_t)samples * 2 + 3, cudaMemcpyHostToDevice));
    for (int r = 0; r < 2; ++r) {
        CHECK(cudaMalloc((void **)&c[r], c_bytes));
        CHECK(cudaMalloc((void **)&hist[r], hist_bytes));
        CHECK(cudaMalloc((void **)&out[r], (size_t)bytes));
        CHECK(cudaMemset(c[r], r, c_bytes));
        CHECK(cudaMemset(hist[r], r, hist_bytes));
        CHECK(cudaMemset(out[r], r, (size_t)bytes));
    }
    const uint8_t key[16] = {7, 1, 2, 3}, counter[16] = {9, 9};
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaGraph_t graph = NULL;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    cudaError_t e[3];
    e[0] = gemm ? gemm_tile_f32(v, (float *)c[0], a, b, m, n, k, s) : cudaSuccess;
    e[1] = histogram_u16(HISTOGRAM_REPLICATED, (uint32_t *)hist[0], in + 3, samples, s);
    e[2] = aes_lut_ctr(AES_LUT_REPLICATED, key, 16, counter, out[0], in, bytes, s);
    const cudaError_t end = cudaStreamEndCapture(s, &graph);
    static const char *const names[3] = {"gemm_tile_f32", "histogram_u16", "aes_lut_ctr"};
    int ok = end == cudaSuccess;
    for (int i = 0; i < 3; ++i)
        if (e[i] != cudaSuccess) {
            fprintf(stderr, "api_edges: %s under stream capture: %s\n", names[i],
                    cudaGetErrorString(e[i]));
            fail(names[i]);
            ok = 0;
        }
    if (end != cudaSuccess) {
        fprintf(stderr, "api_edges: the capture: %s\n", cudaGetErrorString(end));
        fail("stream capture");
    }
    (void)cudaGetLastError(); /* a failed capture's error is not sticky */
    if (ok) {
        cudaGraphExec_t exec;
        CHECK(cudaGraphInstantiate(&exec, graph, 0));
        CHECK(cudaGraphLaunch(exec, s));
        CHECK(cudaGraphLaunch(exec, s));
        CHECK(cudaStreamSynchronize(s));
        CHECK(cudaGraphExecDestroy(exec));
        if (gemm)
            CHECK(gemm_tile_f32(v, (float *)c[1], a, b, m, n, k, 0));
        CHECK(histogram_u16(HISTOGRAM_REPLICATED, (uint32_t *)hist[1], in + 3, samples, 0));
        CHECK(aes_lut_ctr(AES_LUT_REPLICATED, key, 16, counter, out[1], in, bytes, 0));
        CHECK(cudaDeviceSynchronize());
        const struct {
            unsigned char **p;
            size_t bytes;
        } pairs[3] = {{c, gemm ? c_bytes : 0}, {hist, hist_bytes}, {out, (size_t)bytes}};
        for (int i = 0; i < 3; ++i) {
            CHECK(cudaMemcpy(h, pairs[i].p[0], pairs[i].bytes, cudaMemcpyDeviceToHost));
            CHECK(cudaMemcpy(h2, pairs[i].p[1], pairs[i].bytes, cudaMemcpyDeviceToHost));
            if (memcmp(h, h2, pairs[i].bytes) != 0) {
                fprintf(stderr, "api_edges: %s from a graph differs from a direct call\n",
                        names[i]);
                fail(names[i]);
            }
        }
    }
    if (graph != NULL)
        CHECK(cudaGraphDestroy(graph));
    CHECK(cudaStreamDestroy(s));
    for (int r = 0; r < 2; ++r) {
        CHECK(cudaFree(c[r]));
        CHECK(cudaFree(hist[r]));
        CHECK(cudaFree(out[r]));
    }
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(in));
    free(h);
    free(h2);
}

/* Shapes and lengths past what each launcher takes, refused before any
 * work: last, so that a launcher that wrongly took one (and faulted on a
 * small buffer, a sticky error) loses no other case. */
static void overflows(void)
{
    transpose_refused(TRANSPOSE_PADDED, 4, (int64_t)1 << 32, (int64_t)1 << 32, 0, 0,
                      "rows x cols past 2^63 - 1");
    transpose_refused(TRANSPOSE_PADDED, 1, (int64_t)1 << 37, 1, 0, 0, "2^31 tile rows");
    transpose_refused(TRANSPOSE_SWIZZLED, 16, (int64_t)1 << 31, (int64_t)1 << 31, 0, 0,
                      "rows x cols x 16 bytes past 2^63 - 1");
    const uint8_t key[16] = {1}, counter[16] = {0};
    struct buffer out = buffer_new(4096 * 4, 0), a = buffer_new(64 * 64 * 2, 0);
    expect_refused(
        "aes_lut refusal, n = 2^62",
        aes_lut_ctr(AES_LUT_REPLICATED, key, 16, counter, out.at, a.at, (int64_t)1 << 62, 0), &out,
        0);
    expect_refused("histogram refusal, n = 2^62",
                   histogram_u8(HISTOGRAM_SHARED, (uint32_t *)out.at, a.at, (int64_t)1 << 62, 0),
                   &out, 0);
    int device = 0;
    CHECK(cudaGetDevice(&device));
    const enum gemm_tile_variant v = gemm_variant(device);
    const uint16_t *const ap = (const uint16_t *)a.at;
    expect_refused(
        "gemm_tile refusal, more than 2^31 - 1 tiles of C",
        gemm_tile_f32(v, (float *)out.at, ap, ap, (int64_t)1 << 24, (int64_t)1 << 24, 64, 0), &out,
        0);
    CHECK(cudaFree(out.base));
    CHECK(cudaFree(a.base));
}

int main(void)
{
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        fprintf(stderr, "api_edges: no CUDA GPU: skipped\n");
        return 77;
    }
    captured(); /* first: each family's first call of the process */
    transposes();
    gemms();
    aess();
    histograms();
    reductions();
    overflows(); /* last */
    printf("api_edges: %s (%d failures)\n", failures ? "FAIL" : "ok", failures);
    return failures != 0;
}
