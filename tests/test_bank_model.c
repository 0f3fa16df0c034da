/* The bank model against every row of the H100 tables in docs/bank-rules.md
 * (this repository: sm_90, CUDA 13.0, counted with ncu) and against classic
 * worked examples of bank conflicts, each stated in full where it is tested.
 *
 * Public sources: NVIDIA, "CUDA C++ Programming Guide" (the compute-capability
 * sections on shared memory: 32 banks, broadcast, the 8-byte bank mode of 3.x,
 * the 16-bank half-warp rule of 1.x); NVIDIA, "Nsight Compute Kernel Profiling
 * Guide" (wavefronts); NVIDIA, "Parallel Thread Execution ISA" (ldmatrix);
 * NVIDIA CUTLASS, CuTe's include/cute/swizzle.hpp (Swizzle<B, M, S>). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/bank_model.h"
#include "common/swizzle.h"
#include "tests/unit.h"

#define ALL 0xffffffffu

/* Wavefronts of one warp whose lane l touches byte address base + l * stride. */
static int strided(const struct bf_bank_rules *r, struct bf_access a, uint32_t stride)
{
    uint32_t addr[BF_WARP];
    for (int l = 0; l < BF_WARP; ++l)
        addr[l] = (uint32_t)l * stride;
    struct bf_wavefronts w;
    if (bf_bank_wavefronts(r, a, addr, ALL, &w) != 0)
        return -1;
    return w.wavefronts;
}

/* Wavefronts when lane l touches address addr_of(l). */
static int lanes(const struct bf_bank_rules *r, struct bf_access a, uint32_t (*addr_of)(int),
                 struct bf_wavefronts *w)
{
    uint32_t addr[BF_WARP];
    for (int l = 0; l < BF_WARP; ++l)
        addr[l] = addr_of(l);
    return bf_bank_wavefronts(r, a, addr, ALL, w);
}

static uint32_t same_word(int l)
{
    (void)l;
    return 16;
}
static uint32_t pairs_share_word(int l)
{
    return (uint32_t)(l / 2) * 4;
}
static uint32_t half_warp_address(int l)
{
    return l < 16 ? 0 : 8;
}
static uint32_t quarter_warp_address(int l)
{
    return (uint32_t)(l / 8) * 16;
}
static uint32_t two_addresses(int l)
{
    return (uint32_t)(l % 2) * 4;
}
static uint32_t eight_addresses(int l)
{
    return (uint32_t)(l % 8) * 4;
}
/* ldmatrix.x4 over a 128-byte-row tile (PTX ISA: each lane gives the address of
 * one 16-byte row; lanes 8m..8m+7 give the rows of matrix m): lane l gives row
 * l % 8 of matrix l / 8, all in the same 16-byte column (naive) or in column
 * (c ^ row) (swizzled). */
static uint32_t ldmatrix_naive(int l)
{
    return (uint32_t)(8 * (l / 8) + l % 8) * 128;
}
static uint32_t ldmatrix_swizzled(int l)
{
    uint32_t row = (uint32_t)(8 * (l / 8) + l % 8);
    return row * 128 + ((0u ^ row) % 8) * 16;
}

static void expect_wavefronts(struct bf_access a, uint32_t (*addr_of)(int), int want,
                              const char *what)
{
    struct bf_wavefronts w;
    EXPECT(lanes(&bf_rules_sm90, a, addr_of, &w) == 0, "%s: rejected", what);
    EXPECT_EQ(w.wavefronts, want, what);
}

/* docs/bank-rules.md, "Measured on H100": every row of both tables. */
static void test_h100_loads(void)
{
    const struct bf_bank_rules *h = &bf_rules_sm90;
    EXPECT_EQ(strided(h, bf_ld(4), 4), 1, "ld 4B stride 1 word");
    EXPECT_EQ(strided(h, bf_ld(4), 8), 2, "ld 4B stride 2 words");
    EXPECT_EQ(strided(h, bf_ld(4), 64), 16, "ld 4B stride 16 words");
    EXPECT_EQ(strided(h, bf_ld(4), 128), 32, "ld 4B stride 32 words");
    EXPECT_EQ(strided(h, bf_ld(4), 132), 1, "ld 4B stride 33 words");
    expect_wavefronts(bf_ld(4), same_word, 1, "ld 4B all lanes one word");
    expect_wavefronts(bf_ld(4), pairs_share_word, 1, "ld 4B pairs of lanes one word");

    EXPECT_EQ(strided(h, bf_ld(1), 1), 1, "ld 1B consecutive");
    EXPECT_EQ(strided(h, bf_ld(1), 2), 1, "ld 1B stride 2 B");
    EXPECT_EQ(strided(h, bf_ld(1), 4), 1, "ld 1B stride 4 B");
    EXPECT_EQ(strided(h, bf_ld(1), 128), 32, "ld 1B stride 128 B");

    EXPECT_EQ(strided(h, bf_ld(8), 8), 2, "ld 8B contiguous");
    EXPECT_EQ(strided(h, bf_ld(8), 16), 4, "ld 8B stride 16 B");
    EXPECT_EQ(strided(h, bf_ld(8), 128), 32, "ld 8B stride 128 B");
    expect_wavefronts(bf_ld(8), same_word, 1, "ld 8B all lanes one address");
    expect_wavefronts(bf_ld(8), half_warp_address, 1, "ld 8B each half-warp its own address");

    EXPECT_EQ(strided(h, bf_ld(16), 16), 4, "ld 16B contiguous");
    EXPECT_EQ(strided(h, bf_ld(16), 32), 8, "ld 16B stride 32 B");
    EXPECT_EQ(strided(h, bf_ld(16), 128), 32, "ld 16B stride 128 B");
    EXPECT_EQ(strided(h, bf_ld(16), 0), 2, "ld 16B all lanes one address");
    expect_wavefronts(bf_ld(16), quarter_warp_address, 2,
                      "ld 16B 4 quarter-warps, 4 adjacent addresses");

    expect_wavefronts(bf_ldmatrix(4), ldmatrix_naive, 32, "ldmatrix.x4 naive tile");
    expect_wavefronts(bf_ldmatrix(4), ldmatrix_swizzled, 4, "ldmatrix.x4 swizzled tile");
}

static void test_h100_stores_and_reductions(void)
{
    const struct bf_bank_rules *h = &bf_rules_sm90;
    EXPECT_EQ(strided(h, bf_st(4), 4), 1, "st 4B stride 1");
    EXPECT_EQ(strided(h, bf_st(4), 8), 2, "st 4B stride 2");
    EXPECT_EQ(strided(h, bf_st(4), 128), 32, "st 4B stride 32");
    EXPECT_EQ(strided(h, bf_st(4), 132), 1, "st 4B stride 33");
    EXPECT_EQ(strided(h, bf_st(4), 0), 1, "st 4B all lanes one word");
    EXPECT_EQ(strided(h, bf_st(1), 1), 1, "st 1B consecutive");
    EXPECT_EQ(strided(h, bf_st(1), 128), 32, "st 1B stride 128 B");
    EXPECT_EQ(strided(h, bf_st(8), 8), 2, "st 8B contiguous");
    EXPECT_EQ(strided(h, bf_st(8), 16), 4, "st 8B stride 16 B");
    EXPECT_EQ(strided(h, bf_st(8), 128), 32, "st 8B stride 128 B");
    /* 8-byte stores are served a half-warp at a time (loads a whole warp):
     * each half-warp its own address costs 2, and the GEMM epilogue's pairs
     * (rows l / 4, 32 bytes a row at the 128-byte swizzle's chunks 2j ^ row,
     * 2j + 1 ^ row) 4 where one part would give 2 (gemm_tile/probes/wgmma.cu;
     * hw.gemm_tile.wgmma_*). */
    expect_wavefronts(bf_st(8), half_warp_address, 2, "st 8B each half-warp its own address");
    uint32_t pairs[BF_WARP];
    for (int l = 0; l < BF_WARP; ++l)
        pairs[l] = 128u * (uint32_t)(l / 4) + 16u * ((uint32_t)(l % 4 / 2) ^ (uint32_t)(l / 4)) +
                   8u * (uint32_t)(l % 2);
    struct bf_wavefronts w;
    bf_bank_wavefronts(h, bf_st(8), pairs, ~0u, &w);
    EXPECT(w.wavefronts == 4 && w.ideal == 2, "st 8B swizzled pairs: %d of %d", w.wavefronts,
           w.ideal);
    EXPECT_EQ(strided(h, bf_st(16), 16), 4, "st 16B contiguous");
    EXPECT_EQ(strided(h, bf_st(16), 32), 8, "st 16B stride 32 B");
    EXPECT_EQ(strided(h, bf_st(16), 128), 32, "st 16B stride 128 B");
    EXPECT_EQ(strided(h, bf_st(16), 0), 4, "st 16B all lanes one address");
    /* cp.async's shared write: served as a store of its width (not yet probed) */
    EXPECT_EQ(strided(h, bf_cp_async(16), 16), 4, "cp.async 16B contiguous");
    EXPECT_EQ(strided(h, bf_cp_async(16), 128), 32, "cp.async 16B stride 128 B");
    EXPECT_EQ(strided(h, bf_cp_async(4), 4), 1, "cp.async 4B contiguous");

    EXPECT_EQ(strided(h, bf_red(4), 4), 1, "red.u32 stride 1");
    EXPECT_EQ(strided(h, bf_red(4), 8), 2, "red.u32 stride 2");
    EXPECT_EQ(strided(h, bf_red(4), 132), 1, "red.u32 stride 33");
    EXPECT_EQ(strided(h, bf_red(4), 128), 32, "red.u32 32 addresses in one bank");
    EXPECT_EQ(strided(h, bf_red(4), 0), 1, "red.u32 all lanes one address");
    expect_wavefronts(bf_red(4), two_addresses, 1, "red.u32 2 addresses shared by many lanes");
    expect_wavefronts(bf_red(4), eight_addresses, 1, "red.u32 8 addresses shared by many lanes");
}

/* Ideal is the fewest wavefronts the touched words could take, so "ways" is
 * wavefronts / ideal and conflict-free means the two are equal. */
static void test_ideal(void)
{
    const struct bf_bank_rules *h = &bf_rules_sm90;
    uint32_t addr[BF_WARP];
    struct bf_wavefronts w;
    for (int l = 0; l < BF_WARP; ++l)
        addr[l] = (uint32_t)l * 16;
    bf_bank_wavefronts(h, bf_st(16), addr, ALL, &w);
    EXPECT(w.wavefronts == 4 && w.ideal == 4, "st 16B contiguous is ideal: %d/%d", w.wavefronts,
           w.ideal);
    for (int l = 0; l < BF_WARP; ++l)
        addr[l] = (uint32_t)l * 8;
    bf_bank_wavefronts(h, bf_ld(4), addr, ALL, &w);
    EXPECT(w.wavefronts == 2 && w.ideal == 1, "ld 4B stride 2 is 2-way: %d/%d", w.wavefronts,
           w.ideal);
    /* Inactive lanes take no part; a warp with none active issues nothing. */
    for (int l = 0; l < BF_WARP; ++l)
        addr[l] = (uint32_t)l * 128;
    bf_bank_wavefronts(h, bf_ld(4), addr, 0x0000000fu, &w);
    EXPECT_EQ(w.wavefronts, 4, "4 active lanes in one bank");
    bf_bank_wavefronts(h, bf_ld(4), addr, 0, &w);
    EXPECT_EQ(w.wavefronts, 0, "no active lane");
    /* Accesses the hardware does not have are refused. */
    addr[0] = 2;
    EXPECT(bf_bank_wavefronts(h, bf_ld(4), addr, ALL, &w) != 0, "unaligned 4B access refused");
    EXPECT(bf_bank_wavefronts(h, bf_ld(3), addr, ALL, &w) != 0, "3-byte access refused");
    EXPECT(bf_bank_wavefronts(h, bf_ldmatrix(3), addr, ALL, &w) != 0, "ldmatrix.x3 refused");
}

/* The column-written tile: __shared__ float data[32][32], one block of 1024
 * threads, row = tid % 32, col = tid / 32, data[row][col] = 100.f. Each warp
 * writes one column, all 32 lanes in bank col: 32 wavefronts, 31 conflicts a
 * warp; over 32 warps 992 = 31 * 32 conflicts, what a profiler counting
 * wavefronts beyond the ideal reports for the block (nvprof's
 * shared_st_bank_conflict, ncu's l1tex__data_bank_conflicts_..._op_st).
 * Padded to data[32][33], a warp's column is one wavefront and there are no
 * conflicts. */
static void test_column_tile_32x32(void)
{
    uint64_t extra_naive = 0, extra_padded = 0;
    for (int warp = 0; warp < 32; ++warp) {
        uint32_t naive[BF_WARP], padded[BF_WARP];
        for (int l = 0; l < BF_WARP; ++l) {
            int tid = warp * 32 + l, row = tid % 32, col = tid / 32;
            naive[l] = (uint32_t)(row * 32 + col) * 4;
            padded[l] = (uint32_t)(row * 33 + col) * 4;
        }
        struct bf_wavefronts a, b;
        bf_bank_wavefronts(&bf_rules_sm90, bf_st(4), naive, ALL, &a);
        bf_bank_wavefronts(&bf_rules_sm90, bf_st(4), padded, ALL, &b);
        EXPECT_EQ(a.wavefronts, 32, "[32][32] written by column");
        EXPECT_EQ(b.wavefronts, 1, "[32][33] written by column");
        extra_naive += (uint64_t)(a.wavefronts - a.ideal);
        extra_padded += (uint64_t)(b.wavefronts - b.ideal);
    }
    EXPECT_EQ(extra_naive, 992, "[32][32]: conflicts over 32 warps");
    EXPECT_EQ(extra_padded, 0, "[32][33] has no conflicts");
}

/* Odd strides: lane t reading the row starts of float data[32][7] reads word
 * 7t, and 7t mod 32 is a permutation of 0..31 because gcd(7, 32) = 1. In
 * general a warp reading B[t * S + T] of a 4-byte array is conflict-free
 * exactly when S is odd (float A[16][17] read by column is stride 17). */
static void test_odd_strides(void)
{
    EXPECT_EQ(strided(&bf_rules_sm90, bf_ld(4), 7 * 4), 1, "[32][7] read at row starts");
    for (uint32_t s = 1; s < 64; ++s) {
        int w = strided(&bf_rules_sm90, bf_ld(4), s * 4);
        if (s % 2)
            EXPECT(w == 1, "odd stride %u: %d wavefronts", s, w);
        else
            EXPECT(w > 1, "even stride %u: %d wavefronts", s, w);
    }
}

/* Compute 1.x: 16 banks of 4 bytes, each half-warp served on its own (CUDA
 * Programming Guide, editions covering 1.x). With __shared__ int data[128]:
 * data[base + tid] is conflict-free, one wavefront per half-warp;
 * data[base + 4 * tid] puts lanes t and t + 4 in one bank, 4-way; data[16 * tid]
 * is 16-way; the fix writes data[row * 17 + column] (row = tid / 16,
 * column = tid % 16) and reads data[17 * tid]; data[3] read by every lane is one
 * broadcast per half-warp. */
static void test_half_warp_cc1x(void)
{
    const struct bf_bank_rules *old = &bf_rules_cc1x;
    uint32_t base = 64 * 4;
    uint32_t addr[BF_WARP];
    struct bf_wavefronts w;

    for (int l = 0; l < BF_WARP; ++l)
        addr[l] = base + (uint32_t)l * 4;
    bf_bank_wavefronts(old, bf_ld(4), addr, ALL, &w);
    EXPECT(w.wavefronts == 2 && w.ideal == 2, "data[base + tid]: %d/%d", w.wavefronts, w.ideal);

    for (int l = 0; l < BF_WARP; ++l)
        addr[l] = base + (uint32_t)(4 * l) * 4;
    bf_bank_wavefronts(old, bf_ld(4), addr, ALL, &w);
    EXPECT(w.wavefronts == 4 * w.ideal, "data[base + 4*tid] is 4-way: %d/%d", w.wavefronts,
           w.ideal);
    EXPECT_EQ(w.wavefronts, 8, "data[base + 4*tid]: 4 per half-warp");

    for (int l = 0; l < BF_WARP; ++l)
        addr[l] = (uint32_t)(16 * l) * 4;
    bf_bank_wavefronts(old, bf_ld(4), addr, ALL, &w);
    EXPECT(w.wavefronts == 16 * w.ideal, "data[16*tid] is 16-way: %d/%d", w.wavefronts, w.ideal);

    /* The fix: write data[row * 17 + column] (row = tid / 16), read data[17 * tid]. */
    for (int l = 0; l < BF_WARP; ++l)
        addr[l] = (uint32_t)((l / 16) * 17 + l % 16) * 4;
    bf_bank_wavefronts(old, bf_st(4), addr, ALL, &w);
    EXPECT(w.wavefronts == w.ideal, "data[row*17 + column] store: %d/%d", w.wavefronts, w.ideal);
    for (int l = 0; l < BF_WARP; ++l)
        addr[l] = (uint32_t)(17 * l) * 4;
    bf_bank_wavefronts(old, bf_ld(4), addr, ALL, &w);
    EXPECT(w.wavefronts == w.ideal, "data[17*tid] read: %d/%d", w.wavefronts, w.ideal);

    for (int l = 0; l < BF_WARP; ++l)
        addr[l] = 3 * 4;
    bf_bank_wavefronts(old, bf_ld(4), addr, ALL, &w);
    EXPECT_EQ(w.wavefronts, 2, "data[3] read by all: one broadcast per half-warp");
    EXPECT_EQ(w.ideal, 2, "data[3] is ideal");
}

/* Four kernels counted in wavefronts: lanes on words 0..31 (1 wavefront);
 * every lane in bank 0, stride 32 words (32 wavefronts, 31 conflicts); lanes in
 * distinct, non-adjacent banks, here stride 33 words (1). And fp64: lanes on
 * consecutive 8-byte elements, 256 B, take 2 wavefronts with no conflict. */
static void test_four_kernels_and_fp64(void)
{
    const struct bf_bank_rules *h = &bf_rules_sm90;
    EXPECT_EQ(strided(h, bf_ld(4), 4), 1, "kernel 0: lanes on words 0..31");
    EXPECT_EQ(strided(h, bf_st(4), 128), 32, "kernel 1: every lane in bank 0");
    EXPECT_EQ(strided(h, bf_ld(4), 33 * 4), 1, "kernel 2: other banks, not adjacent");
    uint32_t addr[BF_WARP];
    struct bf_wavefronts w;
    for (int l = 0; l < BF_WARP; ++l)
        addr[l] = (uint32_t)l * 8;
    bf_bank_wavefronts(h, bf_ld(8), addr, ALL, &w);
    EXPECT(w.wavefronts == 2 && w.ideal == 2, "fp64 contiguous: two wavefronts, no conflict");
}

/* The 8-byte bank mode of compute 3.x (CUDA Programming Guide, compute
 * capability 3.x; set by cudaDeviceSetSharedMemConfig, which does nothing on
 * devices with a fixed bank size): 32 banks of 8 bytes, lanes on any parts of
 * one 8-byte word do not conflict. */
static void test_kepler_8byte_banks(void)
{
    const struct bf_bank_rules *k = &bf_rules_kepler8;
    EXPECT_EQ(strided(k, bf_ld(8), 8), 1, "fp64 contiguous in one wavefront");
    EXPECT_EQ(strided(k, bf_ld(4), 4), 1, "fp32 contiguous");
    EXPECT_EQ(strided(k, bf_ld(4), 8), 1, "fp32 stride 2: 32 distinct 8-byte words");
    EXPECT_EQ(strided(&bf_rules_sm90, bf_ld(4), 8), 2, "the same in 4-byte banks is 2-way");
    EXPECT_EQ(strided(k, bf_ld(4), 256), 32, "fp32 stride 64 words");
}

/* The XOR swizzle Swizzle<3, 0, 3> (CuTe, NVIDIA CUTLASS) on an 8x8 block:
 * column x of row y moves to x ^ y. Every row and every column is a
 * permutation: x1 ^ y == x2 ^ y only if x1 == x2, and likewise for columns. */
static const int xor_table_8x8[8][8] = {
    {0, 1, 2, 3, 4, 5, 6, 7}, {1, 0, 3, 2, 5, 4, 7, 6}, {2, 3, 0, 1, 6, 7, 4, 5},
    {3, 2, 1, 0, 7, 6, 5, 4}, {4, 5, 6, 7, 0, 1, 2, 3}, {5, 4, 7, 6, 1, 0, 3, 2},
    {6, 7, 4, 5, 2, 3, 0, 1}, {7, 6, 5, 4, 3, 2, 1, 0},
};

static void test_xor_swizzle(void)
{
    for (int y = 0; y < 8; ++y)
        for (int x = 0; x < 8; ++x) {
            uint32_t p = bf_swizzle(3, 0, 3, (uint32_t)(y * 8 + x));
            EXPECT(p / 8 == (uint32_t)y, "swizzle keeps row %d", y);
            EXPECT((int)(p % 8) == xor_table_8x8[y][x], "table[%d][%d]", y, x);
        }
    for (int i = 0; i < 8; ++i) {
        unsigned row_seen = 0, col_seen = 0;
        for (int j = 0; j < 8; ++j) {
            row_seen |= 1u << (bf_swizzle(3, 0, 3, (uint32_t)(i * 8 + j)) % 8);
            col_seen |= 1u << (bf_swizzle(3, 0, 3, (uint32_t)(j * 8 + i)) % 8);
        }
        EXPECT(row_seen == 0xffu, "row %d has no repeated physical column", i);
        EXPECT(col_seen == 0xffu, "column %d has no repeated physical column", i);
    }
    /* The 16-byte chunk swizzle used for TMA's 128-byte swizzle, on fp16 rows of
     * 128 B (nx = 64 elements): element (x, y) is in chunk i16 = (y * nx + x) *
     * 2 / 16, chunk row y16 = i16 / 8, chunk column x16 = i16 % 8; the chunk
     * moves to column y16 ^ x16, the element to ((y16 ^ x16) * 16 / 2) % nx +
     * x % (16 / 2). That equals Swizzle<3,4,3> on byte offsets. */
    const int nx = 64, elem = 2;
    for (int y = 0; y < 16; ++y)
        for (int x = 0; x < nx; ++x) {
            int i16 = (y * nx + x) * elem / 16, y16 = i16 / 8, x16 = i16 % 8;
            int swz_x = ((y16 ^ x16) * 16 / elem) % nx + x % (16 / elem);
            uint32_t byte = bf_swizzle(3, 4, 3, (uint32_t)((y * nx + x) * elem));
            EXPECT(byte == (uint32_t)((y * nx + swz_x) * elem), "TMA swizzle (%d,%d)", x, y);
        }
}

/* A launch's verdict keeps its loads (ld, ldmatrix), its stores (st, cp.async)
 * and its shared atomics (red) apart: a conflict in one does not leak into
 * another. */
/* A site as if requests had been added: its counts. */
static struct bf_site counted(const char *name, struct bf_access access, uint64_t requests,
                              uint64_t wavefronts, uint64_t ideal, int worst)
{
    struct bf_site s = bf_site_new(name, access);
    s.requests = requests;
    s.wavefronts = wavefronts;
    s.ideal = ideal;
    s.worst = worst;
    return s;
}

/* A site keeps the first request that took its worst count, for pictures;
 * merging keeps the worse site's. */
static void test_worst_request(void)
{
    uint32_t row[BF_WARP], column[BF_WARP];
    for (int lane = 0; lane < BF_WARP; ++lane) {
        row[lane] = 4u * (uint32_t)lane;           /* 32 banks: 1 wavefront */
        column[lane] = 128u * (uint32_t)lane + 4u; /* bank 1 for all: 32 */
    }
    struct bf_site s = bf_site_new("s", bf_ld(4));
    EXPECT(s.worst_active == 0, "no request yet: no worst request");
    bf_site_add(&s, &bf_rules_sm90, row, ~0u);
    EXPECT(s.worst_active == ~0u && s.worst_addr[5] == 20, "the first request is the worst so far");
    bf_site_add(&s, &bf_rules_sm90, column, 0xffu);
    bf_site_add(&s, &bf_rules_sm90, row, ~0u);
    EXPECT(s.worst == 8 && s.worst_active == 0xffu && s.worst_addr[5] == 644,
           "the 8-way request is kept: worst %d, lanes %#x, lane 5 at %u", s.worst, s.worst_active,
           s.worst_addr[5]);
    struct bf_site w = bf_site_new("w", bf_ld(4)), m = bf_site_new("m", bf_ld(4));
    uint32_t words[BF_WARP];
    for (int lane = 0; lane < BF_WARP; ++lane)
        words[lane] = 32u * (uint32_t)lane; /* one bank, 32 words */
    bf_site_add_words(&w, &bf_rules_sm90, words, ~0u);
    EXPECT(w.worst == 32 && w.worst_addr[3] == 384, "words: the worst request's byte addresses");
    bf_site_merge(&m, &s, 2);
    bf_site_merge(&m, &w, 1);
    EXPECT(m.worst == 32 && m.worst_addr[3] == 384 && m.worst_active == ~0u,
           "a merge keeps the worse site's request");
}

static void test_sites_ways(void)
{
    struct bf_site sites[] = {
        counted("ld", bf_ld(4), 1, 1, 1, 1), counted("ldmatrix", bf_ldmatrix(4), 1, 12, 4, 3),
        counted("st", bf_st(4), 2, 4, 2, 2), counted("red", bf_red(4), 4, 128, 4, 32),
        bf_site_new("no request", bf_st(4)), counted("cp.async", bf_cp_async(16), 1, 8, 4, 8),
    };
    struct bf_launch_ways w = bf_sites_ways(sites, 6);
    EXPECT(w.ld == 13.0 / 5.0 && w.st == 2.0 && w.atom == 32.0 && w.ldc == 0,
           "ld %g (13/5), st %g (12/6), red %g (32), ldc %g (0)", w.ld, w.st, w.atom, w.ldc);
    EXPECT(strcmp(bf_op_name(BF_CP_ASYNC), "ldgsts") == 0 &&
               strcmp(bf_op_name(BF_LDMATRIX), "ldmatrix") == 0,
           "op names: ncu's for cp.async");
    w = bf_sites_ways(sites, 2);
    EXPECT(w.st == 0 && w.atom == 0, "no stores, no atomics: 0 and 0, got %g and %g", w.st, w.atom);
    w = bf_sites_ways(sites, 0);
    EXPECT(w.ld == 0 && w.st == 0 && w.atom == 0 && w.ldc == 0, "no sites: all 0");
    EXPECT(bf_rules_sm90.sms == 132, "sm90 replays an H100 SXM: 132 SMs");
}

/* ldc: the constant cache serves one distinct address at a time, whatever
 * the banks; a broadcast is ideal. Not shared memory in a launch's verdict. */
static void test_constant_cache(void)
{
    uint32_t addr[BF_WARP];
    struct bf_wavefronts w;
    for (int l = 0; l < BF_WARP; ++l)
        addr[l] = 128u * (uint32_t)(l / 2); /* 16 addresses, all in bank 0 */
    EXPECT(bf_bank_wavefronts(&bf_rules_sm90, bf_ldc(4), addr, ~0u, &w) == 0 &&
               w.wavefronts == 16 && w.ideal == 1,
           "16 distinct addresses: 16 requests, ideal 1; got %d/%d", w.wavefronts, w.ideal);
    EXPECT(bf_bank_wavefronts(&bf_rules_kepler8, bf_ldc(4), addr, 0x0000ffffu, &w) == 0 &&
               w.wavefronts == 8,
           "half the lanes: 8, whatever the rules; got %d", w.wavefronts);
    for (int l = 0; l < BF_WARP; ++l)
        addr[l] = 4u * (uint32_t)l; /* 32 banks, 32 addresses: no conflict in shared memory */
    EXPECT(bf_bank_wavefronts(&bf_rules_sm90, bf_ldc(4), addr, ~0u, &w) == 0 && w.wavefronts == 32,
           "32 consecutive words: 32 requests; got %d", w.wavefronts);
    EXPECT(bf_bank_wavefronts(&bf_rules_sm90, bf_ldc(4), addr, 0u, &w) == 0 && w.wavefronts == 0 &&
               w.ideal == 0,
           "no lane: nothing");
    addr[3] = 2;
    EXPECT(bf_bank_wavefronts(&bf_rules_sm90, bf_ldc(4), addr, ~0u, &w) == -1, "unaligned: -1");
    struct bf_site sites[] = {counted("ld", bf_ld(4), 1, 2, 1, 2),
                              counted("ldc", bf_ldc(4), 1, 30, 1, 30)};
    const struct bf_launch_ways ways = bf_sites_ways(sites, 2);
    EXPECT(ways.ld == 2.0 && ways.st == 0 && ways.atom == 0 && ways.ldc == 30.0,
           "ldc counts apart from the shared-memory ways: ld %g, ldc %g", ways.ld, ways.ldc);
    EXPECT(strcmp(bf_op_name(BF_LDC), "ldc") == 0, "op name ldc");
}

/* cp.async (LDGSTS): gemm_tile/probes/ldgsts.cu's patterns, ncu's SASS
 * wavefronts per instruction with CUDA 13.0: 0-18 on the H100 (and again on
 * the H200), 19-32 (zero fills) on the H200 (docs/bank-rules.md). Lane l is
 * row q = l / 8, chunk j = l % 8; a pattern's zero-filling lanes: none, all,
 * or rows q >= 1 (q >= 3 in pattern 22). Where a warp mixes copies with
 * zero fills, the model books the zero fills by the shared lines they
 * write, as the GEMM kernels cost them (hw at 37 x 4096 x 1024), not as
 * this one warp alone does (23, 27-32: `model`). */
static void test_ldgsts(void)
{
    enum { N = 33 };
    static const int measured[N] = {4, 4, 10, 11, 4, 10, 12, 12, 8, 4, 4,  32, 8,  6,  4,  8, 4,
                                    4, 5, 4,  4,  4, 4,  10, 4,  4, 4, 25, 25, 26, 25, 25, 26};
    int model[N];
    memcpy(model, measured, sizeof model);
    model[23] = 8;
    model[27] = model[28] = model[30] = model[31] = 4;
    model[29] = model[32] = 9;
    for (int p = 0; p < N; ++p) {
        uint64_t g[BF_WARP];
        uint32_t sh[BF_WARP], zero = 0;
        for (int l = 0; l < BF_WARP; ++l) {
            const uint32_t q = (uint32_t)l / 8, j = (uint32_t)l % 8, u = (uint32_t)l;
            const uint32_t row0 = q == 0 ? 16 * j : 0, /* row 0 its line, the rest 0 */
                row0_far = q == 0 ? 2048 + 16 * j : 0; /* row 0 in another line */
            const uint32_t table[N][2] = {
                {16 * u, 16 * u},                            /* contiguous, aligned */
                {128 * q + 16 * j, 2048 * q + 16 * j},       /* rowmajor tile */
                {144 * q + 16 * j, 2048 * q + 16 * j},       /* padded, rows 0-3 */
                {144 * (q + 4) + 16 * j, 2048 * q + 16 * j}, /* padded, rows 4-7 */
                {128 * q + 16 * (j ^ q), 2048 * q + 16 * j}, /* swizzled */
                {128 * q + 16 * j, 2000 * q + 16 * j},       /* global rows 2000 B apart */
                {16 * u, 16 * u + 16},                       /* global +16 */
                {16 * u + 16, 16 * u},                       /* shared +16 */
                {16 * u + 64, 16 * u},                       /* shared +64 */
                {16 * u, 16 * u},                            /* zero fill */
                {16 * u, 2000 * q + 16 * j},                 /* zero fill, global unaligned */
                {128 * u, 16 * u},                           /* 8 lanes a quarter in 4 banks */
                {128 * (u / 4) + 16 * (u % 4), 16 * u},      /* 2-way a quarter */
                {16 * u + 16, 16 * u + 16},                  /* both +16 */
                {128 * (3 - q) + 16 * j, 16 * u},            /* rows reversed */
                {128 * q + 16 * ((j + 1) % 8), 16 * u},      /* lines rotated by 1 */
                {128 * q + 16 * ((j + 2) % 8), 16 * u},      /* lines rotated by 2 */
                {128 * q + 16 * (j ^ 5), 16 * u},            /* lines XOR 5 */
                {128 * q + 16 * ((j + (q == 1 ? 3 : 0)) % 8), 16 * u}, /* line 1 by 3 */
                {144 * q + 16 * j, 2048 * q + 16 * j},                 /* padded 0-3, zero fill */
                {144 * (q + 4) + 16 * j, 2048 * q + 16 * j},           /* padded 4-7, zero fill */
                {128 * q + 16 * j, 2048 * q + 16 * j},                 /* rowmajor, rows 1-3 zero */
                {128 * q + 16 * j, 2048 * q + 16 * j},                 /* rowmajor, row 3 zero */
                {144 * q + 16 * j, 2048 * q + 16 * j}, /* padded 0-3, rows 1-3 zero */
                {128 * q + 16 * j, 0},                 /* zero fill from one address */
                {144 * q + 16 * j, 0},                 /* padded 0-3, the same */
                {144 * (q + 4) + 16 * j, 0},           /* padded 4-7, the same */
                {128 * q + 16 * j, row0},              /* rows 1-3 zero from row 0's line */
                {128 * q + 16 * (j ^ (q + 4)), row0},  /* swizzled rows 4-7, the same */
                {144 * (q + 4) + 16 * j, row0},        /* padded 4-7, the same */
                {128 * q + 16 * j, row0_far},          /* zeros' line another */
                {128 * q + 16 * (j ^ (q + 4)), row0_far},
                {144 * (q + 4) + 16 * j, row0_far},
            };
            sh[l] = table[p][0];
            g[l] = table[p][1];
            const int zero_rows = p == 9 || p == 10 || (p >= 19 && p <= 20) || (p >= 24 && p <= 26)
                                      ? 1
                                  : p == 22 ? q >= 3
                                  : p >= 21 ? q >= 1
                                            : 0;
            zero |= (uint32_t)zero_rows << l;
        }
        struct bf_wavefronts w;
        EXPECT(bf_ldgsts_wavefronts(g, sh, ~0u, zero, &w) == 0 && w.wavefronts == model[p] &&
                   w.ideal == 4,
               "ldgsts pattern %d: model %d, want %d (measured %d, ideal %d)", p, w.wavefronts,
               model[p], measured[p], w.ideal);
    }
    uint64_t g[BF_WARP] = {0};
    uint32_t sh[BF_WARP] = {0};
    struct bf_wavefronts w;
    sh[0] = 8;
    EXPECT(bf_ldgsts_wavefronts(g, sh, 1u, 0u, &w) == -1, "ldgsts: unaligned shared address");
    EXPECT(bf_ldgsts_wavefronts(g, sh, 0u, 0u, &w) == 0 && w.wavefronts == 0 && w.ideal == 0,
           "ldgsts: no lane, nothing");
}

/* bf_site_add_words counts what bf_site_add counts (shared atomics and ldc),
 * under every rule set, for words drawn from few or many banks, lanes idle or
 * not, and words past its stamps (the general count then);
 * bf_most_words_per_bank with one bank counts distinct words. */
static void test_site_add_words(void)
{
    const struct bf_bank_rules *rules[] = {&bf_rules_sm90, &bf_rules_cc1x, &bf_rules_kepler8};
    const uint32_t spans[] = {8, 256, 32768, 1u << 20}; /* the last past the stamps */
    uint64_t x = 12345;
    int bad = 0;
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 4; ++k)
            for (int n = 0; n < 2000; ++n) {
                uint32_t word[BF_WARP], active = n % 3 ? ~0u : 0u;
                for (int l = 0; l < BF_WARP; ++l) {
                    x = x * 6364136223846793005ull + 1442695040888963407ull; /* an LCG */
                    word[l] = (uint32_t)(x >> 33) % spans[k];
                    if (n % 3 == 0)
                        active |= (uint32_t)(x >> 20 & 1u) << l;
                }
                uint32_t addr[BF_WARP];
                for (int l = 0; l < BF_WARP; ++l)
                    addr[l] = 4u * word[l];
                for (int op = 0; op < 2; ++op) { /* a shared atomic; a constant-cache load */
                    struct bf_site a = bf_site_new("a", op ? bf_ldc(4) : bf_red(4)), b = a;
                    bf_site_add(&a, rules[r], addr, active);
                    bf_site_add_words(&b, rules[r], word, active);
                    bad += a.requests != b.requests || a.wavefronts != b.wavefronts ||
                           a.ideal != b.ideal || a.worst != b.worst;
                }
            }
    EXPECT(bad == 0, "bf_site_add_words and bf_site_add disagree on %d requests", bad);
    const uint32_t same[BF_WARP] = {0}, big[BF_WARP] = {1u << 16};
    uint32_t pairs[BF_WARP];
    for (int l = 0; l < BF_WARP; ++l)
        pairs[l] = (uint32_t)l / 2u;
    EXPECT_EQ(bf_most_words_per_bank(same, ~0u, 1), 1, "one word");
    EXPECT_EQ(bf_most_words_per_bank(pairs, ~0u, 1), 16, "16 distinct words");
    EXPECT_EQ(bf_most_words_per_bank(pairs, 0u, 1), 0, "no lane active");
    EXPECT_EQ(bf_most_words_per_bank(big, 1u, 32), -1, "a word past the stamps");
    EXPECT_EQ(bf_most_words_per_bank(same, ~0u, 24), -1, "24 banks: not a power of two");
}

int main(void)
{
    test_h100_loads();
    test_h100_stores_and_reductions();
    test_ideal();
    test_column_tile_32x32();
    test_odd_strides();
    test_half_warp_cc1x();
    test_four_kernels_and_fp64();
    test_kepler_8byte_banks();
    test_xor_swizzle();
    test_sites_ways();
    test_worst_request();
    test_constant_cache();
    test_ldgsts();
    test_site_add_words();
    return unit_finish("bank model");
}
