/* The reduction family on the CPU: the bank model on every shared access site
 * of every variant, the tree steps and pass plans the kernels follow, and the
 * CPU reference. */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "common/bank_model.h"
#include "reduction/reduction_layout.h"
#include "reduction/reduction_model.h"
#include "reduction/reduction_ref.h"
#include "tests/unit.h"

/* The strided index's ways at each level, s = 1, 2, ... 512: 2*s words apart,
 * so 2*s lanes share a bank while 32 lanes are active; from s = 32 on only
 * 512/s lanes are left, all in one bank. The stores show it at every level;
 * the loads too, but at s = 1, where sdata[2*tid] and sdata[2*tid+1] are one
 * aligned 8-byte pair that nvcc reads with a single LDS.64: 256 contiguous
 * bytes, 2 wavefronts, conflict-free. */
static const int interleaved_ways[REDUCTION_TREE_LEVELS] = {2, 4, 8, 16, 32, 16, 8, 4, 2, 1};

static int block_sites(enum reduction_variant v, struct bf_site sites[BF_MAX_SITES])
{
    return reduction_model_block(v, &bf_rules_sm90, sites);
}

static void test_interleaved_sites(void)
{
    struct bf_site s[BF_MAX_SITES];
    EXPECT_EQ(block_sites(REDUCTION_INTERLEAVED, s), 2 + 2 * REDUCTION_TREE_LEVELS, "sites");
    EXPECT(s[0].wavefronts == s[0].ideal && s[0].requests == 32, "fill: 32 warps, ideal");
    uint64_t total = 0, ideal = 0;
    for (int level = 0; level < REDUCTION_TREE_LEVELS; ++level) {
        const struct bf_site *ld = &s[1 + 2 * level], *st = &s[2 + 2 * level];
        int stride = 1 << level, ways = interleaved_ways[level];
        /* Threads tid < 512/s are active: 16/s warps, or one warp of 512/s lanes. */
        int warps = stride <= 16 ? 16 / stride : 1;
        EXPECT(ld->access.op == BF_LOAD && st->access.op == BF_STORE, "level %d: ld, st", level);
        EXPECT_EQ(st->requests, warps, "stores: one a warp");
        EXPECT(st->worst == ways && st->wavefronts == (uint64_t)ways * st->ideal &&
                   st->ideal == st->requests,
               "s=%d store: worst %d, every request %d-way", stride, st->worst, ways);
        if (stride == 1) {
            EXPECT(ld->access.bytes == 8 && ld->requests == (uint64_t)warps,
                   "s=1: one 8-byte load a warp");
            EXPECT(ld->wavefronts == 2 * (uint64_t)warps && ld->wavefronts == ld->ideal,
                   "s=1: 256 contiguous bytes, 2 wavefronts, ideal");
        } else {
            EXPECT(ld->access.bytes == 4 && ld->requests == 2 * (uint64_t)warps,
                   "s=%d: two 4-byte loads a warp", stride);
            EXPECT(ld->worst == ways && ld->wavefronts == (uint64_t)ways * ld->ideal &&
                       ld->ideal == ld->requests,
                   "s=%d load: worst %d, every request %d-way", stride, ld->worst, ways);
        }
        total += ld->wavefronts + st->wavefronts;
        ideal += ld->ideal + st->ideal;
    }
    /* Stores: 16/s warps * 2s ways = 32 a level while s <= 16, then 16+8+4+2+1.
     * Loads: twice that, but 32 at s = 1. */
    EXPECT_EQ(total, (5 * 32 + 31) + (32 + 4 * 64 + 2 * 31), "tree wavefronts a block");
    EXPECT_EQ(ideal, (31 + 5) + (32 + 2 * (8 + 4 + 2 + 1) + 2 * 5), "tree ideal a block");
    EXPECT(s[21].requests == 1 && s[21].wavefronts == 1, "result: thread 0, one wavefront");
}

static void test_conflict_free_sites(void)
{
    struct bf_site s[BF_MAX_SITES];
    int n = block_sites(REDUCTION_SEQUENTIAL, s);
    EXPECT_EQ(n, 2 + 2 * REDUCTION_TREE_LEVELS, "sequential: sites");
    for (int i = 0; i < n; ++i)
        EXPECT(s[i].wavefronts == s[i].ideal && s[i].worst == 1, "sequential %s: %llu, ideal %llu",
               s[i].name, (unsigned long long)s[i].wavefronts, (unsigned long long)s[i].ideal);
    /* The same work as the interleaved tree: as many requests at each site
     * (but its paired 8-byte load at s = 1, one request where here are two). */
    struct bf_site t[BF_MAX_SITES];
    block_sites(REDUCTION_INTERLEAVED, t);
    for (int i = 0; i < n; ++i)
        EXPECT(s[i].requests == t[i].requests * (i == 1 ? 2 : 1), "site %d: same requests", i);

    n = block_sites(REDUCTION_TUNED, s);
    EXPECT_EQ(n, 2, "tuned: sites");
    EXPECT(s[0].access.op == BF_STORE && s[0].requests == REDUCTION_TUNED_WARPS &&
               s[0].wavefronts == s[0].ideal,
           "tuned: one store a warp, ideal");
    EXPECT(s[1].access.op == BF_LOAD && s[1].requests == 1 && s[1].wavefronts == 1,
           "tuned: warp 0 reads every warp's sum in one wavefront");
}

/* A sum's sites are one block's times the blocks of all its passes. */
static void test_model_scales_with_blocks(void)
{
    const int64_t sizes[] = {1, 1024, 1025, 1000003, 1048576, 268435456, 2147483659};
    for (int v = 0; v < REDUCTION_VARIANTS; ++v)
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; ++i) {
            struct bf_size size = {1, {sizes[i]}};
            struct bf_site block[BF_MAX_SITES], all[BF_MAX_SITES];
            int n = block_sites((enum reduction_variant)v, block);
            EXPECT_EQ(reduction_model(v, 0, &size, 0, &bf_rules_sm90, all), n, "sites");
            struct reduction_pass pass[REDUCTION_MAX_PASSES];
            int passes = reduction_plan((enum reduction_variant)v, sizes[i], pass);
            uint64_t blocks = 0;
            for (int p = 0; p < passes; ++p)
                blocks += (uint64_t)pass[p].blocks;
            for (int k = 0; k < n; ++k)
                EXPECT(all[k].requests == blocks * block[k].requests &&
                           all[k].wavefronts == blocks * block[k].wavefronts &&
                           all[k].ideal == blocks * block[k].ideal &&
                           all[k].worst == block[k].worst,
                       "variant %d, n=%lld, site %d: %llu blocks", v, (long long)sizes[i], k,
                       (unsigned long long)blocks);
        }
    struct bf_size empty = {1, {0}};
    struct bf_site all[BF_MAX_SITES];
    reduction_model(REDUCTION_INTERLEAVED, 0, &empty, 0, &bf_rules_sm90, all);
    EXPECT_EQ(all[0].requests, 0, "n = 0: no launch, no accesses");
}

/* Replays each tree on the CPU through reduction_tree_step: the result is the
 * sum, and within a level no active thread writes a word another one reads
 * (one barrier a level is enough). */
static void test_tree_steps(void)
{
    for (int v = REDUCTION_INTERLEAVED; v <= REDUCTION_SEQUENTIAL; ++v) {
        static uint32_t sdata[REDUCTION_TREE_THREADS];
        static int written[REDUCTION_TREE_THREADS], read[REDUCTION_TREE_THREADS];
        uint32_t want = 0;
        for (int tid = 0; tid < REDUCTION_TREE_THREADS; ++tid) {
            sdata[reduction_fill_offset(tid)] = (uint32_t)tid * 2654435761u;
            want += (uint32_t)tid * 2654435761u;
        }
        for (int level = 0; level < REDUCTION_TREE_LEVELS; ++level) {
            memset(written, 0, sizeof written);
            memset(read, 0, sizeof read);
            int active = 0;
            for (int tid = 0; tid < REDUCTION_TREE_THREADS; ++tid) {
                struct reduction_step s =
                    reduction_tree_step((enum reduction_variant)v, level, tid);
                if (!s.active)
                    continue;
                ++active;
                EXPECT(s.dst < REDUCTION_TREE_THREADS && s.src < REDUCTION_TREE_THREADS,
                       "variant %d level %d tid %d: inside sdata", v, level, tid);
                written[s.dst]++;
                read[s.src]++;
            }
            EXPECT_EQ(active, REDUCTION_TREE_THREADS >> (level + 1), "active threads halve");
            for (int i = 0; i < REDUCTION_TREE_THREADS; ++i)
                EXPECT(written[i] <= 1 && !(written[i] && read[i]),
                       "variant %d level %d: word %d written twice or written and read", v, level,
                       i);
            for (int tid = 0; tid < REDUCTION_TREE_THREADS; ++tid) {
                struct reduction_step s =
                    reduction_tree_step((enum reduction_variant)v, level, tid);
                if (s.active)
                    sdata[s.dst] += sdata[s.src];
            }
        }
        EXPECT(sdata[REDUCTION_RESULT_OFFSET] == want, "variant %d: the tree sums", v);
    }
}

static void test_plans(void)
{
    const int64_t sizes[] = {
        1,    2,       1023,    1024,     1025,     8191,       8192,
        8193, 1048576, 1000003, 67108864, 67117057, 2147483659, INT64_C(1) << 33};
    for (int v = 0; v < REDUCTION_VARIANTS; ++v)
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; ++i) {
            int64_t n = sizes[i];
            struct reduction_pass pass[REDUCTION_MAX_PASSES];
            int passes = reduction_plan((enum reduction_variant)v, n, pass);
            EXPECT(passes >= 1 && pass[passes - 1].blocks == 1, "variant %d n=%lld: ends in one", v,
                   (long long)n);
            int64_t in = n;
            for (int p = 0; p < passes; ++p) {
                EXPECT(pass[p].n == in && pass[p].blocks * pass[p].chunk >= in &&
                           (pass[p].blocks - 1) * pass[p].chunk < in,
                       "variant %d n=%lld pass %d covers its input once", v, (long long)n, p);
                /* The tuned kernel triggers its dependent where gridDim.x > 1. */
                EXPECT((pass[p].blocks > 1) == (p + 1 < passes),
                       "variant %d n=%lld pass %d: more than one block iff a pass follows", v,
                       (long long)n, p);
                in = pass[p].blocks;
            }
            if (v == REDUCTION_TUNED)
                EXPECT(passes == (n > REDUCTION_TUNED_CHUNK ? 2 : 1),
                       "tuned n=%lld: %d passes, want %d", (long long)n, passes,
                       n > REDUCTION_TUNED_CHUNK ? 2 : 1);
            else
                EXPECT_EQ(reduction_depth((enum reduction_variant)v, n),
                          REDUCTION_TREE_LEVELS * passes, "tree depth: 10 levels a pass");
        }
    /* Tuned, 2^28 elements: 32768 chunks of 16 loads a thread, then one block
     * of 512 threads over 32768 partial sums, 16 a thread (4 loads). */
    EXPECT_EQ(reduction_depth(REDUCTION_TUNED, INT64_C(1) << 28), (2 + 4 + 9) + (2 + 16 + 9),
              "tuned depth at 2^28");
    /* 2^16: 32 chunks of 2048, one load a thread, then one block over 32. */
    EXPECT_EQ(reduction_depth(REDUCTION_TUNED, INT64_C(1) << 16), (2 + 1 + 9) + (2 + 1 + 9),
              "tuned depth at 2^16");
}

/* The tuned sum's first pass: chunks of 8192, but below 128 of them chunks of
 * 4096 or 2048 (whole 16-byte loads for every thread), as many blocks as
 * that makes up to 128; one block up to 8192 elements. */
static void test_tuned_chunks(void)
{
    const struct {
        int64_t n, chunk, blocks;
    } want[] = {
        {1, 8192, 1},         {8192, 8192, 1},
        {8193, 2048, 5},      {1 << 14, 2048, 8},
        {1 << 16, 2048, 32},  {100003, 2048, 49},
        {131072, 2048, 64},   {(1 << 18) - 1, 2048, 128},
        {1 << 18, 2048, 128}, {(1 << 18) + 1, 4096, 65},
        {1 << 19, 4096, 128}, {(1 << 19) + 1, 8192, 65},
        {1 << 20, 8192, 128}, {INT64_C(1) << 28, 8192, 32768},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; ++i) {
        struct reduction_pass pass[REDUCTION_MAX_PASSES];
        int passes = reduction_plan(REDUCTION_TUNED, want[i].n, pass);
        EXPECT(pass[0].chunk == want[i].chunk && pass[0].blocks == want[i].blocks &&
                   passes == (want[i].blocks > 1 ? 2 : 1),
               "tuned n=%lld: chunk %lld, %lld blocks, %d passes; want %lld, %lld",
               (long long)want[i].n, (long long)pass[0].chunk, (long long)pass[0].blocks, passes,
               (long long)want[i].chunk, (long long)want[i].blocks);
    }
    /* Every chunk whole 16-byte loads for all 512 threads, at most 4 each;
     * a first pass of more than one block exactly where a second follows
     * (reduction_tuned triggers its dependent where gridDim.x > 1). */
    for (int64_t n = 1; n <= INT64_C(1) << 21; n = n * 5 / 4 + 1) {
        int64_t chunk = reduction_tuned_chunk(n);
        EXPECT(chunk % (4 * REDUCTION_TUNED_THREADS) == 0 && chunk <= REDUCTION_TUNED_CHUNK,
               "n=%lld: chunk %lld", (long long)n, (long long)chunk);
        struct reduction_pass pass[REDUCTION_MAX_PASSES];
        int passes = reduction_plan(REDUCTION_TUNED, n, pass);
        EXPECT((pass[0].blocks > 1) == (passes == 2) && pass[passes - 1].blocks == 1,
               "tuned n=%lld: %lld blocks first, %d passes", (long long)n,
               (long long)pass[0].blocks, passes);
    }
}

/* The workspace a plan writes: the partial sums of every pass but the last. */
static int64_t partial_sums(enum reduction_variant v, int64_t n)
{
    struct reduction_pass pass[REDUCTION_MAX_PASSES];
    int passes = reduction_plan(v, n, pass);
    int64_t sums = 0;
    for (int p = 0; p + 1 < passes; ++p)
        sums += pass[p].blocks;
    return sums;
}

/* reduction_workspace_elements (reduction_workspace_bytes / 4) never falls as
 * n grows, at every n up to 2^22 (every chunk switch and block boundary of
 * the tuned kernel, the trees' third pass from 2^20 + 1), then around every
 * power of two to 2^40; it holds every partial sum the plan writes, and no
 * more but for the tuned kernel's floor of REDUCTION_TUNED_BLOCKS. */
static void test_workspace(void)
{
    for (int v = 0; v < REDUCTION_VARIANTS; ++v) {
        int64_t prev = 0, bad = -1;
        for (int64_t n = 0; n <= INT64_C(1) << 22 && bad < 0; ++n) {
            int64_t w = reduction_workspace_elements((enum reduction_variant)v, n),
                    need = partial_sums((enum reduction_variant)v, n);
            if (w < prev || w < need ||
                (w != need && !(v == REDUCTION_TUNED && w == REDUCTION_TUNED_BLOCKS)))
                bad = n;
            prev = w;
        }
        EXPECT(bad < 0, "variant %d: workspace at n=%lld: %lld, %lld before, plan writes %lld", v,
               (long long)bad,
               (long long)reduction_workspace_elements((enum reduction_variant)v, bad),
               (long long)reduction_workspace_elements((enum reduction_variant)v, bad - 1),
               (long long)partial_sums((enum reduction_variant)v, bad));
        for (int k = 22; k <= 40; ++k)
            for (int64_t n = (INT64_C(1) << k) - 1; n <= (INT64_C(1) << k) + 1; ++n) {
                int64_t w = reduction_workspace_elements((enum reduction_variant)v, n);
                EXPECT(w >= prev && w == partial_sums((enum reduction_variant)v, n),
                       "variant %d n=%lld: workspace %lld, %lld before", v, (long long)n,
                       (long long)w, (long long)prev);
                prev = w;
            }
    }
    EXPECT_EQ(reduction_workspace_elements(REDUCTION_TUNED, 8192), 0, "tuned, one pass");
    EXPECT_EQ(reduction_workspace_elements(REDUCTION_TUNED, 8193), REDUCTION_TUNED_BLOCKS,
              "tuned, 5 partial sums: the floor");
    EXPECT_EQ(reduction_workspace_elements(REDUCTION_TUNED, (1 << 18) + 1), REDUCTION_TUNED_BLOCKS,
              "tuned, 65 of 4096 after 128 of 2048");
    EXPECT_EQ(reduction_workspace_elements(REDUCTION_TUNED, (1 << 20) + 1), 129,
              "tuned past the floor");
}

static void test_reference(void)
{
    struct reduction_ref r = {0};
    const int32_t a[] = {INT32_MAX, 1};
    reduction_ref_add_i32(&r, a, 2);
    EXPECT_EQ(reduction_ref_i32(&r), INT32_MIN, "INT32_MAX + 1 wraps to INT32_MIN");
    const int32_t b[] = {INT32_MIN, INT32_MIN, -1, 7};
    reduction_ref_add_i32(&r, b, 4);
    EXPECT_EQ(reduction_ref_i32(&r), INT32_MIN + 6, "wraps both ways, modulo 2^32");
    EXPECT_EQ(r.n, 6, "count");

    /* In chunks or at once, the same float64 sum and magnitude. */
    static float x[10007];
    for (int i = 0; i < 10007; ++i)
        x[i] = (float)((i * 7919) % 2001 - 1000) / 64.0f;
    struct reduction_ref whole = {0}, parts = {0};
    reduction_ref_add_f32(&whole, x, 10007);
    for (int i = 0; i < 10007; i += 1000)
        reduction_ref_add_f32(&parts, x + i, (size_t)(10007 - i < 1000 ? 10007 - i : 1000));
    EXPECT(whole.sum == parts.sum && whole.abs_sum == parts.abs_sum && whole.n == 10007,
           "chunked reference equals whole");

    /* The bound scales with the depth and with sum |x|, not a fixed epsilon. */
    double b1 = reduction_ref_bound_f32(&whole, 10), b2 = reduction_ref_bound_f32(&whole, 20);
    EXPECT(b1 > 10 * ldexp(1.0, -24) * whole.abs_sum && b2 > 2 * b1 * 0.999, "bound ~ depth");
    struct reduction_ref none = {0};
    EXPECT(reduction_ref_bound_f32(&none, 10) == 0.0, "empty sum: exact");

    /* A float sum in tree order stays inside the bound; a sum that loses one
     * element's worth does not. */
    static float level[10007];
    memcpy(level, x, sizeof x);
    int m = 10007, depth = 0;
    for (; m > 1; m = (m + 1) / 2, ++depth) {
        for (int i = 0; i < m / 2; ++i)
            level[i] = level[2 * i] + level[2 * i + 1];
        if (m % 2)
            level[m / 2] = level[m - 1];
    }
    double bound = reduction_ref_bound_f32(&whole, depth);
    EXPECT(fabs((double)level[0] - whole.sum) <= bound, "pairwise float sum: off by %g, bound %g",
           fabs((double)level[0] - whole.sum), bound);
    EXPECT(fabs((double)level[0] - x[1] - whole.sum) > bound, "one element missing: caught");
}

int main(void)
{
    test_interleaved_sites();
    test_conflict_free_sites();
    test_model_scales_with_blocks();
    test_tree_steps();
    test_plans();
    test_tuned_chunks();
    test_workspace();
    test_reference();
    return unit_finish("reduction (cpu)");
}
