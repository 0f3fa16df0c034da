/* The histogram family on the CPU: the layouts' banks, the merge's rows, the
 * split of an input at any alignment, the model on adversarial and real
 * inputs, the inputs themselves, and the reference. */
#include <string.h>

#include "common/bank_model.h"
#include "histogram/histogram_layout.h"
#include "histogram/histogram_model.h"
#include "histogram/histogram_ref.h"
#include "tests/unit.h"

static const int bin_counts[2] = {HISTOGRAM_U8_BINS, HISTOGRAM_U16_BINS};

/* The layouts the kernels use: one copy (shared) of either bins, and the
 * replicated copies of each (histogram_copies), with a share of vectors a
 * block at which the replicated kernel keeps them. */
static const struct {
    int bins, copies;
    int64_t share;
} layouts[] = {{HISTOGRAM_U8_BINS, 1, 1 << 20},
               {HISTOGRAM_U8_BINS, 32, 1 << 20},
               {HISTOGRAM_U16_BINS, 1, 1 << 20},
               {HISTOGRAM_U16_BINS, 8, 1 << 20},
               {HISTOGRAM_U16_BINS, 4, HISTOGRAM_FEW_COPIES_SHARE}};
#define LAYOUTS (int)(sizeof layouts / sizeof layouts[0])

/* Replicated: lane l's counters lie in the banks of its copy, l % copies,
 * l % copies + copies, ... (256 bins: bank l; 4096: l % 8, l % 8 + 8, ...,
 * or with 4 copies l % 4, l % 4 + 4, ...);
 * every (bin, copy) has its own word; the merge finds each word's bin. */
static void test_layouts(void)
{
    for (int k = 0; k < LAYOUTS; ++k) {
        const int bins = layouts[k].bins, copies = layouts[k].copies;
        const enum histogram_variant var = copies == 1 ? HISTOGRAM_SHARED : HISTOGRAM_REPLICATED;
        const uint32_t words = histogram_words(var, bins, copies);
        int bad_bank = 0, bad_range = 0, bad_merge = 0;
        /* every word belongs to one (bin, copy) */
        static unsigned char used[32768];
        memset(used, 0, sizeof used);
        for (uint32_t bin = 0; bin < (uint32_t)bins; ++bin)
            for (int lane = 0; lane < 32; ++lane) {
                uint32_t w = histogram_word(copies, bin, lane);
                bad_range += w >= words;
                bad_bank += w % 32 % (uint32_t)copies != (uint32_t)lane % (uint32_t)copies;
            }
        /* the merge reads each word once, and a warp's 32 reads hit 32 banks */
        for (uint32_t first = 0; first < (uint32_t)bins; first += 32)
            for (int i = 0; i < copies; ++i) {
                uint32_t banks = 0;
                for (int lane = 0; lane < 32; ++lane) {
                    uint32_t w = histogram_merge_word(copies, first + (uint32_t)lane, i, lane);
                    bad_merge += w >= words || used[w]++ != 0;
                    banks |= 1u << (w % 32);
                }
                bad_merge += banks != ~0u;
            }
        for (uint32_t w = 0; w < words; ++w)
            bad_merge += used[w] != 1;
        EXPECT(!bad_bank && !bad_range && !bad_merge,
               "%d bins, %d copies: %d off their banks, %d out of range, %d merge faults", bins,
               copies, bad_bank, bad_range, bad_merge);
        EXPECT_EQ(words, (uint32_t)bins * (uint32_t)copies, "words = bins x copies");
        EXPECT_EQ(histogram_copies(var, bins, layouts[k].share, HISTOGRAM_H100_SMEM_OPTIN), copies,
                  "the layout of a share");
    }
    EXPECT_EQ(4 * histogram_words(HISTOGRAM_REPLICATED, HISTOGRAM_U16_BINS, 8), 128 * 1024,
              "4096-bin replicated: 128 KiB");
    EXPECT_EQ(4 * histogram_words(HISTOGRAM_REPLICATED, HISTOGRAM_U16_BINS, 4), 64 * 1024,
              "4096-bin replicated, 4 copies: 64 KiB");
    EXPECT_EQ(histogram_words(HISTOGRAM_GLOBAL, HISTOGRAM_U16_BINS, 1), 0, "global: no words");
}

/* The copies a block keeps follow its share: 4096 bins 4 up to
 * HISTOGRAM_FEW_COPIES_SHARE vectors a block, 8 beyond where a block may
 * have 128 KiB, 4 at every share where it may not; 256 bins always 32; one
 * copy for the shared variant. And the sizes around it: 4 copies exactly up
 * to 16384 vectors an SM (33 MiB of 16-bit samples on 132 SMs). */
static void test_rule(void)
{
    const int64_t few = HISTOGRAM_FEW_COPIES_SHARE;
    const enum histogram_variant r = HISTOGRAM_REPLICATED;
    const int h100 = HISTOGRAM_H100_SMEM_OPTIN, eight = 4 * HISTOGRAM_U16_BINS * 8;
    EXPECT_EQ(h100, 232448, "the H100 lets a block have 227 KiB");
    EXPECT_EQ(eight, 128 * 1024, "8 copies of 4096 bins: 128 KiB");
    EXPECT_EQ(histogram_copies(r, HISTOGRAM_U16_BINS, 0, h100), 4, "no vectors: 4 copies");
    EXPECT_EQ(histogram_copies(r, HISTOGRAM_U16_BINS, few, h100), 4, "at the share: 4 copies");
    EXPECT_EQ(histogram_copies(r, HISTOGRAM_U16_BINS, few + 32, h100), 8, "past it: 8 copies");
    EXPECT_EQ(few % 32, 0, "a share is whole groups of 32");
    /* The opt-in limit: 8 copies from exactly 128 KiB a block; below it
     * (sm_86, sm_89: 99 KiB; 64 KiB; 48 KiB) 4 at every share, so that a
     * launch fits at every n or at none. */
    EXPECT_EQ(histogram_copies(r, HISTOGRAM_U16_BINS, few + 32, eight), 8, "128 KiB: 8 copies");
    EXPECT_EQ(histogram_copies(r, HISTOGRAM_U16_BINS, few, eight), 4, "128 KiB, at the share: 4");
    const int small[] = {eight - 1, 99 * 1024, 64 * 1024, 48 * 1024};
    int bad = 0;
    for (int k = 0; k < 4; ++k)
        for (int64_t share = 0; share <= 4 * few; share += 32)
            bad += histogram_copies(r, HISTOGRAM_U16_BINS, share, small[k]) != 4 ||
                   histogram_copies(r, HISTOGRAM_U16_BINS, share << 10, small[k]) != 4 ||
                   histogram_copies(r, HISTOGRAM_U8_BINS, share, small[k]) != 32 ||
                   histogram_copies(HISTOGRAM_SHARED, HISTOGRAM_U16_BINS, share, small[k]) != 1;
    EXPECT(bad == 0, "under 128 KiB a block: 4 copies at every share (%d not)", bad);
    bad = 0;
    for (int64_t share = 0; share <= 4 * few; share += 32)
        bad += histogram_copies(r, HISTOGRAM_U8_BINS, share, h100) != 32 ||
               histogram_copies(HISTOGRAM_SHARED, HISTOGRAM_U16_BINS, share, h100) != 1 ||
               histogram_copies(HISTOGRAM_SHARED, HISTOGRAM_U8_BINS, share, h100) != 1 ||
               histogram_copies(HISTOGRAM_GLOBAL, HISTOGRAM_U16_BINS, share, h100) != 1;
    EXPECT(bad == 0, "256 bins keep 32 copies at any share, the one-copy variants 1 (%d not)", bad);
    /* the launcher has a kernel for every count the rule returns, and none
     * for the counts it never returns */
    bad = 0;
    const int limits[] = {h100, eight, eight - 1, 99 * 1024, 48 * 1024};
    for (int64_t share = 0; share <= 4 * few; share += 32)
        for (int k = 0; k < 2; ++k)
            for (int o = 0; o < 5; ++o)
                bad += !HISTOGRAM_REPLICATED_BUILT(
                    bin_counts[k], histogram_copies(r, bin_counts[k], share, limits[o]));
    EXPECT(bad == 0, "every replicated layout the rule picks is built (%d not)", bad);
    EXPECT(!HISTOGRAM_REPLICATED_BUILT(HISTOGRAM_U16_BINS, 32) &&
               !HISTOGRAM_REPLICATED_BUILT(HISTOGRAM_U16_BINS, 1) &&
               !HISTOGRAM_REPLICATED_BUILT(HISTOGRAM_U8_BINS, 4) &&
               !HISTOGRAM_REPLICATED_BUILT(HISTOGRAM_U8_BINS, 8),
           "no kernel for a layout the rule never picks");
    /* 132 SMs, 16-bit samples from a 16-byte boundary: the sweep's sizes and
     * the last one with 4 copies; 99 KiB a block: 4 at all of them */
    const struct {
        int64_t bytes;
        int copies;
    } sizes[] = {{4096, 4},     {65536, 4},          {4194304, 4},
                 {16777216, 4}, {132 * few * 16, 4}, {132 * few * 16 + 16, 8},
                 {33554432, 4}, {67108864, 8},       {1073741824, 8}};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
        const struct histogram_split sp = histogram_split_input(4096, 2, sizes[k].bytes / 2);
        const int64_t blocks =
            histogram_blocks(r, HISTOGRAM_U16_BINS, sp.vectors, 132, bf_sm_limits_of(90));
        const int64_t share = histogram_share(sp.vectors, blocks);
        EXPECT(histogram_copies(r, HISTOGRAM_U16_BINS, share, h100) == sizes[k].copies,
               "%lld bytes: %d copies", (long long)sizes[k].bytes, sizes[k].copies);
        EXPECT(histogram_copies(r, HISTOGRAM_U16_BINS, share, 99 * 1024) == 4,
               "%lld bytes, 99 KiB a block: 4 copies", (long long)sizes[k].bytes);
    }
    /* Any number of SMs: 4 copies exactly up to 16384 vectors an SM (the grid
     * reaches one block an SM at 4096), 8 from one more vector. */
    const int sm_counts[] = {1, 28, 46, 84, 108, 132, 144};
    bad = 0;
    for (int k = 0; k < 7; ++k) {
        const int64_t sms = sm_counts[k];
        const int64_t at[] = {1,         4096 * sms,    4096 * sms + 1,
                              few * sms, few * sms + 1, 4 * few * sms};
        for (int j = 0; j < 6; ++j) {
            const int64_t blocks =
                histogram_blocks(r, HISTOGRAM_U16_BINS, at[j], (int)sms, bf_sm_limits_of(90));
            const int got =
                histogram_copies(r, HISTOGRAM_U16_BINS, histogram_share(at[j], blocks), h100);
            bad += got != (at[j] <= few * sms ? 4 : 8);
        }
    }
    EXPECT(bad == 0, "4 copies up to 16384 vectors an SM, 8 beyond, on any SMs (%d not)", bad);
}

static int one_request(int copies, const uint32_t bin[32])
{
    struct bf_site s = bf_site_new("x", (struct bf_access){BF_RED, 4, 0});
    histogram_model_count(&bf_rules_sm90, copies, bin, ~0u, &s);
    /* the general model agrees with the fast path */
    struct bf_site g = bf_site_new("x", (struct bf_access){BF_RED, 4, 0});
    uint32_t addr[32];
    for (int l = 0; l < 32; ++l)
        addr[l] = 4u * histogram_word(copies, bin[l], l);
    bf_site_add(&g, &bf_rules_sm90, addr, ~0u);
    EXPECT(g.wavefronts == s.wavefronts, "fast path %llu, general %llu",
           (unsigned long long)s.wavefronts, (unsigned long long)g.wavefronts);
    return (int)s.wavefronts;
}

/* The most wavefronts any of 20000 requests of random bins (below `bins`,
 * from random stream `stream`) takes with `copies` copies. */
static int worst_random(int copies, uint32_t bins, uint64_t stream)
{
    uint32_t bin[32];
    int worst = 0;
    for (uint64_t r = 0; r < 20000; ++r) {
        for (int l = 0; l < 32; ++l)
            bin[l] = (uint32_t)(bf_random_bits(stream, r * 32 + (uint64_t)l) % bins);
        const int w = one_request(copies, bin);
        worst = w > worst ? w : worst;
    }
    return worst;
}

/* The adversaries: every lane on one bin; every lane on a different bin of
 * one bank (bank 0 of a one-copy histogram: 0, 32, 64, ...). */
static void test_adversaries(void)
{
    uint32_t same[32], bank0[32];
    for (int l = 0; l < 32; ++l) {
        same[l] = 77;
        bank0[l] = 32u * (uint32_t)l;
    }
    for (int k = 0; k < 2; ++k) {
        const int bins = bin_counts[k];
        uint32_t b0[32];
        for (int l = 0; l < 32; ++l)
            b0[l] = bank0[l] % (uint32_t)bins; /* 256 bins: 8 such bins, 4 lanes each */
        const int copies = bins == 256 ? 32 : 8;
        EXPECT_EQ(one_request(1, same), 1, "one bin, one copy");
        EXPECT_EQ(one_request(copies, same), 1, "one bin, replicated");
        EXPECT_EQ(one_request(1, b0), bins == 256 ? 8 : 32, "one bank, one copy");
        /* 4096: bins 32 l, so lanes 8 apart (one copy) share bits 5-6 too: 4-way */
        EXPECT_EQ(one_request(copies, b0), bins == 256 ? 1 : 4, "one bank, replicated");
    }
    /* 4096 replicated: no request exceeds 4, whatever the bins (random ones,
     * and the 4 lanes of each copy on 4 bins of one bank) */
    uint32_t bin[32];
    int worst = worst_random(8, 4096u, 5);
    /* bins 128 apart: bits 0-1 and 5-6 all 0, so each copy's 4 lanes meet in
     * one bank (the swizzle spreads bins 32 apart: bits 5-6 differ) */
    for (int l = 0; l < 32; ++l)
        bin[l] = 128u * (uint32_t)l;
    EXPECT_EQ(one_request(8, bin), 4, "4 lanes of a copy, one bank");
    for (int l = 0; l < 32; ++l)
        bin[l] = 32u * (uint32_t)(l / 8 + 4 * (l % 8)); /* copy c: 4 bins 32 apart */
    EXPECT_EQ(one_request(8, bin), 1, "bins 32 apart, swizzled");
    EXPECT(worst <= 4, "4096 replicated: worst %d on random bins", worst);
    /* 4 copies (where blocks count little): no request exceeds 8; bins 256
     * apart (bits 0-2 and 5-7 all 0) put each copy's 8 lanes in one bank;
     * bins 32 l, the one bank of one copy: lanes 8 apart share bits 5-7,
     * 4-way; bins 32 apart within each copy: spread over its 8 banks */
    worst = worst_random(4, 4096u, 7);
    EXPECT(worst <= 8, "4096 replicated, 4 copies: worst %d on random bins", worst);
    for (int l = 0; l < 32; ++l)
        bin[l] = 256u * (uint32_t)(l / 4); /* copy c: 8 bins 256 apart */
    EXPECT_EQ(one_request(4, bin), 8, "4 copies: 8 lanes of a copy, one bank");
    for (int l = 0; l < 32; ++l)
        bin[l] = 32u * (uint32_t)l;
    EXPECT_EQ(one_request(4, bin), 4, "4 copies: one bank of one copy");
    for (int l = 0; l < 32; ++l)
        bin[l] = 32u * (uint32_t)(l / 4 + 8 * (l % 4)); /* copy c: 8 bins 32 apart */
    EXPECT_EQ(one_request(4, bin), 1, "4 copies: bins 32 apart, swizzled");
    /* 256 replicated: one wavefront on any bins */
    EXPECT_EQ(worst_random(32, 256u, 6), 1, "256 replicated: one wavefront on random bins");
}

/* Every sample counted exactly once: head + vectors + tail = n, vectors
 * aligned, inside the input (a straddling vector's extra byte too). */
static void test_split(void)
{
    int bad = 0;
    for (int sb = 1; sb <= 2; ++sb)
        for (uint64_t start = 4096; start < 4096 + 32; ++start)
            for (int64_t n = 0; n < 300; ++n) {
                struct histogram_split s = histogram_split_input(start, sb, n);
                uint64_t end = start + (uint64_t)(n * sb);
                int ok = s.head >= 0 && s.tail >= 0 && s.vectors >= 0 &&
                         s.head + s.vectors * s.per_vector + s.tail == n &&
                         s.first_vector % 16 == 0 && s.per_vector == 16 / sb &&
                         s.straddle == (sb == 2 && start % 2 == 1) &&
                         s.tail < s.per_vector + s.straddle;
                if (s.vectors > 0) {
                    uint64_t last =
                        s.first_vector + 16u * (uint64_t)s.vectors + (uint64_t)s.straddle;
                    /* vector v's first sample is sample head + v * per_vector */
                    ok &= last <= end &&
                          s.first_vector + (uint64_t)s.straddle == start + (uint64_t)(s.head * sb);
                }
                bad += !ok;
            }
    EXPECT(bad == 0, "%d splits wrong", bad);
    struct histogram_split s = histogram_split_input(4097, 2, 1000);
    EXPECT(s.straddle && s.head == 8 && s.vectors == 124 && s.tail == 0,
           "odd start: head %lld, vectors %lld, tail %lld", (long long)s.head, (long long)s.vectors,
           (long long)s.tail);
}

/* The model of a launch: requests as the kernel makes them, conflict-free
 * where the layout says so, and the sites scale with the blocks. */
static void test_model_launch(void)
{
    struct bf_site sites[BF_MAX_SITES];
    struct bf_bank_rules rules = bf_rules_sm90;
    for (int k = 0; k < 2; ++k) {
        const int bins = bin_counts[k];
        for (int in = 0; in < HISTOGRAM_INPUTS; ++in) {
            const int64_t n = 100003;
            int ns = histogram_model_launch(HISTOGRAM_REPLICATED, bins, (enum histogram_input)in, 9,
                                            n, 4096 + 3, &rules, sites);
            EXPECT_EQ(ns, 3, "three sites");
            struct histogram_split sp = histogram_split_input(4096 + 3, bins == 256 ? 1 : 2, n);
            uint64_t want = (uint64_t)((sp.vectors + 31) / 32) * (uint64_t)sp.per_vector +
                            (sp.head > 0) + (sp.tail > 0);
            EXPECT_EQ(sites[1].requests, want, "count requests");
            const int64_t blocks = histogram_blocks(HISTOGRAM_REPLICATED, bins, sp.vectors,
                                                    rules.sms, bf_sm_limits_of(rules.cc));
            const int copies =
                histogram_copies(HISTOGRAM_REPLICATED, bins, histogram_share(sp.vectors, blocks),
                                 HISTOGRAM_H100_SMEM_OPTIN);
            EXPECT_EQ(copies, bins == 256 ? 32 : 4, "a few blocks of 4096 bins: 4 copies");
            if (bins == 256 || in == HISTOGRAM_SAME)
                EXPECT(sites[1].wavefronts == sites[1].requests, "%d bins, input %d: conflict-free",
                       bins, in);
            else
                EXPECT(sites[1].worst <= 32 / copies, "4096 bins, %d copies: at most %d-way",
                       copies, 32 / copies);
            EXPECT(sites[0].wavefronts == sites[0].ideal && sites[2].wavefronts == sites[2].ideal,
                   "clear and merge at the ideal");
            ns = histogram_model_launch(HISTOGRAM_SHARED, bins, (enum histogram_input)in, 9, n,
                                        4096 + 3, &rules, sites);
            if (in == HISTOGRAM_ONEBANK)
                EXPECT(sites[1].wavefronts > 7 * sites[1].requests,
                       "one copy on one-bank data: %.2f ways",
                       (double)sites[1].wavefronts / (double)sites[1].requests);
        }
    }
    /* Blocks: the clear and merge are per block; the count is not. */
    struct bf_site a[BF_MAX_SITES], b[BF_MAX_SITES];
    rules.sms = 132;
    histogram_model_launch(HISTOGRAM_REPLICATED, 256, HISTOGRAM_UNIFORM, 1, 33554432, 0, &rules, a);
    rules.sms = 66;
    histogram_model_launch(HISTOGRAM_REPLICATED, 256, HISTOGRAM_UNIFORM, 1, 33554432, 0, &rules, b);
    EXPECT(a[0].requests == 2 * b[0].requests && a[2].requests == 2 * b[2].requests &&
               a[1].wavefronts == b[1].wavefronts,
           "clear and merge follow the grid (264 or 132 blocks), the count does not");
    EXPECT_EQ(
        histogram_model_launch(HISTOGRAM_GLOBAL, 256, HISTOGRAM_UNIFORM, 1, 1000, 0, &rules, a), 0,
        "global: no shared memory");
    /* The copies follow the share, as the launcher picks them: 4096 bins on
     * 132 SMs, 16384 vectors a block (33 MiB) clear and merge 4 copies,
     * one more group of vectors 8; every block clears its words with
     * st.128 (words / 128 requests) and merges them (words / 32). */
    rules.sms = 132;
    const int64_t last = 132 * (int64_t)HISTOGRAM_FEW_COPIES_SHARE * 8; /* samples */
    for (int more = 0; more <= 1; ++more) {
        const int64_t n = last + 8 * 32 * more;
        histogram_model_launch(HISTOGRAM_REPLICATED, 4096, HISTOGRAM_UNIFORM, 1, n, 0, &rules, a);
        const uint64_t words = 4096u * (more ? 8u : 4u);
        EXPECT(a[0].requests == 132 * words / 128 && a[2].requests == 132 * words / 32,
               "%lld samples: clear %llu requests, merge %llu, for %llu words a block",
               (long long)n, (unsigned long long)a[0].requests, (unsigned long long)a[2].requests,
               (unsigned long long)words);
        EXPECT(strstr(a[1].name, more ? "*8+lane%8" : "*4+lane%4") != NULL,
               "the count site names its copies: %s", a[1].name);
        EXPECT(a[1].worst <= (more ? 4 : 8), "at most %d-way", more ? 4 : 8);
    }
}

/* Requests of `count` consecutive samples from `first`, lane l taking sample
 * first + l * stride + p for p < per (a warp of vectors: stride = per; the
 * head or tail: per = 1), replayed from histogram_sample. */
static void replay(int copies, int bins, enum histogram_input input, uint64_t seed, int64_t first,
                   int lanes, int stride, int per, struct bf_site *s)
{
    uint32_t bin[32] = {0};
    const int shift = bins == 256 ? 0 : 4;
    for (int p = 0; p < per; ++p) {
        for (int l = 0; l < lanes; ++l)
            bin[l] =
                histogram_sample(input, bins, seed, (uint64_t)(first + l * stride + p)) >> shift;
        histogram_model_count(&bf_rules_sm90, copies, bin, lanes == 32 ? ~0u : (1u << lanes) - 1u,
                              s);
    }
}

/* The launch's count equals a replay request by request from
 * histogram_sample (the model draws a group at a time, replays one period
 * of the input and multiplies): past two periods, from an odd address. */
static void test_model_period(void)
{
    struct bf_site sites[BF_MAX_SITES];
    for (int k = 0; k < 2; ++k)
        for (int v = HISTOGRAM_SHARED; v <= HISTOGRAM_REPLICATED; ++v) {
            const int bins = bin_counts[k], sb = bins == 256 ? 1 : 2;
            const int64_t n = 2 * (int64_t)HISTOGRAM_PERIOD * histogram_per_draw(bins) + 12345;
            const uint64_t start = 4096 + 3;
            const enum histogram_variant var = (enum histogram_variant)v;
            for (int in = 0; in < HISTOGRAM_INPUTS; in += 2) { /* uniform, skewed */
                const enum histogram_input input = (enum histogram_input)in;
                histogram_model_launch(var, bins, input, 11, n, start, &bf_rules_sm90, sites);
                struct bf_site s = bf_site_new("x", (struct bf_access){BF_RED, 4, 0});
                const struct histogram_split sp = histogram_split_input(start, sb, n);
                const int64_t tail = sp.head + sp.vectors * sp.per_vector;
                const int64_t blocks =
                    histogram_blocks(var, bins, sp.vectors, bf_rules_sm90.sms, bf_sm_limits_of(90));
                const int copies = histogram_copies(var, bins, histogram_share(sp.vectors, blocks),
                                                    HISTOGRAM_H100_SMEM_OPTIN);
                replay(copies, bins, input, 11, 0, (int)sp.head, 1, 1, &s);
                replay(copies, bins, input, 11, tail, (int)sp.tail, 1, 1, &s);
                for (int64_t g = 0; g < sp.vectors; g += 32)
                    replay(copies, bins, input, 11, sp.head + g * sp.per_vector,
                           sp.vectors - g >= 32 ? 32 : (int)(sp.vectors - g), sp.per_vector,
                           sp.per_vector, &s);
                EXPECT(sites[1].requests == s.requests && sites[1].wavefronts == s.wavefronts &&
                           sites[1].worst == s.worst,
                       "%d bins, variant %d, input %d: model %llu wavefronts, request by request "
                       "%llu",
                       bins, v, in, (unsigned long long)sites[1].wavefronts,
                       (unsigned long long)s.wavefronts);
            }
        }
}

/* The inputs are what their names say. */
static void test_inputs(void)
{
    int bad = 0;
    uint64_t low = 0, same = 0;
    const int N = 1 << 16;
    for (uint64_t i = 0; i < (uint64_t)N; ++i) {
        bad += histogram_sample(HISTOGRAM_ONEBANK, 256, 3, i) % 32 != 0;
        bad += (histogram_sample(HISTOGRAM_ONEBANK, 4096, 3, i) >> 4) % 32 != 0;
        bad += histogram_sample(HISTOGRAM_SAME, 256, 3, i) !=
               histogram_sample(HISTOGRAM_SAME, 256, 3, 0);
        bad += histogram_sample(HISTOGRAM_UNIFORM, 256, 3, i) > 255;
        bad += histogram_sample(HISTOGRAM_UNIFORM, 4096, 3, i) > 65535;
        bad += histogram_sample(HISTOGRAM_SKEWED, 4096, 3, i) > 65535;
        low += histogram_sample(HISTOGRAM_SKEWED, 256, 3, i) < 16;
        /* the stream repeats after HISTOGRAM_PERIOD draws, and only then */
        const uint64_t period8 = 4u * HISTOGRAM_PERIOD;
        bad += histogram_sample(HISTOGRAM_UNIFORM, 4096, 3, i) !=
               histogram_sample(HISTOGRAM_UNIFORM, 4096, 3, i + 2u * HISTOGRAM_PERIOD);
        bad += histogram_bits(256, 3, i) != histogram_bits(256, 3, i + period8);
        same += histogram_bits(256, 3, i) == histogram_bits(256, 3, i + period8 / 2);
    }
    EXPECT(same < 16, "no repetition within a period: %llu of %d alike", (unsigned long long)same,
           N);
    EXPECT(bad == 0, "%d samples out of their input's range", bad);
    EXPECT(low > (uint64_t)N * 45 / 100 && low < (uint64_t)N * 55 / 100,
           "skewed: half the samples in the first 16 bins (%llu of %d)", (unsigned long long)low,
           N);
}

static void test_reference(void)
{
    uint32_t h8[256] = {0}, h16[4096] = {0};
    const uint8_t bytes[] = {0, 255, 255, 7, 0x34, 0x12, 0xff};
    histogram_ref_add_u8(h8, bytes, sizeof bytes);
    EXPECT(h8[0] == 1 && h8[255] == 3 && h8[7] == 1 && h8[0x34] == 1 && h8[0x12] == 1,
           "bytes counted");
    histogram_ref_add_u16(h16, bytes, 3); /* 0xff00, 0x07ff, 0x1234 */
    EXPECT(h16[0xff0] == 1 && h16[0x07f] == 1 && h16[0x123] == 1, "16-bit samples, little-endian");
    h8[9] = 0xffffffffu;
    const uint8_t nines[3] = {9, 9, 9};
    histogram_ref_add_u8(h8, nines, 3);
    EXPECT_EQ(h8[9], 2, "counts wrap modulo 2^32");
}

/* Other GPUs: the blocks an SM of each kernel (threads and shared memory of
 * common/sm_limits.h), the grid they make, and the model replaying it. */
static void test_other_gpus(void)
{
    static const struct {
        int cc;
        int per_sm[2][2]; /* [shared, replicated][256, 4096 bins] */
    } gpus[] = {
        {90, {{4, 2}, {2, 1}}},  /* H100: 2048 threads, 227 KiB a block */
        {80, {{4, 2}, {2, 1}}},  /* A100 */
        {89, {{3, 1}, {2, 1}}},  /* RTX 4090: 1536 threads (3 x 512, 1 x 1024) */
        {120, {{3, 1}, {2, 1}}}, /* RTX 5090 */
        {75, {{2, 1}, {2, 1}}},  /* T4: 1024 threads; 2 x 32 KiB of its 64 */
    };
    for (size_t g = 0; g < sizeof gpus / sizeof *gpus; ++g) {
        const struct bf_sm_limits sm = bf_sm_limits_of(gpus[g].cc);
        for (int v = 0; v < 2; ++v)
            for (int k = 0; k < 2; ++k) {
                const enum histogram_variant var = v ? HISTOGRAM_REPLICATED : HISTOGRAM_SHARED;
                const int bins = bin_counts[k], want = gpus[g].per_sm[v][k];
                EXPECT(histogram_blocks_per_sm(var, bins, sm) == want,
                       "sm_%d, variant %d, %d bins: %d blocks an SM, want %d", gpus[g].cc, var,
                       bins, histogram_blocks_per_sm(var, bins, sm), want);
                EXPECT_EQ(histogram_blocks(var, bins, INT64_C(1) << 30, 100, sm), 100 * want,
                          "a large input: blocks an SM x SMs");
                const int copies = histogram_copies(var, bins, INT64_MAX, sm.block_shared);
                EXPECT(4 * histogram_words(var, bins, copies) <= (uint32_t)sm.block_shared,
                       "sm_%d: %d copies of %d bins fit a block", gpus[g].cc, copies, bins);
            }
    }
    /* The model replays the grid of the GPU it is given: on 128 SMs of an
     * RTX 4090, 384 blocks of one shared copy (3 an SM) clear and merge. */
    struct bf_bank_rules rules = bf_rules_sm90;
    rules.sms = 128;
    rules.cc = 89;
    struct bf_site a[BF_MAX_SITES];
    histogram_model_launch(HISTOGRAM_SHARED, 256, HISTOGRAM_UNIFORM, 1, INT64_C(1) << 28, 0, &rules,
                           a);
    EXPECT_EQ(a[0].requests, 384 * (256 / 128), "clear: 384 blocks of 256 words as st.128");
}

int main(void)
{
    test_other_gpus();
    test_layouts();
    test_rule();
    test_adversaries();
    test_split();
    test_model_launch();
    test_model_period();
    test_inputs();
    test_reference();
    return unit_finish("test_histogram");
}
