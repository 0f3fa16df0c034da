/* A family's benchmark, the part every family shares: a suite names its
 * contenders (the ceilings, the vendor's routine, its variants), each has its
 * output poisoned, runs once and is checked, then all are timed side by side
 * (bf_time_together); one table row each,
 * with rates, ratios and the bank model's verdict. The family supplies the
 * launches and the checks. */
#ifndef BANKFREE_BENCH_H
#define BANKFREE_BENCH_H

#include <stddef.h>

#include "common/registry.h"
#include "common/report.h"
#include "common/timing.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a contender runs: `run` launches it on a stream; `poison` (before the
 * checked run) poisons its output, `check` (after it) returns 0 if the
 * output is right, else 1 with one line of why. NULL poison and check: timed
 * unchecked (a ceiling whose result means nothing). */
struct bf_job {
    bf_launch_fn run;
    void *arg; /* for run, poison and check */
    cudaError_t (*poison)(void *arg);
    int (*check)(void *arg, char *why, size_t len);
};

/* How the family's variants run: one function each for all; run and check
 * are told which variant (a check may hold each to its own bound). */
struct bf_variant_job {
    cudaError_t (*run)(void *arg, int variant, cudaStream_t stream);
    void *arg;
    cudaError_t (*poison)(void *arg);
    int (*check)(void *arg, int variant, char *why, size_t len);
};

#define BF_BENCH_MAX 16 /* contenders a case */

/* What a contender is to its case, as it was registered (bf_bench_ceiling,
 * bf_bench_vendor, bf_bench_comparator, bf_bench_variants); the table's
 * column `role` names it (bf_role_names). */
enum bf_role { BF_ROLE_CEILING, BF_ROLE_VENDOR, BF_ROLE_COMPARATOR, BF_ROLE_VARIANT, BF_ROLES };

/* "ceiling", "vendor", "comparator", "variant". */
extern const char *const bf_role_names[BF_ROLES];

/* One case of a family's bench (a type and a size): a suite names what it
 * times, in any order, then bf_bench_end times them all and adds their rows:
 *
 *     struct bf_bench b;
 *     bf_bench_begin(&b, &foo_family, mask, type, size, ctx, table);
 *     bf_bench_ceiling(&b, "copy (ceiling)", 0, 2.0 * bytes, copy_job);
 *     bf_bench_vendor(&b, "cub::DeviceReduce::Sum", 0, bytes, cub_job);
 *     bf_bench_variants(&b, bytes, variant_job);
 *     return bf_bench_end(&b, bytes, warm);
 *
 * Every contender is checked once (poisoned, run, checked) before any is
 * timed; then they are timed in turns, a batch of reps of each. A contender's `bytes` are what one
 * run reads and writes, for its rate (FLOPs where the family's rate_unit says GFLOP/s). `path`
 * groups a ceiling with the variants it bounds (struct bf_variant's path): 0 unless a family's
 * variants take paths with ceilings of their own (gemm_tile: mma.sync, wgmma). The struct is the
 * builder's own: fill it only through these calls. */
struct bf_bench {
    const struct bf_family *family;
    unsigned mask;
    int type;
    const struct bf_size *size;
    const struct bf_bench_ctx *ctx;
    struct bf_table *table;
    int n, vendor;
    struct bf_bench_contender {
        const char *name;
        enum bf_role role;
        int variant; /* the family's variant (role BF_ROLE_VARIANT), else -1 */
        int path;
        double bytes;
        struct bf_job job;
        struct bf_variant_job variant_job; /* a variant's */
        struct bf_timing time;
        int wrong;
    } c[BF_BENCH_MAX];
};

/* What the bench recorded of one row of its table as it added it, beside the
 * row's cells (bf_table_kept): the numbers the summary is computed from.
 * Each number is its cell's value as the table prints it (median_ms to 4
 * decimals, noise_pct to 2, rate to 1, of_ceiling and vs_vendor to 3, ways
 * to 2): the summary computed from them is the one the printed table, or
 * its JSON, gives. */
struct bf_bench_row {
    const char *family, *type; /* the family's own strings */
    char size[64];             /* as the column `size` writes it */
    char name[128];            /* the contender's, without " (WRONG)" */
    enum bf_role role;
    int conflicting; /* the family's conflicting variant (struct bf_family's conflicting) */
    int wrong;       /* its output did not check out: no variant to the summary */
    double median_ms, noise_pct;
    double rate;                  /* in `unit` */
    const char *unit;             /* "GB/s", or the family's rate_unit */
    double of_ceiling, vs_vendor; /* NAN: none (no ceiling, no vendor in the case) */
    double ways; /* the model's, the largest of ld, st and atom; 0: no shared-memory site */
};

/* Starts a case: the variants whose bit is set in mask will run. */
void bf_bench_begin(struct bf_bench *b, const struct bf_family *family, unsigned mask, int type,
                    const struct bf_size *size, const struct bf_bench_ctx *ctx,
                    struct bf_table *table);

/* A ceiling: of_ceiling divides by the fastest ceiling of a row's path. */
void bf_bench_ceiling(struct bf_bench *b, const char *name, int path, double bytes,
                      struct bf_job job);

/* The vendor's routine, the one comparator of vs_vendor (at most one a case). */
void bf_bench_vendor(struct bf_bench *b, const char *name, int path, double bytes,
                     struct bf_job job);

/* Another library's routine for the same job, timed beside the vendor's (a
 * row with its own vs_vendor; neither a ceiling nor vs_vendor's divisor),
 * before or after the vendor. */
void bf_bench_comparator(struct bf_bench *b, const char *name, int path, double bytes,
                         struct bf_job job);

/* Every variant of the family that the mask selects, in the family's order. */
void bf_bench_variants(struct bf_bench *b, double bytes, struct bf_variant_job job);

/* Checks and times the case's contenders and adds their rows to the table.
 * L2 is flushed before every repetition when the user asks
 * (ctx->flush_l2), and otherwise, unless `warm`, when `data_bytes` (what one
 * run touches) fits in 4x L2; `warm` = 1 says the family wants the data
 * resident in L2 between repetitions (a deliberate warm-cache size), unless
 * ctx->no_warm (the sweep). The l2 column says which: flushed, cold (not
 * flushed: data >= 4x L2) or warm; every contender of a case, ceilings too,
 * is timed in the same state, in turns (so warm contenders should read the
 * same data: a batch's first rep follows another's). data_bytes is its own
 * column.
 * Rates are bytes / median time in GB/s (GFLOP/s: the family's rate_unit);
 * of_ceiling is a rate over the fastest rate of the ceilings of its path
 * (usually a device-to-device copy), vs_vendor and vs_naive are the times of
 * the vendor and of the family's variant 0 over this one's; smem_*_ways are
 * the bank model's, on the input of ctx->seed. In the counting pass
 * (ctx->counting, --counters) each variant runs once, as it is checked,
 * inside the range ncu profiles (BF_PROFILED) after a marker, and nothing is
 * timed. Returns 0 if every output checked out. */
int bf_bench_end(struct bf_bench *b, double data_bytes, int warm);

/* bf_bench_end's last step, which needs no GPU: adds the case's rows to the
 * table, the i-th contender registered timed as times[i], each row's cells
 * and, kept beside them, its struct bf_bench_row. `l2` is the column l2's
 * text. */
void bf_bench_rows(struct bf_bench *b, const struct bf_timing *times, const char *l2,
                   double data_bytes);

/* The columns of the benchmark table, in the order bf_bench_end fills them,
 * and after them, with ctx->counters, ncu's (--counters). */
extern const char *const bf_bench_columns[];
extern const char *const bf_bench_counter_columns[];

/* The columns of the summary. */
extern const char *const bf_summary_columns[];

/* One row per family, type and size of the recorded rows (in their order):
 * the family's conflicting variant beside its fastest other variant that has
 * shared-memory sites in the model (the best conflict-free one), their
 * rates, that one's of_ceiling and vs_vendor, the speedup (conflicting's
 * time / its time) and the model's ways of both, and `behind`: "vendor"
 * where that variant is slower than the case's vendor row (role
 * BF_ROLE_VENDOR) by more than the larger noise of the two rows,
 * "conflicting" where it is so behind the conflicting variant (empty: ahead
 * or level). A variant whose output was wrong counts for neither; a group
 * without both is left out. Reads nothing but `rows`. */
void bf_bench_summarize(const struct bf_bench_row *rows, int n, struct bf_table *summary);

/* bf_bench_summarize of the rows bf_bench_end recorded in `bench`
 * (bf_table_kept), those of the listed families; a row recorded by nothing
 * (no struct bf_bench_row beside it) is left out. */
void bf_bench_summary(const struct bf_table *bench, const struct bf_family *const *families,
                      int nfamilies, struct bf_table *summary);

#ifdef __cplusplus
}
#endif

#endif
