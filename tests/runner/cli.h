/* The runner's command line. Everything here is checked before any GPU is
 * looked for, so bad input gets its one-line error on any machine. */
#ifndef BANKFREE_CLI_H
#define BANKFREE_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/bank_model.h"
#include "common/registry.h"
#include "common/report.h"
#include "tests/runner/families.h"
#include "tests/runner/type_match.h"

#define BF_MAX_SIZES 32

/* ways: the variables a user may name (lane is one more), and the most warp
 * requests one command replays. */
#define BF_WAYS_MAX_NAMES    15
#define BF_WAYS_MAX_REQUESTS (1u << 20)
/* ways: the most shared memory a block may have on sm_90, 227 KiB. */
#define BF_WAYS_SMEM_BYTES   232448

/* ways: a name the expression may use, --let NAME=VALUE (count 0) or --for
 * NAME=FIRST:END[:STEP] (FIRST, FIRST + STEP, ... short of END: count
 * values). */
struct bf_ways_name {
    char name[32];
    int64_t first, step;
    uint64_t count;
};

enum bf_command {
    BF_CMD_MAIN, /* no command: bench on a GPU, the model without one */
    BF_CMD_HELP,
    BF_CMD_LIST,
    BF_CMD_MODEL,
    BF_CMD_TEST,
    BF_CMD_BENCH,
    BF_CMD_DEVICE,
    BF_CMD_COUNTERS,
    BF_CMD_COMPARE,
    BF_CMD_WAYS,
    BF_COMMANDS
};

struct bf_options {
    enum bf_command command;
    enum bf_command help_for;           /* with BF_CMD_HELP: whose help (MAIN: the overview) */
    unsigned variants[BF_MAX_FAMILIES]; /* per family, a bit per selected variant */
    unsigned types[BF_MAX_FAMILIES];    /* per family, a bit per selected type */
    const char *size_text[BF_MAX_SIZES];
    int nsizes;
    int size_set;          /* an enum bf_size_set, or -1: the command's own */
    int sites;             /* model: every access site, not one row a variant */
    int lanes;             /* model: each site's worst request, a row a lane */
    int flush_l2;          /* flush L2 before every timed repetition */
    int reps;              /* at least this many timed repetitions (0: default) */
    int quick;             /* bench: a first look, each family's first bench size, short timing */
    int counters;          /* bench: ncu's wavefronts of each variant beside the model's */
    const char *json_file; /* bench: also the JSON, to this file */
    int has_seed;
    uint64_t seed;
    int device;       /* CUDA device number, or -1: the current device */
    double mem_limit; /* bytes of GPU memory to assume at most (0: no limit) */
    enum bf_format format;
    const char *files[2];       /* compare: the two runs, A then B */
    int sms;                    /* model: --sms, or 0 (the rules' own) */
    int gpu_cc, gpu_sms;        /* model: --gpu's compute capability and SMs, or 0 */
    struct bf_bank_rules rules; /* model, ways: a copy of the rules --rules names, --sms applied */
    /* ways */
    const char *expr;
    struct bf_ways_name names[BF_WAYS_MAX_NAMES]; /* --let and --for, as given */
    int nnames;
    uint64_t requests; /* the product of the --for counts */
    int elem; /* --elem: EXPR is an index of elements of this many bytes (0: a byte address) */
    struct bf_access access;
    int active_lanes; /* --lanes N: lanes 0 to N - 1 */
    int fix;          /* --fix: try padding and swizzles on a conflicting EXPR */
    int wide;         /* list: every column whole, not cut to 100 columns */
};

/* The source revision, written at build time (revision.c). */
extern const char *const bf_revision;

/* Parses argv, and the environment variable BANKFREE_MEM_LIMIT. Returns 0, or
 * -1 with one line of why. */
int bf_parse_options(int argc, char **argv, struct bf_options *o, char *why, size_t len);

/* The sizes to run family f at: those given with --size that have f's number
 * of dimensions (each once), else the size list the options name. Returns
 * how many, or -1 with why (a size that does not parse, or one that f's API
 * refuses for every selected variant and type). */
int bf_family_sizes(const struct bf_options *o, const struct bf_family *f,
                    struct bf_size out[BF_MAX_SIZES], char *why, size_t len);

/* Why family f's C API refuses variant v, type `type` at `size` (its
 * refuses hook); NULL: it runs. */
const char *bf_refuses(const struct bf_family *f, int v, int type, const struct bf_size *size);

/* Every registered family within the runner's limits (names, counts, size
 * lists, hooks). Returns 0, or -1 with one line of why. */
int bf_check_families(char *why, size_t len);

/* The help of a command, or the overview for BF_CMD_MAIN. */
void bf_print_help(FILE *f, enum bf_command command);

#endif
