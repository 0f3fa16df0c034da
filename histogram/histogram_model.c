#include "histogram/histogram_model.h"

static struct bf_site site(const char *name, struct bf_access access)
{
    struct bf_site s = bf_site_new(name, access);
    return s;
}

void histogram_model_count(const struct bf_bank_rules *rules, int copies, const uint32_t bin[32],
                           uint32_t active, struct bf_site *s)
{
    uint32_t word[32];
    for (int lane = 0; lane < 32; ++lane)
        word[lane] = histogram_word(copies, bin[lane], lane);
    bf_site_add_words(s, rules, word, active);
}

/* bin[k] = the bin of sample first + k, k < count <= DRAW_MOST: every draw
 * first (a loop that vectorises), then each input in a loop of its own
 * (histogram_sample_of, inlined with the input known). */
#define DRAW_MOST 512
static void draw_bins(enum histogram_input input, int bins, uint64_t seed, int64_t first, int count,
                      uint32_t *bin)
{
    const int shift = bins == HISTOGRAM_U8_BINS ? 0 : 4;
    const uint32_t same = histogram_same_value(bins, seed);
    if (input == HISTOGRAM_SAME) {
        for (int k = 0; k < count; ++k)
            bin[k] = same >> shift;
        return;
    }
    const uint64_t per = (uint64_t)histogram_per_draw(bins), first_draw = (uint64_t)first / per,
                   skip = (uint64_t)first % per; /* samples of the first draw before `first` */
    uint64_t draw[DRAW_MOST / 2 + 1];
    for (uint64_t k = 0; k < (skip + (uint64_t)count + per - 1) / per; ++k)
        draw[k] = histogram_draw(seed, first_draw + k);
#define SAMPLES(in)                                                                                \
    for (int k = 0; k < count; ++k) {                                                              \
        const uint64_t j = (uint64_t)k + skip;                                                     \
        bin[k] =                                                                                   \
            histogram_sample_of(in, bins, same, histogram_part(bins, draw[j / per], j % per)) >>   \
            shift;                                                                                 \
    }
    switch (input) {
    case HISTOGRAM_UNIFORM:
        SAMPLES(HISTOGRAM_UNIFORM);
        break;
    case HISTOGRAM_SKEWED:
        SAMPLES(HISTOGRAM_SKEWED);
        break;
    default:
        SAMPLES(HISTOGRAM_ONEBANK);
        break;
    }
#undef SAMPLES
}

/* The requests of `groups` groups of 32 vectors from group `first`: lane l
 * of a warp counts vector 32 g + l, one request for each sample position in
 * a vector, lanes past the last vector idle (a block's share and its tiles
 * are whole groups of 32, so every warp reads one aligned group). */
static void count_groups(const struct bf_bank_rules *rules, int copies, int bins,
                         enum histogram_input input, uint64_t seed,
                         const struct histogram_split *sp, int64_t first, int64_t groups,
                         struct bf_site *s)
{
    uint32_t bin[DRAW_MOST], word[32];
    for (int64_t group = first; group < first + groups; ++group) {
        const int64_t left = sp->vectors - group * 32;
        const int lanes = left >= 32 ? 32 : (int)left;
        const uint32_t active = lanes == 32 ? ~0u : (1u << lanes) - 1u;
        /* a group's vectors are consecutive: lane l's samples from l * per_vector on */
        draw_bins(input, bins, seed, sp->head + group * 32 * sp->per_vector, lanes * sp->per_vector,
                  bin);
        for (int p = 0; p < sp->per_vector; ++p) {
            for (int lane = 0; lane < lanes; ++lane)
                word[lane] = histogram_word(copies, bin[lane * sp->per_vector + p], lane);
            bf_site_add_words(s, rules, word, active);
        }
    }
}

/* Every vector's requests. The input repeats every HISTOGRAM_PERIOD draws, a
 * whole number of groups, so group g + cycle counts what group g counts: one
 * cycle replayed and multiplied, then the groups left, then the last group
 * if it is partial. */
static void count_vectors(const struct bf_bank_rules *rules, int copies, int bins,
                          enum histogram_input input, uint64_t seed,
                          const struct histogram_split *sp, struct bf_site *s)
{
    const int64_t full = sp->vectors / 32, cycle = (int64_t)HISTOGRAM_PERIOD *
                                                   histogram_per_draw(bins) / (32 * sp->per_vector);
    if (full >= cycle) {
        struct bf_site one = *s;
        one.requests = one.wavefronts = one.ideal = 0;
        one.worst = 0;
        count_groups(rules, copies, bins, input, seed, sp, 0, cycle, &one);
        bf_site_merge(s, &one, (uint64_t)(full / cycle));
    }
    count_groups(rules, copies, bins, input, seed, sp, 0, full % cycle, s);
    if (sp->vectors % 32 != 0)
        count_groups(rules, copies, bins, input, seed, sp, full, 1, s);
}

/* The head or the tail: thread t < count takes sample first + t. */
static void count_singles(const struct bf_bank_rules *rules, int copies, int bins,
                          enum histogram_input input, uint64_t seed, int64_t first, int64_t count,
                          struct bf_site *s)
{
    uint32_t bin[32], word[32] = {0};
    draw_bins(input, bins, seed, first, (int)count, bin);
    for (int lane = 0; lane < count; ++lane)
        word[lane] = histogram_word(copies, bin[lane], lane);
    bf_site_add_words(s, rules, word, count >= 32 ? ~0u : (1u << count) - 1u);
}

/* The counting site's name: the layout of the copies the launch keeps. */
static const char *count_name(int copies)
{
    switch (copies) {
    case 1:
        return "count: atomicAdd [bin]";
    case 32:
        return "count: atomicAdd [bin*32+lane]";
    case 8:
        return "count: atomicAdd [swz(bin)*8+lane%8]";
    default:
        return "count: atomicAdd [swz(bin)*4+lane%4]";
    }
}

int histogram_model_launch(enum histogram_variant variant, int bins, enum histogram_input input,
                           uint64_t seed, int64_t n, uint64_t start,
                           const struct bf_bank_rules *rules, struct bf_site sites[BF_MAX_SITES])
{
    if (variant == HISTOGRAM_GLOBAL || n == 0)
        return 0;
    const struct histogram_split sp =
        histogram_split_input(start, bins == HISTOGRAM_U8_BINS ? 1 : 2, n);
    const struct bf_sm_limits sm = bf_sm_limits_of(rules->cc);
    const int64_t grid = histogram_blocks(variant, bins, sp.vectors, rules->sms, sm);
    /* the copies the launcher picks for this share, as histogram.cu does, on
     * the shared memory of the GPU replayed */
    const int copies =
        histogram_copies(variant, bins, histogram_share(sp.vectors, grid), sm.block_shared);
    const uint32_t words = histogram_words(variant, bins, copies);
    const uint64_t blocks = (uint64_t)grid;
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

    sites[1] = site(count_name(copies), bf_red(4));
    count_singles(rules, copies, bins, input, seed, 0, sp.head, &sites[1]);
    count_singles(rules, copies, bins, input, seed, sp.head + sp.vectors * sp.per_vector, sp.tail,
                  &sites[1]);
    count_vectors(rules, copies, bins, input, seed, &sp, &sites[1]);

    /* Every block merges: a warp sums 32 consecutive bins, one copy a step. */
    struct bf_site merge = site("merge: ld [copy (i + lane) of bin]", bf_ld(4));
    for (int first = 0; first < bins; first += 32)
        for (int i = 0; i < copies; ++i) {
            for (int lane = 0; lane < 32; ++lane)
                addr[lane] = 4u * histogram_merge_word(copies, (uint32_t)(first + lane), i, lane);
            bf_site_add(&merge, rules, addr, ~0u);
        }
    sites[2] = site(merge.name, merge.access);
    bf_site_merge(&sites[2], &merge, blocks);
    return 3;
}
