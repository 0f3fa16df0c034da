/* Shared-memory wavefronts measured on the GPU, for the bench (`--counters`):
 * the bench runs itself again under Nsight Compute (ncu), with the same
 * options and seed, so the same inputs; in that pass each variant runs once,
 * the launch the bench times, after a marker kernel that tells ncu's rows
 * of one variant from the next. ncu reads the SASS wavefront counters (exact:
 * docs/bank-rules.md) and the data pipe's beside them. */
#ifndef BANKFREE_COUNTERS_H
#define BANKFREE_COUNTERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ncu's counters read, in this order. SASS: loads, stores, atomics (red.shared
 * too), ldmatrix, cp.async; the data pipe: loads (ldmatrix included), stores,
 * atomics; wgmma's operand reads, SASS and pipe. */
enum bf_counter {
    BF_SASS_LD,
    BF_SASS_ST,
    BF_SASS_ATOM,
    BF_SASS_LDSM,
    BF_SASS_LDGSTS,
    BF_PIPE_LD,
    BF_PIPE_ST,
    BF_PIPE_ATOM,
    BF_SASS_GMMA,
    BF_PIPE_GMMA,
    BF_COUNTERS
};
extern const char *const bf_counter_metric[BF_COUNTERS]; /* ncu's metric names */

/* One variant's counts, summed over the kernels of its run. */
struct bf_counted {
    char family[32], type[32], size[64], variant[64];
    double value[BF_COUNTERS];
};

struct bf_counters {
    int n;
    struct bf_counted *row;
};

/* The environment variable that puts the bench into the counting pass: its
 * value is the file where the pass lists, a line each, the variants it ran
 * ("family\ttype\tsize\tvariant"), in the order of their markers. The seed
 * comes in BF_COUNTERS_SEED_ENV. */
#define BF_COUNTERS_ENV      "BANKFREE_COUNTERS_PASS"
#define BF_COUNTERS_SEED_ENV "BANKFREE_COUNTERS_SEED"
/* The list line of a marker that closes a case: what follows it, up to the
 * next marker, is no variant's (the next case's set-up). */
#define BF_COUNTERS_NONE     "-\t-\t-\t-"

/* ncu's path: $BANKFREE_NCU, else ncu on PATH, else /usr/local/cuda/bin/ncu;
 * NULL if none is an executable file. */
const char *bf_ncu_path(char *buf, size_t len);

/* Runs this program (argv as given to main) again under ncu, profiling the
 * kernels whose names start with one of `prefixes` (family names, each with
 * "_" after it), and reads its counts. Returns 0, or -1 with one line of why. */
int bf_counters_measure(const char *ncu, int argc, char **argv, const char *const *prefixes,
                        int nprefixes, uint64_t seed, struct bf_counters *out, char *why,
                        size_t len);

/* Reads ncu's CSV log (--csv --log-file) and the pass's list (pure C):
 * the rows after each marker kernel are summed into the next listed variant.
 * Returns 0, or -1 with one line of why. */
int bf_counters_parse(FILE *log, FILE *list, struct bf_counters *out, char *why, size_t len);

/* The counts of a variant, or NULL. */
const struct bf_counted *bf_counters_find(const struct bf_counters *c, const char *family,
                                          const char *type, const char *size, const char *variant);

void bf_counters_free(struct bf_counters *c);

/* In the pass: the marker before a variant's run (a kernel named
 * bankfree_counters_mark). */
cudaError_t bf_counters_mark(cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
