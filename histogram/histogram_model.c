#include "histogram/histogram_model.h"

static struct bf_site site(const char *name, struct bf_access access)
{
    struct bf_site s = {name, access, 0, 0, 0, 0};
    return s;
}

/* Wavefronts of a 4-byte red request under one-part rules of 32 banks of 4
 * bytes (sm_90's): the most distinct words in any bank. The general
 * bf_site_add does the same for any rules; this one is 5x faster, and the
 * model replays every sample of inputs up to gigabytes. */
static int fast_wavefronts(const uint32_t word[32], uint32_t active)
{
    uint32_t seen[32][32];
    int count[32] = {0}, most = 0;
    for (int lane = 0; lane < 32; ++lane) {
        if (!(active >> lane & 1u))
            continue;
        int b = (int)(word[lane] % 32u), j = 0;
        while (j < count[b] && seen[b][j] != word[lane])
            ++j;
        if (j < count[b])
            continue; /* the same word: served together */
        seen[b][count[b]++] = word[lane];
        if (count[b] > most)
            most = count[b];
    }
    return most;
}

int histogram_model_count(const struct bf_bank_rules *rules, enum histogram_variant variant,
                          int bins, const uint32_t bin[32], uint32_t active, struct bf_site *s)
{
    uint32_t addr[32];
    for (int lane = 0; lane < 32; ++lane)
        addr[lane] = 4u * histogram_word(variant, bins, bin[lane], lane);
    if (active == 0)
        return 0;
    if (rules->banks != 32 || rules->bank_bytes != 4 || rules->part_lanes != 32)
        return bf_site_add(s, rules, addr, active);
    uint32_t word[32];
    for (int lane = 0; lane < 32; ++lane)
        word[lane] = addr[lane] / 4u;
    int w = fast_wavefronts(word, active);
    s->requests += 1;
    s->wavefronts += (uint64_t)w;
    s->ideal += 1; /* at most 32 distinct words: one wavefront could serve them */
    if (w > s->worst)
        s->worst = w;
    return 0;
}

/* The requests of the vectors: lane l of a warp counts vector 32 m + l, one
 * request for each sample position in a vector, lanes past the last vector
 * idle (the kernel's grid stride keeps warps on aligned groups of 32). */
static void count_vectors(const struct bf_bank_rules *rules, enum histogram_variant variant,
                          int bins, enum histogram_input input, uint64_t seed,
                          const struct histogram_split *sp, struct bf_site *s)
{
    uint32_t bin[32] = {0};
    const int shift = bins == HISTOGRAM_U8_BINS ? 0 : 4;
    for (int64_t group = 0; group * 32 < sp->vectors; ++group) {
        int64_t left = sp->vectors - group * 32;
        uint32_t active = left >= 32 ? ~0u : (1u << left) - 1u;
        for (int p = 0; p < sp->per_vector; ++p) {
            for (int lane = 0; lane < 32 && lane < left; ++lane) {
                int64_t i = sp->head + (group * 32 + lane) * sp->per_vector + p;
                bin[lane] = histogram_sample(input, bins, seed, (uint64_t)i) >> shift;
            }
            histogram_model_count(rules, variant, bins, bin, active, s);
        }
    }
}

/* The head or the tail: thread t < count takes sample first + t. */
static void count_singles(const struct bf_bank_rules *rules, enum histogram_variant variant,
                          int bins, enum histogram_input input, uint64_t seed, int64_t first,
                          int64_t count, struct bf_site *s)
{
    uint32_t bin[32] = {0};
    const int shift = bins == HISTOGRAM_U8_BINS ? 0 : 4;
    for (int lane = 0; lane < count; ++lane)
        bin[lane] = histogram_sample(input, bins, seed, (uint64_t)(first + lane)) >> shift;
    histogram_model_count(rules, variant, bins, bin, count >= 32 ? ~0u : (1u << count) - 1u, s);
}

int histogram_model_launch(enum histogram_variant variant, int bins, enum histogram_input input,
                           uint64_t seed, int64_t n, uint64_t start,
                           const struct bf_bank_rules *rules, struct bf_site sites[BF_MAX_SITES])
{
    const uint32_t words = histogram_words(variant, bins);
    if (words == 0 || n == 0)
        return 0;
    const struct histogram_split sp =
        histogram_split_input(start, bins == HISTOGRAM_U8_BINS ? 1 : 2, n);
    const uint64_t blocks = (uint64_t)histogram_blocks(variant, bins, sp.vectors, rules->sms);
    uint32_t addr[32];

    /* Every block clears its words as 16-byte stores, thread t vector t. */
    struct bf_site clear = site("clear: st.128 [4t]", bf_st(16));
    for (uint32_t v = 0; v < words / 4; v += 32) {
        for (int lane = 0; lane < 32; ++lane)
            addr[lane] = 16u * (v + (uint32_t)lane);
        uint32_t left = words / 4 - v;
        bf_site_add(&clear, rules, addr, left >= 32 ? ~0u : (1u << left) - 1u);
    }
    sites[0] = site(clear.name, clear.access);
    bf_site_merge(&sites[0], &clear, blocks);

    sites[1] = site(variant == HISTOGRAM_SHARED ? "count: atomicAdd [bin]"
                    : bins == HISTOGRAM_U8_BINS ? "count: atomicAdd [bin*32+lane]"
                                                : "count: atomicAdd [bin/4*32+4*(lane%8)+bin%4]",
                    bf_red(4));
    count_singles(rules, variant, bins, input, seed, 0, sp.head, &sites[1]);
    count_singles(rules, variant, bins, input, seed, sp.head + sp.vectors * sp.per_vector, sp.tail,
                  &sites[1]);
    count_vectors(rules, variant, bins, input, seed, &sp, &sites[1]);

    /* Every block merges: a warp sums 32 consecutive bins, one copy a step. */
    struct bf_site merge = site("merge: ld [copy (i + lane) of bin]", bf_ld(4));
    for (int first = 0; first < bins; first += 32)
        for (int i = 0; i < histogram_copies(variant, bins); ++i) {
            for (int lane = 0; lane < 32; ++lane)
                addr[lane] =
                    4u * histogram_merge_word(variant, bins, (uint32_t)(first + lane), i, lane);
            bf_site_add(&merge, rules, addr, ~0u);
        }
    sites[2] = site(merge.name, merge.access);
    bf_site_merge(&sites[2], &merge, blocks);
    return 3;
}
