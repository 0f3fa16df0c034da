/* The variant catalogue: what a family gives the runner. Each family fills one
 * struct bf_family (in <family>_suite.c); the runner lists, models, tests,
 * profiles and benchmarks through it and knows nothing else of the family. */
#ifndef BANKFREE_REGISTRY_H
#define BANKFREE_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#include "common/bank_model.h"
#include "common/device.h"
#include "common/report.h"
#include "common/timing.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BF_MAX_DIMS  3
#define BF_MAX_SITES 32
#define BF_MAX_TYPES 8

/* A problem size: "8192x8192" is {2, {8192, 8192}}. */
struct bf_size {
    int ndims;
    int64_t dim[BF_MAX_DIMS];
};

struct bf_variant {
    const char *name;    /* as typed after the family: transpose/padded */
    const char *summary; /* one line: the layout and what it costs */
};

/* What a benchmark run is given. */
struct bf_bench_ctx {
    const struct bf_device *dev;
    struct bf_timing_opts timing;
    int flush_l2; /* 1: always flush L2; 0: only when the data fits in 4x L2 */
    uint64_t seed;
};

/* An array field of struct bf_family and its count, from one static array:
 * BF_ARRAY(test_sizes, sizes) sets .test_sizes and .ntest_sizes. */
#define BF_ARRAY(field, array) .field = (array), .n##field = (int)(sizeof(array) / sizeof *(array))

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
    const char *size_form; /* e.g. "ROWSxCOLS" */
    const struct bf_size *test_sizes, *quick_sizes, *bench_sizes;
    int ntest_sizes, nquick_sizes, nbench_sizes;

    /* GPU memory a run of this size needs, in bytes. */
    double (*device_bytes)(const struct bf_size *size);

    /* The shared-memory access sites of one launch, replayed through the model
     * under `rules`; returns the number of sites (0 for no shared memory). */
    int (*model)(int variant, int type, const struct bf_size *size,
                 const struct bf_bank_rules *rules, struct bf_site sites[BF_MAX_SITES]);

    /* Runs the variant once on fresh inputs from `seed`, output poisoned first,
     * and checks every output element. Returns 0 if right; else writes why. */
    int (*test)(int variant, int type, const struct bf_size *size, uint64_t seed, char *why,
                size_t len);

    /* Times the variants whose bit is set in `mask`, and the family's
     * comparators, on one type and size; adds a row to `table` for each.
     * Returns 0 if every output checked out. */
    int (*bench)(unsigned mask, int type, const struct bf_size *size,
                 const struct bf_bench_ctx *ctx, struct bf_table *table);
};

/* Parses "8192x8192" into a size of ndims dimensions, each >= min_dim; on
 * error returns -1 and writes one line of why into `why`. */
int bf_size_parse(const char *text, int ndims, int min_dim, struct bf_size *out, char *why,
                  size_t len);

/* "8192x8192". */
void bf_size_format(const struct bf_size *size, char *buf, size_t len);

/* Elements of the size (product of its dimensions). */
int64_t bf_size_elements(const struct bf_size *size);

#ifdef __cplusplus
}
#endif

#endif
