/* The gemm_tile family on the CPU: the layouts (each a one-to-one map of a
 * tile's chunks, the swizzle as the issue defines it), the lanes' cp.async
 * and ldmatrix addresses (every chunk once, the fragments mma.m16n8k16
 * wants), the bank model's wavefronts a request and a launch, the
 * reference (fp16 conversions, a hand-checked product), and the kernel's
 * data path emulated on the CPU with the instructions' PTX definitions. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/bank_model.h"
#include "gemm_tile/gemm_tile_layout.h"
#include "gemm_tile/gemm_tile_model.h"
#include "gemm_tile/gemm_tile_ref.h"
#include "tests/unit.h"

static const char *const names[GEMM_TILE_VARIANTS] = {"rowmajor", "padded", "swizzled"};

/* Each (row, chunk) of a tile has its own 16-byte slot inside the tile; the
 * row-major and swizzled tiles fill their 16 KiB exactly, the padded one
 * leaves the last 16 B of each 144-byte row free. */
static void test_layouts(void)
{
    for (int v = 0; v < GEMM_TILE_VARIANTS; ++v) {
        const enum gemm_tile_variant var = (enum gemm_tile_variant)v;
        const uint32_t bytes = gemm_tile_a_bytes(var);
        static unsigned char seen[GEMM_TILE_BM * 144 / 16];
        memset(seen, 0, sizeof seen);
        int bad = 0;
        for (int r = 0; r < GEMM_TILE_BM; ++r)
            for (int c = 0; c < GEMM_TILE_CHUNKS; ++c) {
                const uint32_t off = gemm_tile_chunk_offset(var, r, c);
                const uint32_t row_start = r * gemm_tile_row_bytes(var);
                if (off % 16 != 0 || off + 16 > bytes || off < row_start ||
                    off + 16 > row_start + 128 || seen[off / 16]++)
                    ++bad;
            }
        EXPECT(bad == 0, "%s: %d chunks out of their row, unaligned or shared", names[v], bad);
        EXPECT_EQ(bytes, GEMM_TILE_BM * (v == GEMM_TILE_PADDED ? 144 : 128), "A tile bytes");
        EXPECT_EQ(gemm_tile_b_bytes(var), GEMM_TILE_BN * (v == GEMM_TILE_PADDED ? 144 : 128),
                  "B tile bytes");
        EXPECT_EQ(gemm_tile_smem_bytes(var), GEMM_TILE_STAGES * (bytes + gemm_tile_b_bytes(var)),
                  "pipeline bytes");
        EXPECT(gemm_tile_b_base(var, 1) - gemm_tile_a_base(var, 1) == bytes &&
                   gemm_tile_a_base(var, 2) == 2 * gemm_tile_stage_bytes(var),
               "%s: stages are A then B, one after another", names[v]);
        EXPECT(gemm_tile_stage_bytes(var) % 128 == 0,
               "%s: every stage starts on the same bank (the model's one block stands for all)",
               names[v]);
    }
    /* The definition, and CuTe's Swizzle<3,3,3> on fp16 offsets written out. */
    int bad = 0, bad_cute = 0;
    for (int r = 0; r < GEMM_TILE_BM; ++r)
        for (int c = 0; c < GEMM_TILE_CHUNKS; ++c) {
            const uint32_t got = gemm_tile_chunk_offset(GEMM_TILE_SWIZZLED, r, c);
            bad += got != 128u * (uint32_t)r + 16u * (uint32_t)(c ^ (r % 8));
            for (int e = 0; e < 8; ++e) { /* every fp16 of the chunk moves with it */
                const uint32_t off = (uint32_t)(r * 64 + c * 8 + e);
                const uint32_t cute = off ^ ((off >> 6 & 7u) << 3);
                bad_cute += 2u * cute != got + 2u * (uint32_t)e;
            }
        }
    EXPECT_EQ(bad, 0, "swizzled: chunks not at 128 r + 16 (c ^ r % 8)");
    EXPECT_EQ(bad_cute, 0, "swizzled: fp16 elements not where Swizzle<3,3,3> puts them");
    EXPECT_EQ(gemm_tile_chunk_offset(GEMM_TILE_ROWMAJOR, 5, 3), 5 * 128 + 48, "rowmajor (5, 3)");
    EXPECT_EQ(gemm_tile_chunk_offset(GEMM_TILE_PADDED, 5, 3), 5 * 144 + 48, "padded (5, 3)");
    EXPECT_EQ(gemm_tile_chunk_offset(GEMM_TILE_SWIZZLED, 13, 2), 13 * 128 + 16 * 7,
              "swizzled (13, 2): 2 ^ 5 = 7");
}

/* The block's cp.async copies write every chunk of a tile (A: BM rows, B:
 * BN rows) once, and the 8 lanes of each quarter-warp one whole row. */
static void test_copies(void)
{
    enum { ROWS = GEMM_TILE_BM > GEMM_TILE_BN ? GEMM_TILE_BM : GEMM_TILE_BN };
    const int copies[2] = {GEMM_TILE_COPIES_A, GEMM_TILE_COPIES_B};
    const int rows[2] = {GEMM_TILE_BM, GEMM_TILE_BN};
    for (int tile = 0; tile < 2; ++tile) {
        static int count[ROWS][GEMM_TILE_CHUNKS];
        memset(count, 0, sizeof count);
        int rows_whole = 1, outside = 0;
        for (int t = 0; t < GEMM_TILE_THREADS; ++t)
            for (int i = 0; i < copies[tile]; ++i) {
                const int r = gemm_tile_copy_row(t, i);
                if (r >= rows[tile]) {
                    ++outside;
                    continue;
                }
                count[r][gemm_tile_copy_chunk(t, i)]++;
                rows_whole &=
                    r == gemm_tile_copy_row(t - t % 8, i) && gemm_tile_copy_chunk(t, i) == t % 8;
            }
        int bad = outside;
        for (int r = 0; r < rows[tile]; ++r)
            for (int c = 0; c < GEMM_TILE_CHUNKS; ++c)
                bad += count[r][c] != 1;
        EXPECT(bad == 0, "%s tile: %d chunks not copied exactly once", tile ? "B" : "A", bad);
        EXPECT(rows_whole, "a quarter-warp copies one row, lane j chunk j");
    }
}

/* The kernel's shortcuts are the layout's functions: ldmatrix addresses
 * stepped from k16 step 0 (an XOR in the swizzled tile), copies strided from
 * copy 0 (32 rows keep the swizzle's row % 8). */
static void test_kernel_shortcuts(void)
{
    int bad_step = 0, bad_copy = 0;
    for (int v = 0; v < GEMM_TILE_VARIANTS; ++v) {
        const enum gemm_tile_variant var = (enum gemm_tile_variant)v;
        for (int warp = 0; warp < GEMM_TILE_THREADS / 32; ++warp)
            for (int lane = 0; lane < 32; ++lane)
                for (int kk = 0; kk < GEMM_TILE_KK; ++kk) {
                    const uint32_t a_at = gemm_tile_ldmatrix_step(
                                       var, gemm_tile_ldmatrix_a(var, warp, 0, 0, lane), kk),
                                   b_at = gemm_tile_ldmatrix_step(
                                       var, gemm_tile_ldmatrix_b(var, warp, 0, 0, lane), kk),
                                   tile = gemm_tile_ldmatrix_tile_stride(var);
                    for (int mi = 0; mi < GEMM_TILE_MI; ++mi)
                        bad_step += a_at + (uint32_t)mi * tile !=
                                    gemm_tile_ldmatrix_a(var, warp, mi, kk, lane);
                    for (int nj = 0; nj < GEMM_TILE_NJ; ++nj)
                        bad_step += b_at + (uint32_t)nj * tile !=
                                    gemm_tile_ldmatrix_b(var, warp, nj, kk, lane);
                }
        for (int t = 0; t < GEMM_TILE_THREADS; ++t)
            for (int i = 0; i < GEMM_TILE_COPIES_B || i < GEMM_TILE_COPIES_A; ++i)
                bad_copy += gemm_tile_copy_offset(var, t, i) !=
                                gemm_tile_copy_offset(var, t, 0) +
                                    (uint32_t)i * gemm_tile_copy_stride(var) ||
                            gemm_tile_copy_row(t, i) !=
                                gemm_tile_copy_row(t, 0) + GEMM_TILE_COPY_ROWS * i ||
                            gemm_tile_copy_chunk(t, i) != gemm_tile_copy_chunk(t, 0);
    }
    EXPECT_EQ(bad_step, 0, "ldmatrix addresses stepped from tile 0's at step 0");
    EXPECT_EQ(bad_copy, 0, "copies strided from copy 0");
}

/* ldmatrix: lane l of matrix q = l / 8 gives row l % 8 of that 8x8 matrix;
 * for A the matrices are (rows 0-7, k 0-7), (8-15, 0-7), (0-7, 8-15),
 * (8-15, 8-15) of the m16 x k16 block; for B (n 0-7, k 0-7), (0-7, 8-15),
 * (8-15, 0-7), (8-15, 8-15) of the n16 x k16 block (PTX ISA, mma.m16n8k16
 * fragments). Over a stage, each warp reads each of its rows' chunks once. */
static void test_ldmatrix_lanes(void)
{
    for (int v = 0; v < GEMM_TILE_VARIANTS; ++v) {
        const enum gemm_tile_variant var = (enum gemm_tile_variant)v;
        int bad_a = 0, bad_b = 0, cover_a = 0, cover_b = 0;
        for (int warp = 0; warp < GEMM_TILE_THREADS / 32; ++warp) {
            static int ca[GEMM_TILE_BM][GEMM_TILE_CHUNKS], cb[GEMM_TILE_BN][GEMM_TILE_CHUNKS];
            memset(ca, 0, sizeof ca);
            memset(cb, 0, sizeof cb);
            for (int kk = 0; kk < GEMM_TILE_KK; ++kk)
                for (int lane = 0; lane < 32; ++lane) {
                    const int q = lane / 8, i = lane % 8;
                    for (int mi = 0; mi < GEMM_TILE_MI; ++mi) {
                        const int row =
                            gemm_tile_warp_m(warp) * GEMM_TILE_WARP_M + mi * 16 + 8 * (q % 2) + i;
                        const int chunk = 2 * kk + q / 2;
                        bad_a += gemm_tile_ldmatrix_a(var, warp, mi, kk, lane) !=
                                 gemm_tile_chunk_offset(var, row, chunk);
                        ca[row][chunk]++;
                    }
                    for (int nj = 0; nj < GEMM_TILE_NJ; ++nj) {
                        const int row =
                            gemm_tile_warp_n(warp) * GEMM_TILE_WARP_N + nj * 16 + 8 * (q / 2) + i;
                        const int chunk = 2 * kk + q % 2;
                        bad_b += gemm_tile_ldmatrix_b(var, warp, nj, kk, lane) !=
                                 gemm_tile_chunk_offset(var, row, chunk);
                        cb[row][chunk]++;
                    }
                }
            for (int c = 0; c < GEMM_TILE_CHUNKS; ++c) {
                for (int r = 0; r < GEMM_TILE_BM; ++r)
                    cover_a += ca[r][c] != (r / GEMM_TILE_WARP_M == gemm_tile_warp_m(warp));
                for (int r = 0; r < GEMM_TILE_BN; ++r)
                    cover_b += cb[r][c] != (r / GEMM_TILE_WARP_N == gemm_tile_warp_n(warp));
            }
        }
        EXPECT(bad_a == 0 && bad_b == 0, "%s: ldmatrix lanes not the mma fragments' rows (%d, %d)",
               names[v], bad_a, bad_b);
        EXPECT(cover_a == 0 && cover_b == 0,
               "%s: a warp does not read its rows' chunks once a stage (%d, %d)", names[v], cover_a,
               cover_b);
    }
}

/* One request of each kind, every warp, every k16 step, under sm_90's rules:
 * ldmatrix.x4 costs 8 wavefronts a matrix in the row-major tile (the 8 rows
 * of one 16-byte column share 4 banks), 1 in the others; a cp.async (op
 * ldgsts, served as a 16-byte store until probed: 4 quarter-warps) costs 4
 * in every variant. */
static void test_requests(void)
{
    static const int ldsm[GEMM_TILE_VARIANTS] = {32, 4, 4};
    for (int v = 0; v < GEMM_TILE_VARIANTS; ++v) {
        const enum gemm_tile_variant var = (enum gemm_tile_variant)v;
        int bad_a = 0, bad_b = 0, bad_copy = 0;
        uint32_t addr[32];
        struct bf_wavefronts w;
        for (int stage = 0; stage < GEMM_TILE_STAGES; ++stage)
            for (int warp = 0; warp < GEMM_TILE_THREADS / 32; ++warp) {
                for (int kk = 0; kk < GEMM_TILE_KK; ++kk) {
                    for (int mi = 0; mi < GEMM_TILE_MI; ++mi) {
                        for (int l = 0; l < 32; ++l)
                            addr[l] = gemm_tile_a_base(var, stage) +
                                      gemm_tile_ldmatrix_a(var, warp, mi, kk, l);
                        bf_bank_wavefronts(&bf_rules_sm90, bf_ldmatrix(4), addr, ~0u, &w);
                        bad_a += w.wavefronts != ldsm[v] || w.ideal != 4;
                    }
                    for (int nj = 0; nj < GEMM_TILE_NJ; ++nj) {
                        for (int l = 0; l < 32; ++l)
                            addr[l] = gemm_tile_b_base(var, stage) +
                                      gemm_tile_ldmatrix_b(var, warp, nj, kk, l);
                        bf_bank_wavefronts(&bf_rules_sm90, bf_ldmatrix(4), addr, ~0u, &w);
                        bad_b += w.wavefronts != ldsm[v] || w.ideal != 4;
                    }
                }
                for (int i = 0; i < GEMM_TILE_COPIES_B; ++i) {
                    for (int l = 0; l < 32; ++l)
                        addr[l] = gemm_tile_b_base(var, stage) +
                                  gemm_tile_copy_offset(var, warp * 32 + l, i);
                    bf_bank_wavefronts(&bf_rules_sm90, bf_cp_async(16), addr, ~0u, &w);
                    bad_copy += w.wavefronts != 4 || w.ideal != 4;
                }
            }
        EXPECT(bad_a == 0 && bad_b == 0 && bad_copy == 0,
               "%s: requests off the expected wavefronts: ldmatrix A %d, B %d, cp.async %d",
               names[v], bad_a, bad_b, bad_copy);
    }
    /* The same 8 rows of one column as an explicit example: 8 x 128 B apart. */
    uint32_t addr[32];
    struct bf_wavefronts w;
    for (int l = 0; l < 32; ++l)
        addr[l] = gemm_tile_chunk_offset(GEMM_TILE_ROWMAJOR, l % 8, 0);
    bf_bank_wavefronts(&bf_rules_sm90, bf_ldmatrix(1), addr, 0xffu, &w);
    EXPECT(w.wavefronts == 8 && w.ideal == 1, "rowmajor: one matrix of column 0 costs %d of %d",
           w.wavefronts, w.ideal);
}

/* A launch: every site's requests and wavefronts, and the verdict. 300 x 200
 * x 256: 3 x 2 blocks (edge rows and columns copy zeros), 4 K tiles, every
 * copy 16-byte chunks of aligned 128-byte global lines. rowmajor and swizzled
 * write each line into one whole shared row: 4 wavefronts a copy, the ideal;
 * padded's rows start 16 r bytes into a 128-byte line: 10 wavefronts for rows
 * 0-3 of 8, 11 for rows 4-7 (cp.async as the H100 serves it). With k = 200
 * the global rows are 400 bytes apart, misaligned: more than the ideal. */
static void test_launch(void)
{
    const int64_t blocks = ((300 + GEMM_TILE_BM - 1) / GEMM_TILE_BM) *
                           ((200 + GEMM_TILE_BN - 1) / GEMM_TILE_BN),
                  ktiles = 4, warps = GEMM_TILE_THREADS / 32;
    for (int v = 0; v < GEMM_TILE_VARIANTS; ++v) {
        struct bf_site s[BF_MAX_SITES];
        int n = gemm_tile_model_launch((enum gemm_tile_variant)v, 300, 200, 256, &bf_rules_sm90, s);
        EXPECT_EQ(n, GEMM_TILE_SITES, "sites");
        const uint64_t copies_a = (uint64_t)(blocks * ktiles * warps * GEMM_TILE_COPIES_A),
                       copies_b = (uint64_t)(blocks * ktiles * warps * GEMM_TILE_COPIES_B);
        const uint64_t ldsm_a = (uint64_t)(blocks * ktiles * warps * GEMM_TILE_KK * GEMM_TILE_MI);
        const uint64_t ldsm_b = (uint64_t)(blocks * ktiles * warps * GEMM_TILE_KK * GEMM_TILE_NJ);
        EXPECT(s[GEMM_TILE_SITE_COPY_A].requests == copies_a &&
                   s[GEMM_TILE_SITE_COPY_B].requests == copies_b,
               "%s: cp.async requests", names[v]);
        EXPECT(s[GEMM_TILE_SITE_LDSM_A].requests == ldsm_a &&
                   s[GEMM_TILE_SITE_LDSM_B].requests == ldsm_b,
               "%s: ldmatrix requests", names[v]);
        const uint64_t per = v == GEMM_TILE_ROWMAJOR ? 32 : 4;
        /* copies: twice the wavefronts of one copy; padded at most 21 (10 +
         * 11; its zero-filled edge rows group by shared line, fewer) */
        const uint64_t copy2 = v == GEMM_TILE_PADDED ? 21 : 8;
        const int padded = v == GEMM_TILE_PADDED;
        EXPECT(s[GEMM_TILE_SITE_LDSM_A].wavefronts == per * ldsm_a &&
                   s[GEMM_TILE_SITE_LDSM_A].ideal == 4 * ldsm_a &&
                   s[GEMM_TILE_SITE_LDSM_B].wavefronts == per * ldsm_b &&
                   (padded ? 2 * s[GEMM_TILE_SITE_COPY_A].wavefronts <= copy2 * copies_a &&
                                 s[GEMM_TILE_SITE_COPY_A].wavefronts > 4 * copies_a
                           : 2 * s[GEMM_TILE_SITE_COPY_A].wavefronts == copy2 * copies_a &&
                                 2 * s[GEMM_TILE_SITE_COPY_B].wavefronts == copy2 * copies_b) &&
                   s[GEMM_TILE_SITE_COPY_B].ideal == 4 * copies_b,
               "%s: wavefronts (cp.async A %llu for %llu copies)", names[v],
               (unsigned long long)s[GEMM_TILE_SITE_COPY_A].wavefronts,
               (unsigned long long)copies_a);
        const struct bf_launch_ways w = bf_sites_ways(s, n);
        EXPECT(w.ld == (v == GEMM_TILE_ROWMAJOR ? 8.0 : 1.0) &&
                   (padded ? w.st > 1.0 && w.st <= 21.0 / 8.0 : w.st == 1.0) && w.atom == 0.0,
               "%s: ways ld %.2f st %.2f", names[v], w.ld, w.st);
        gemm_tile_model_launch((enum gemm_tile_variant)v, 300, 200, 200, &bf_rules_sm90, s);
        EXPECT(s[GEMM_TILE_SITE_COPY_A].wavefronts > s[GEMM_TILE_SITE_COPY_A].ideal,
               "%s: k = 200, misaligned global rows: more than the ideal", names[v]);
    }
    struct bf_site s[BF_MAX_SITES];
    for (int k = 0; k < 17; k += 4) { /* refused: 0, 4, 12, 16 ok */
        gemm_tile_model_launch(GEMM_TILE_SWIZZLED, 8, 8, k, &bf_rules_sm90, s);
        uint64_t requests = 0;
        for (int i = 0; i < GEMM_TILE_SITES; ++i)
            requests += s[i].requests;
        EXPECT((requests == 0) == (k == 0 || k % 8 != 0), "k = %d: requests %llu", k,
               (unsigned long long)requests);
    }
    /* 1 x 1 x 8: one block, one K tile, every request still issued. */
    gemm_tile_model_launch(GEMM_TILE_ROWMAJOR, 1, 1, 8, &bf_rules_sm90, s);
    EXPECT_EQ(s[GEMM_TILE_SITE_LDSM_A].requests, warps * GEMM_TILE_KK * GEMM_TILE_MI,
              "1x1x8 ldmatrix A requests");
}

/* Half conversions: known patterns, ties to even, every pattern round-trips. */
static void test_half(void)
{
    EXPECT_EQ(gemm_tile_ref_half_bits(1.0), 0x3c00, "1");
    EXPECT_EQ(gemm_tile_ref_half_bits(-2.0), 0xc000, "-2");
    EXPECT_EQ(gemm_tile_ref_half_bits(65504.0), 0x7bff, "65504");
    EXPECT_EQ(gemm_tile_ref_half_bits(65520.0), 0x7c00, "65520 overflows");
    EXPECT_EQ(gemm_tile_ref_half_bits(ldexp(1, -24)), 0x0001, "2^-24");
    EXPECT_EQ(gemm_tile_ref_half_bits(ldexp(1, -26)), 0x0000, "2^-26 to 0");
    EXPECT_EQ(gemm_tile_ref_half_bits(0.1), 0x2e66, "0.1");
    EXPECT_EQ(gemm_tile_ref_half_bits(1.0 + ldexp(1, -11)), 0x3c00, "tie to even, down");
    EXPECT_EQ(gemm_tile_ref_half_bits(1.0 + 3 * ldexp(1, -11)), 0x3c02, "tie to even, up");
    EXPECT_EQ(gemm_tile_ref_half_bits(2047.5 / 1024 * ldexp(1, -14)), 0x0800,
              "round up across the subnormal edge");
    int bad = 0;
    for (uint32_t b = 0; b < 0x10000; ++b) {
        const double x = gemm_tile_ref_half_value((uint16_t)b);
        if (!isnan(x))
            bad += gemm_tile_ref_half_bits(x) != b;
    }
    EXPECT_EQ(bad, 0, "patterns that do not round-trip");
    int out = 0;
    for (uint64_t i = 0; i < 100000; ++i) {
        const double x = gemm_tile_ref_half_value(gemm_tile_ref_random_half(7, i));
        out += !(x > -1 && x < 1 && x != 0 && x * 2048 == floor(x * 2048));
    }
    EXPECT_EQ(out, 0, "random halves outside (-1, 1), zero or off the 2^-11 grid");
}

/* A = [1..8; 0.5 x 8], B's columns all 1, all 2, all -0.25: C = [36 72 -9; 4 8 -1]. */
static void test_reference(void)
{
    uint16_t a[16], b[24];
    for (int p = 0; p < 8; ++p) {
        a[p] = gemm_tile_ref_half_bits(p + 1);
        a[8 + p] = gemm_tile_ref_half_bits(0.5);
        b[p] = gemm_tile_ref_half_bits(1);
        b[8 + p] = gemm_tile_ref_half_bits(2);
        b[16 + p] = gemm_tile_ref_half_bits(-0.25);
    }
    double c[6];
    gemm_tile_ref(c, a, b, 2, 3, 8);
    const double want[6] = {36, 72, -9, 4, 8, -1};
    int bad = 0;
    for (int i = 0; i < 6; ++i)
        bad += c[i] != want[i];
    EXPECT_EQ(bad, 0, "hand-checked 2 x 3 x 8");
    const float got[6] = {36, 72, -9, 4, 8, -1.001f};
    const double err = gemm_tile_ref_rel_l2_f32(got, want, 6);
    EXPECT(fabs(err - 0.001 / sqrt(36 * 36 + 72 * 72 + 81 + 16 + 64 + 1)) < 1e-9,
           "relative L2 error %g", err);
    const float poisoned[2] = {1, NAN};
    EXPECT(isnan(gemm_tile_ref_rel_l2_f32(poisoned, want, 2)), "a NaN is never small");
    uint16_t h[6];
    for (int i = 0; i < 6; ++i)
        h[i] = gemm_tile_ref_half_bits(want[i]);
    EXPECT(gemm_tile_ref_rel_l2_f16(h, want, 6) == 0, "fp16 output exact");
}

/* ---- the kernel's data path, emulated on the CPU ---- */

/* What gemm_tile.cu does with the addresses, step by step, on the CPU, with
 * the instructions as the PTX ISA defines them: cp.async (16 bytes, zeros
 * past the edges), ldmatrix.x4 (thread t gets row t / 4, elements
 * 2 (t % 4) + 0, 1 of each matrix, lower column in the low half), mma.m16n8k16
 * (the fragment layouts of A, B and C, "Matrix Fragments for
 * mma.m16n8k16"), and the epilogue's stores. If an address function, the
 * fragment order or the epilogue were wrong, C would be. */
struct emulated {
    uint16_t *smem; /* the block's dynamic shared memory, as fp16 */
    const uint16_t *a, *b;
    int64_t m, n, k;
};

static float half_f(uint16_t h)
{
    return (float)gemm_tile_ref_half_value(h);
}

static void emu_load_ktile(struct emulated *e, enum gemm_tile_variant v, int64_t row0, int64_t col0,
                           int64_t kt, int stage)
{
    for (int t = 0; t < GEMM_TILE_THREADS; ++t) {
        for (int i = 0; i < GEMM_TILE_COPIES_A; ++i) {
            const int row = gemm_tile_copy_row(t, i);
            const int64_t kc = kt * GEMM_TILE_BK + 8 * gemm_tile_copy_chunk(t, i);
            const uint32_t off = gemm_tile_copy_offset(v, t, i);
            const int in = row0 + row < e->m && kc < e->k;
            for (int j = 0; j < 8; ++j)
                e->smem[(gemm_tile_a_base(v, stage) + off) / 2 + j] =
                    in ? e->a[(row0 + row) * e->k + kc + j] : 0;
        }
        for (int i = 0; i < GEMM_TILE_COPIES_B; ++i) {
            const int row = gemm_tile_copy_row(t, i);
            const int64_t kc = kt * GEMM_TILE_BK + 8 * gemm_tile_copy_chunk(t, i);
            const uint32_t off = gemm_tile_copy_offset(v, t, i);
            const int in = col0 + row < e->n && kc < e->k;
            for (int j = 0; j < 8; ++j)
                e->smem[(gemm_tile_b_base(v, stage) + off) / 2 + j] =
                    in ? e->b[(col0 + row) * e->k + kc + j] : 0;
        }
    }
}

/* reg[q][t]: the two fp16 thread t holds of matrix q (low, high). */
static void emu_ldmatrix_x4(const struct emulated *e, const uint32_t addr[32],
                            uint16_t reg[4][32][2])
{
    for (int q = 0; q < 4; ++q)
        for (int t = 0; t < 32; ++t)
            for (int h = 0; h < 2; ++h)
                reg[q][t][h] = e->smem[addr[8 * q + t / 4] / 2 + 2 * (t % 4) + h];
}

/* d += A * B for one warp: a[j][t] is A register j of thread t, b0/b1 B's. */
static void emu_mma(float d[32][4], uint16_t a[4][32][2], uint16_t b0[32][2], uint16_t b1[32][2])
{
    float am[16][16], bm[16][8];
    for (int t = 0; t < 32; ++t) {
        const int g = t / 4, tig = t % 4;
        for (int i = 0; i < 8; ++i) { /* a_i: register i / 2, half i % 2 */
            const int row = g + 8 * (i / 2 % 2), col = 2 * tig + i % 2 + 8 * (i / 4);
            am[row][col] = half_f(a[i / 2][t][i % 2]);
        }
        for (int i = 0; i < 4; ++i) { /* b_i: k = 2 tig + i % 2 (+ 8 for i >= 2), n = g */
            const uint16_t h = i < 2 ? b0[t][i % 2] : b1[t][i % 2];
            bm[2 * tig + i % 2 + 8 * (i / 2)][g] = half_f(h);
        }
    }
    for (int t = 0; t < 32; ++t)
        for (int i = 0; i < 4; ++i) { /* c_i: row g (+ 8 for i >= 2), column 2 tig + i % 2 */
            const int row = t / 4 + 8 * (i / 2), col = 2 * (t % 4) + i % 2;
            float sum = 0;
            for (int p = 0; p < 16; ++p)
                sum += am[row][p] * bm[p][col];
            d[t][i] += sum;
        }
}

static void emu_block(struct emulated *e, enum gemm_tile_variant v, int64_t by, int64_t bx,
                      float *c)
{
    const int64_t row0 = by * GEMM_TILE_BM, col0 = bx * GEMM_TILE_BN;
    static float acc[GEMM_TILE_THREADS / 32][GEMM_TILE_MI][2 * GEMM_TILE_NJ][32][4];
    memset(acc, 0, sizeof acc);
    for (int64_t kt = 0; kt < gemm_tile_tiles_k(e->k); ++kt) {
        const int stage = gemm_tile_stage_of(kt);
        emu_load_ktile(e, v, row0, col0, kt, stage);
        for (int warp = 0; warp < GEMM_TILE_THREADS / 32; ++warp)
            for (int kk = 0; kk < GEMM_TILE_KK; ++kk) {
                static uint16_t af[GEMM_TILE_MI][4][32][2], bf[GEMM_TILE_NJ][4][32][2];
                uint32_t addr[32];
                for (int mi = 0; mi < GEMM_TILE_MI; ++mi) {
                    for (int l = 0; l < 32; ++l)
                        addr[l] =
                            gemm_tile_a_base(v, stage) + gemm_tile_ldmatrix_a(v, warp, mi, kk, l);
                    emu_ldmatrix_x4(e, addr, af[mi]);
                }
                for (int nj = 0; nj < GEMM_TILE_NJ; ++nj) {
                    for (int l = 0; l < 32; ++l)
                        addr[l] =
                            gemm_tile_b_base(v, stage) + gemm_tile_ldmatrix_b(v, warp, nj, kk, l);
                    emu_ldmatrix_x4(e, addr, bf[nj]);
                }
                for (int mi = 0; mi < GEMM_TILE_MI; ++mi)
                    for (int nt = 0; nt < 2 * GEMM_TILE_NJ; ++nt)
                        emu_mma(acc[warp][mi][nt], af[mi], bf[nt / 2][2 * (nt % 2)],
                                bf[nt / 2][2 * (nt % 2) + 1]);
            }
    }
    for (int warp = 0; warp < GEMM_TILE_THREADS / 32; ++warp)
        for (int lane = 0; lane < 32; ++lane) {
            const int64_t warp_row = row0 + gemm_tile_warp_m(warp) * GEMM_TILE_WARP_M + lane / 4,
                          warp_col =
                              col0 + gemm_tile_warp_n(warp) * GEMM_TILE_WARP_N + 2 * (lane % 4);
            for (int mi = 0; mi < GEMM_TILE_MI; ++mi)
                for (int half = 0; half < 2; ++half) {
                    const int64_t row = warp_row + 16 * mi + 8 * half;
                    for (int nt = 0; nt < 2 * GEMM_TILE_NJ; ++nt)
                        for (int j = 0; j < 2; ++j) {
                            const int64_t col = warp_col + 8 * nt + j;
                            if (row < e->m && col < e->n)
                                c[row * e->n + col] = acc[warp][mi][nt][lane][2 * half + j];
                        }
                }
        }
}

/* The grid's order (gemm_tile_block_tile) gives every tile of C to exactly
 * one block, for grids smaller and larger than a group, and not a multiple. */
static void test_block_order(void)
{
    static const int64_t sizes[] = {1,
                                    2,
                                    3,
                                    GEMM_TILE_GROUP_M - 1,
                                    GEMM_TILE_GROUP_M,
                                    GEMM_TILE_GROUP_M + 1,
                                    3 * GEMM_TILE_GROUP_M + 5,
                                    64};
    static unsigned char seen[64 * 64];
    const int count = (int)(sizeof sizes / sizeof *sizes);
    for (int i = 0; i < count; ++i)
        for (int j = 0; j < count; ++j) {
            const int64_t tiles_m = sizes[i], tiles_n = sizes[j];
            if (tiles_m > 64 || tiles_n > 64)
                continue;
            memset(seen, 0, sizeof seen);
            int64_t bad = 0;
            for (int64_t block = 0; block < tiles_m * tiles_n; ++block) {
                int64_t tm = -1, tn = -1;
                gemm_tile_block_tile(block, tiles_m, tiles_n, &tm, &tn);
                if (tm < 0 || tm >= tiles_m || tn < 0 || tn >= tiles_n || seen[tm * tiles_n + tn]++)
                    ++bad;
            }
            EXPECT(bad == 0, "block order, %lld x %lld tiles: %lld blocks off the grid or repeated",
                   (long long)tiles_m, (long long)tiles_n, (long long)bad);
        }
}

/* 130 x 200 x 200: edge tiles along M and N, and a partial last K tile. */
static void test_emulated(void)
{
    const int64_t m = 130, n = 200, k = 200;
    static uint16_t a[130 * 200], b[200 * 200];
    static float c[130 * 200];
    static double want[130 * 200];
    for (int64_t i = 0; i < m * k; ++i)
        a[i] = gemm_tile_ref_random_half(11, (uint64_t)i);
    for (int64_t i = 0; i < n * k; ++i)
        b[i] = gemm_tile_ref_random_half(12, (uint64_t)i);
    gemm_tile_ref(want, a, b, m, n, k);
    static uint16_t smem[GEMM_TILE_STAGES * (GEMM_TILE_BM + GEMM_TILE_BN) * 144 / 2];
    for (int v = 0; v < GEMM_TILE_VARIANTS; ++v) {
        struct emulated e = {smem, a, b, m, n, k};
        for (size_t i = 0; i < sizeof c / sizeof *c; ++i)
            c[i] = NAN; /* poisoned */
        const int64_t tiles_m = gemm_tile_tiles_m(m), tiles_n = gemm_tile_tiles_n(n);
        for (int64_t block = 0; block < tiles_m * tiles_n; ++block) {
            int64_t tile_m, tile_n;
            gemm_tile_block_tile(block, tiles_m, tiles_n, &tile_m, &tile_n);
            emu_block(&e, (enum gemm_tile_variant)v, tile_m, tile_n, c);
        }
        const double err = gemm_tile_ref_rel_l2_f32(c, want, (size_t)(m * n));
        EXPECT(err < 1e-6, "%s: the emulated kernel's C is off the reference: relative L2 %g",
               names[v], err);
    }
}

int main(void)
{
    test_layouts();
    test_copies();
    test_ldmatrix_lanes();
    test_requests();
    test_kernel_shortcuts();
    test_launch();
    test_half();
    test_reference();
    test_block_order();
    test_emulated();
    return unit_finish("test_gemm_tile");
}
