/* Shared-memory wavefronts measured on the GPU, for the bench (`--counters`):
 * the bench runs itself again under Nsight Compute (ncu), with the same
 * options and seed, so the same inputs; in that pass each variant runs once,
 * the launch the bench times, inside the NVTX range ncu profiles and after a
 * marker kernel that tells ncu's rows of one variant from the next: a
 * variant's kernels may have any name. ncu reads the SASS wavefront counters
 * (exact: docs/bank-rules.md) and the data pipe's beside them. */
#ifndef BANKFREE_COUNTERS_H
#define BANKFREE_COUNTERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cuda_runtime_api.h>

#include "common/bank_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What ncu counts of each of the model's ops: the one map, read by the
 * bench's --counters and by tests/hw_check.sh (through `bankfree counters`).
 * The SASS counters are exact (docs/bank-rules.md); the data pipe's, where an
 * op has one, is printed beside them. ncu refuses the whole run when asked
 * for a metric the GPU lacks, so each op says which GPUs have its counters. */
struct bf_op_counter {
    const char *ncu_op; /* ncu's name of the op (_op_NAME); NULL: no counter sees it (ldc) */
    const char *sass;   /* the SASS counter the model is held to */
    const char *pipe;   /* the data pipe's counter, or NULL (ldmatrix: the pipe books it as ld) */
    int by_requests;    /* 1: held by the model's requests (tma: instructions), not wavefronts */
    int min_cc, max_cc; /* the compute capabilities (10 x major + minor) whose ncu has both
                         * counters: min_cc to max_cc, or up from min_cc where max_cc is 0 */
};
extern const struct bf_op_counter bf_op_counters[BF_OPS]; /* by enum bf_op */

/* Whether ncu counts `op` on a GPU of compute capability cc (10 x major +
 * minor: 89): it has a counter and the GPU has it. */
int bf_op_counted(enum bf_op op, int cc);

/* The metrics to ask ncu for on a GPU of compute capability cc: every
 * counter of the map the GPU has, comma-separated. Returns 0, or -1 when
 * they do not fit in len. */
int bf_counters_metrics(int cc, char *buf, size_t len);

/* What ncu's output says of a run, in the order that one explains the next:
 * a failure is explained by a metric the GPU lacks, and anything by ncu
 * not being able to read the counters here at all. */
enum bf_ncu_verdict {
    BF_NCU_OK,           /* nothing said against the run */
    BF_NCU_FAILED,       /* ncu or the program under it failed */
    BF_NCU_NO_METRIC,    /* a metric this GPU's ncu does not know */
    BF_NCU_BUSY,         /* another tool (DCGM) holds the counters: ncu cannot profile now */
    BF_NCU_NO_PERMISSION /* ERR_NVGPUCTRPERM: the driver lets only administrators profile */
};

/* The one line for BF_NCU_NO_PERMISSION: how to allow it (tests/lib.sh says
 * the same). */
#define BF_NCU_PERMISSION_HELP                                                                     \
    "ncu may not read this GPU's performance counters (ERR_NVGPUCTRPERM: profiling is "            \
    "restricted to administrators): run as root, or set the nvidia module option "                 \
    "NVreg_RestrictProfilingToAdminUsers=0 (a file in /etc/modprobe.d/ with the line "             \
    "'options nvidia NVreg_RestrictProfilingToAdminUsers=0', then reboot); see "                   \
    "https://developer.nvidia.com/ERR_NVGPUCTRPERM"

/* Reads ncu's output (its messages, its log, the program's output: any mix)
 * and says what it shows; `failed` is whether ncu exited non-zero (ncu may
 * exit 0 when it could not profile). In `line`, ncu's line that decided it
 * (BF_NCU_NO_PERMISSION: BF_NCU_PERMISSION_HELP), or for a failure without
 * one the last line read. Of several outputs (ncu's log, its output), the
 * verdict is the largest of theirs. */
enum bf_ncu_verdict bf_ncu_verdict(FILE *output, int failed, char *line, size_t len);

/* One variant's counts by op, summed over the kernels of its run. */
struct bf_counted {
    char family[32], type[32], size[64], variant[64];
    double sass[BF_OPS], pipe[BF_OPS];
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

/* ncu's path: $BANKFREE_NCU, else ncu on PATH, else /usr/local/cuda/bin/ncu;
 * NULL if none is an executable file. */
const char *bf_ncu_path(char *buf, size_t len);

/* Runs this program (argv as given to main) again under ncu, profiling the
 * kernels launched inside BF_PROFILED, and reads the counts of the counters
 * a GPU of compute capability cc has (bf_op_counted). Returns 0; 1 with one
 * line of why when ncu cannot profile here (no permission, the counters
 * busy: the bench runs without them); or -1 with one line of why. */
int bf_counters_measure(const char *ncu, int argc, char **argv, uint64_t seed, int cc,
                        struct bf_counters *out, char *why, size_t len);

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

/* The launches ncu profiles, in the bench's counting pass and under
 * tests/hw_check.sh: BF_PROFILED(call) runs `call` (a launch returning
 * cudaError_t) inside the NVTX range BF_PROFILED_RANGE, which those runs
 * name to ncu (--nvtx --nvtx-include "bankfree/"); the inputs, checks and
 * comparators run outside it and are not profiled. */
#define BF_PROFILED_RANGE "bankfree"
#define BF_PROFILED(call) (bf_profiled_begin(), bf_profiled_end(call))
void bf_profiled_begin(void);
cudaError_t bf_profiled_end(cudaError_t err);

#ifdef __cplusplus
}
#endif

#endif
