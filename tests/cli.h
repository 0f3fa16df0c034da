/* The runner's command line. Everything here is checked before any GPU is
 * looked for, so bad input gets its one-line error on any machine. */
#ifndef BANKFREE_CLI_H
#define BANKFREE_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "common/bank_model.h"
#include "common/registry.h"
#include "common/report.h"
#include "tests/families.h"

#define BF_MAX_SIZES 32

enum bf_command {
    BF_CMD_MAIN,
    BF_CMD_HELP,
    BF_CMD_LIST,
    BF_CMD_MODEL,
    BF_CMD_TEST,
    BF_CMD_BENCH,
    BF_CMD_DEVICE
};

struct bf_options {
    enum bf_command command;
    unsigned variants[BF_MAX_FAMILIES]; /* per family, a bit per selected variant */
    unsigned types[BF_MAX_FAMILIES];    /* per family, a bit per selected type */
    const char *size_text[BF_MAX_SIZES];
    int nsizes;
    int quick;    /* the short size list */
    int flush_l2; /* flush L2 before every timed repetition */
    int reps;     /* at least this many timed repetitions (0: default) */
    int has_seed;
    uint64_t seed;
    enum bf_format format;
    const struct bf_bank_rules *rules;
};

/* Parses argv. Returns 0, or -1 with one line of why. */
int bf_parse_options(int argc, char **argv, struct bf_options *o, char *why, size_t len);

/* The sizes to run family f at: those given with --size that have f's number
 * of dimensions, else its quick or default list. Returns how many, or -1 with
 * why (a size that does not parse, or one too large for any GPU). */
int bf_family_sizes(const struct bf_options *o, const struct bf_family *f,
                    struct bf_size out[BF_MAX_SIZES], char *why, size_t len);

/* The largest run any GPU could hold: 1 TiB. */
#define BF_MAX_DEVICE_BYTES 1099511627776.0

extern const char bf_usage[];

#endif
