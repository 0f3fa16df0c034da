/* The variant catalogue: what a family gives the runner. Each family fills one
 * struct bf_family (in <family>_suite.c); the runner lists, models, tests,
 * profiles and benchmarks through it and knows nothing else of the family. */
#ifndef BANKFREE_REGISTRY_H
#define BANKFREE_REGISTRY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/bank_model.h"
#include "common/counters.h"
#include "common/device.h"
#include "common/report.h"
#include "common/size.h"
#include "common/timing.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BF_MAX_TYPES 8

/* The size lists a family gives: `test` every edge case, `quick` a few of them
 * for the sanitizers (which run kernels 10-100x slower), `bench` the timed
 * sizes, `hw` the sizes ncu profiles: sizes whose blocks all run in one wave,
 * and one with more work than a wave (many waves, or many tiles a block);
 * `sweep` a geometric series from launch-bound to far past L2, for the bench
 * (bankfree bench --sizes sweep: every point L2-flushed or cold, short
 * timing caps). */
enum bf_size_set {
    BF_SIZES_TEST,
    BF_SIZES_QUICK,
    BF_SIZES_BENCH,
    BF_SIZES_HW,
    BF_SIZES_SWEEP,
    BF_SIZE_SETS
};

/* "test", "quick", "bench", "hw", "sweep". */
extern const char *const bf_size_set_names[BF_SIZE_SETS];

struct bf_variant {
    const char *name;    /* as typed after the family: transpose/padded */
    const char *summary; /* one line: the layout and what it costs */
};

/* What a benchmark run is given. */
struct bf_bench_ctx {
    const struct bf_device *dev;
    struct bf_timing_opts timing;
    int flush_l2; /* 1: always flush L2; 0: only when the data fits in 4x L2 and the
                   * family does not want it warm (bf_bench_end's `warm`) */
    int no_warm;  /* 1: never warm, whatever the family asks (the sweep: every point
                   * as a kernel meets new data) */
    uint64_t seed;
    /* --counters: ncu's counts to print beside the model's (NULL: none); in
     * the counting pass, the list of variants run (NULL: a timed run). */
    const struct bf_counters *counters;
    FILE *counting;
};

/* An array field of struct bf_family and its count, from one static array:
 * BF_ARRAY(types, types) sets .types and .ntypes. */
#define BF_ARRAY(field, array) .field = (array), .n##field = (int)(sizeof(array) / sizeof *(array))

/* A size list of struct bf_family: BF_SIZES(BF_SIZES_TEST, test_sizes). */
#define BF_SIZES(set, array)                                                                       \
    .sizes[set] = (array), .nsizes[set] = (int)(sizeof(array) / sizeof *(array))

/* Everything the runner knows of a family. Its kernels may have any name:
 * ncu profiles the launches its test and bench make inside BF_PROFILED
 * (common/counters.h), and nothing else. */
struct bf_family {
    const char *name;
    const char *summary;
    const struct bf_variant *variants;
    int nvariants;
    /* The element types (or modes) every variant runs on, e.g. "f32", "i32";
     * the hooks below take an index into this list. */
    const char *const *types;
    int ntypes;
    int model_types_alike; /* 1: every type makes the same shared accesses; the
                            * model table shows them on one row */
    int ndims;             /* dimensions of a size */
    int min_dim;           /* smallest a dimension may be: 1, or 0 where empty input is valid */
    const char *size_form; /* how a size is written, for --help and errors: "ROWSxCOLS" */
    /* The bench's rate unit: NULL for GB/s (a contender's .bytes are the bytes
     * one run reads and writes); "GFLOP/s" where .bytes counts FLOPs. */
    const char *rate_unit;
    /* The variant with the bank conflict the others remove: the summary's
     * "before" (0 unless set). */
    int conflicting;
    /* Each variant's path, the bench's ceilings it is held to (struct
     * bf_bench), where the variants take paths of their own (gemm_tile:
     * mma.sync, wgmma); NULL: all 0. */
    const int *paths;
    const struct bf_size *sizes[BF_SIZE_SETS];
    int nsizes[BF_SIZE_SETS];
    /* The types the sweep runs when no --type is given, a bit per type (0:
     * all): the inputs that tell the variants apart, not every one. */
    unsigned sweep_types;
    /* For each size of the bench list, the types that run it when the list
     * is run (a bit per type; NULL: every type runs every size): a family
     * whose types differ in bytes picks each type's sizes (--size runs any
     * size on every selected type). */
    const unsigned *bench_types;

    /* GPU memory, in bytes, that `test` needs for one case of this type and
     * size, and that `bench` needs (its comparators' buffers too; the runner
     * adds the L2 flush buffer). A case that does not fit is skipped. */
    double (*test_bytes)(int type, const struct bf_size *size);
    double (*bench_bytes)(int type, const struct bf_size *size);

    /* The shared-memory access sites of one launch, replayed through the model
     * under `rules`; returns the number of sites (0 for no shared memory).
     * `seed` is the seed of the input the model replays: a data-dependent
     * family (a histogram's bins) replays the same input that `test` or
     * `bench` generates from that seed; the others ignore it. */
    int (*model)(int variant, int type, const struct bf_size *size, uint64_t seed,
                 const struct bf_bank_rules *rules, struct bf_site sites[BF_MAX_SITES]);

    /* Why variant `variant` cannot run (NULL: it can): code this build lacks,
     * or a GPU it does not run on, `dev` (NULL: no GPU at hand; then only what
     * the build lacks). list shows it; test and bench skip the variant with
     * it. A NULL hook: every variant runs wherever the build does. */
    const char *(*unavailable)(int variant, const struct bf_device *dev);

    /* Why the family's C API refuses a launch of `variant` on `type` at
     * `size` (its launcher returns cudaErrorInvalidValue and launches
     * nothing), in a few words: "K not a multiple of 8"; NULL: it runs. The
     * runner refuses a --size that no selected variant and type runs (one
     * line, exit 2), model says why in the row of each it refuses, test
     * checks that the launcher refuses it, bench skips it. The suite's own
     * test asks this hook too, so one rule decides. A NULL hook: every size
     * that parses runs. */
    const char *(*refuses)(int variant, int type, const struct bf_size *size);

    /* Runs the variant once on fresh inputs from `seed`, output poisoned first,
     * and checks every output element. Returns 0 if right; else writes why.
     * The launch itself goes inside BF_PROFILED (common/counters.h): what the
     * hw test profiles. */
    int (*test)(int variant, int type, const struct bf_size *size, uint64_t seed, char *why,
                size_t len);

    /* Times the variants whose bit is set in `mask`, and the family's
     * comparators, on one type and size; adds a row to `table` for each.
     * Returns 0 if every output checked out. */
    int (*bench)(unsigned mask, int type, const struct bf_size *size,
                 const struct bf_bench_ctx *ctx, struct bf_table *table);
};

/* Parses "8192x8192" into a size of the family's dimensions, each a whole
 * number from the family's min_dim to 2^40, at most 2^48 elements in all (so
 * the model's 64-bit counts cannot overflow; a size the GPU cannot hold is
 * the runner's to skip); on error returns -1 and writes one line of why into
 * `why`. */
int bf_size_parse(const char *text, const struct bf_family *family, struct bf_size *out, char *why,
                  size_t len);

/* Dimensions a size is written with: "8192x8192" has 2. */
int bf_size_ndims(const char *text);

/* "8192x8192". */
void bf_size_format(const struct bf_size *size, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
