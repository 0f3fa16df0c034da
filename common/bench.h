/* A family's benchmark, the part every family shares: each contender (a
 * variant, the ceiling, the vendor's routine) has its output poisoned, runs
 * once, is checked, then is timed; one table row each, with rates, ratios and
 * the bank model's verdict. The family supplies the launches and the checks. */
#ifndef BANKFREE_BENCH_H
#define BANKFREE_BENCH_H

#include <stddef.h>

#include "common/registry.h"
#include "common/report.h"
#include "common/timing.h"

#ifdef __cplusplus
extern "C" {
#endif

struct bf_contender {
    const char *name;
    int on;       /* 0: not run, no row */
    int variant;  /* the family's variant index, or -1 for a comparator */
    int ceiling;  /* 1: a candidate for the ceiling; of_ceiling divides by the fastest
                   * candidate's rate of the same path */
    int path;     /* contenders held to one ceiling: 0 unless a family's variants take
                   * paths with ceilings of their own (gemm_tile: mma.sync, wgmma) */
    double bytes; /* bytes one run reads and writes, for the rate (FLOPs where the
                   * family's rate_unit says GFLOP/s) */
    bf_launch_fn run;
    void *arg; /* for run, poison and check */
    /* Before the checked run: poison the output. After it: 0 if the output is
     * right, else 1 with one line of why. */
    cudaError_t (*poison)(void *arg);
    int (*check)(void *arg, char *why, size_t len);
    /* filled by bf_bench_run */
    struct bf_timing time;
    int wrong;
};

/* The columns of the benchmark table, in the order bf_bench_run fills them,
 * and after them, with ctx->counters, ncu's (--counters). */
extern const char *const bf_bench_columns[];
extern const char *const bf_bench_counter_columns[];

/* Checks and times the contenders that are on, on data of `data_bytes`, and
 * adds their rows to the table. L2 is flushed before every repetition when
 * the user asks (ctx->flush_l2), and otherwise, unless `warm`, when the data
 * fits in 4x L2; `warm` = 1 says the family wants the data resident in L2
 * between repetitions (a deliberate warm-cache size). The l2 column says
 * which: flushed, cold (not flushed: data >= 4x L2) or warm. Rates are bytes
 * / median time in GB/s (FLOPs in GFLOP/s: the family's rate_unit); of_ceiling
 * is a rate over the fastest rate of the contenders of its .path marked
 * .ceiling (usually a device-to-device copy), vs_vendor and
 * vs_naive are the times of contender `vendor` (an index into c, or -1: none)
 * and of the family's variant 0 over this one's; smem_*_ways are the bank
 * model's, on the input of ctx->seed. A contender with no poison or check
 * hook is timed unchecked. Returns 0 if every output checked out. */
int bf_bench_run(struct bf_contender *c, int n, int vendor, const struct bf_family *family,
                 int type, const struct bf_size *size, double data_bytes, int warm,
                 const struct bf_bench_ctx *ctx, struct bf_table *table);

/* The columns of the summary. */
extern const char *const bf_summary_columns[];

/* One row per family, type and size of a bench table (in its order): the
 * family's conflicting variant beside its fastest other variant that has
 * shared-memory sites in the model (the best conflict-free one), their
 * rates, that one's of_ceiling and vs_vendor, the speedup (conflicting's
 * time / its time) and the model's ways of both (the largest of ld, st and
 * atom). A group without both is left out. */
void bf_bench_summary(const struct bf_table *bench, const struct bf_family *const *families,
                      int nfamilies, struct bf_table *summary);

#ifdef __cplusplus
}
#endif

#endif
