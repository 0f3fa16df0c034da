#include "reduction/reduction_model.h"

#include <stdio.h>

/* Site names with the level's stride in them; built once, kept for the run. */
static const char *level_name(enum reduction_variant variant, int level, int store)
{
    static char names[2][REDUCTION_TREE_LEVELS][2][48];
    char *name = names[variant == REDUCTION_SEQUENTIAL][level][store];
    int s = reduction_tree_stride(variant, level);
    if (variant == REDUCTION_INTERLEAVED)
        snprintf(name, sizeof names[0][0][0],
                 store ? "s=%d: st [2s*tid]" : "s=%d: ld [2s*tid] and [2s*tid+s]", s);
    else
        snprintf(name, sizeof names[0][0][0],
                 store ? "s=%d: st [tid]" : "s=%d: ld [tid] and [tid+s]", s);
    return name;
}

static struct bf_site site(const char *name, struct bf_access access)
{
    struct bf_site s = bf_site_new(name, access);
    return s;
}

/* Whether every thread's two words at this level form an aligned pair,
 * sdata[dst] and sdata[dst + 1] with dst even. nvcc then reads both with one
 * 8-byte load (LDS.64), and so does the model: the interleaved tree at s = 1,
 * index 2*tid. Every thread, active or not, since the compiler must prove the
 * pairing from the index alone (the sequential tree's last level, thread 0
 * reading words 0 and 1, stays two loads). */
static int pairs_adjacent(enum reduction_variant variant, int level)
{
    for (int tid = 0; tid < REDUCTION_TREE_THREADS; ++tid) {
        struct reduction_step s = reduction_tree_step(variant, level, tid);
        if (s.src != s.dst + 1 || s.dst % 2 != 0)
            return 0;
    }
    return 1;
}

static int tree_block(enum reduction_variant variant, const struct bf_bank_rules *rules,
                      struct bf_site sites[BF_MAX_SITES])
{
    const int warps = REDUCTION_TREE_THREADS / BF_WARP;
    int n = 0;
    uint32_t addr[BF_WARP], dst[BF_WARP], src[BF_WARP];

    sites[n] = site("fill [tid]", bf_st(4));
    for (int w = 0; w < warps; ++w) {
        for (int lane = 0; lane < BF_WARP; ++lane)
            addr[lane] = 4 * reduction_fill_offset(w * BF_WARP + lane);
        bf_site_add(&sites[n], rules, addr, ~0u);
    }
    ++n;

    for (int level = 0; level < REDUCTION_TREE_LEVELS; ++level) {
        const int paired = pairs_adjacent(variant, level);
        struct bf_site *ld = &sites[n++], *st = &sites[n++];
        *ld = site(level_name(variant, level, 0), bf_ld(paired ? 8 : 4));
        *st = site(level_name(variant, level, 1), bf_st(4));
        for (int w = 0; w < warps; ++w) {
            uint32_t active = 0;
            for (int lane = 0; lane < BF_WARP; ++lane) {
                struct reduction_step s = reduction_tree_step(variant, level, w * BF_WARP + lane);
                dst[lane] = 4 * s.dst;
                src[lane] = 4 * s.src;
                active |= (uint32_t)s.active << lane;
            }
            /* sdata[dst] = sdata[dst] + sdata[src]: two loads (or one 8-byte
             * load of the pair), one store */
            bf_site_add(ld, rules, dst, active);
            if (!paired)
                bf_site_add(ld, rules, src, active);
            bf_site_add(st, rules, dst, active);
        }
    }

    sites[n] = site("result [0] (thread 0)", bf_ld(4));
    addr[0] = 4 * REDUCTION_RESULT_OFFSET;
    bf_site_add(&sites[n++], rules, addr, 1u);
    return n;
}

static int tuned_block(const struct bf_bank_rules *rules, struct bf_site sites[BF_MAX_SITES])
{
    uint32_t addr[BF_WARP] = {0};
    sites[0] = site("warp sums: lane 0 stores", bf_st(4));
    for (int w = 0; w < REDUCTION_TUNED_WARPS; ++w) {
        addr[0] = 4 * reduction_warp_sum_offset(w);
        bf_site_add(&sites[0], rules, addr, 1u);
    }
    sites[1] = site("warp sums: warp 0 loads", bf_ld(4));
    for (int lane = 0; lane < REDUCTION_TUNED_WARPS; ++lane)
        addr[lane] = 4 * reduction_warp_sum_offset(lane);
    bf_site_add(&sites[1], rules, addr, (1u << REDUCTION_TUNED_WARPS) - 1u);
    return 2;
}

int reduction_model_block(enum reduction_variant variant, const struct bf_bank_rules *rules,
                          struct bf_site sites[BF_MAX_SITES])
{
    return variant == REDUCTION_TUNED ? tuned_block(rules, sites)
                                      : tree_block(variant, rules, sites);
}

int reduction_model(int variant, int type, const struct bf_size *size, uint64_t seed,
                    const struct bf_bank_rules *rules, struct bf_site sites[BF_MAX_SITES])
{
    (void)type;
    (void)seed;
    struct bf_site block[BF_MAX_SITES];
    int n = reduction_model_block((enum reduction_variant)variant, rules, block);
    struct reduction_pass pass[REDUCTION_MAX_PASSES];
    int passes = reduction_plan((enum reduction_variant)variant, size->dim[0], pass);
    uint64_t blocks = 0;
    for (int p = 0; p < passes; ++p)
        blocks += (uint64_t)pass[p].blocks;
    for (int i = 0; i < n; ++i) {
        sites[i] = site(block[i].name, block[i].access);
        bf_site_merge(&sites[i], &block[i], blocks);
    }
    return n;
}
