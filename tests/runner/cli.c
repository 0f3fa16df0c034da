#include "tests/runner/cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/sm_limits.h"

#define C(command) (1u << (command))
#define SIZED      (C(BF_CMD_MAIN) | C(BF_CMD_MODEL) | C(BF_CMD_TEST) | C(BF_CMD_BENCH))
#define ON_GPU     (C(BF_CMD_MAIN) | C(BF_CMD_TEST) | C(BF_CMD_BENCH))

static const struct command_spec {
    const char *name;
    const char *synopsis;
    const char *what;
    int filtered;         /* takes FAMILY/VARIANT filters */
    const char *examples; /* printed after the options */
} commands[BF_COMMANDS] = {
    [BF_CMD_MAIN] = {"", "bankfree [OPTIONS]",
                     "The benchmark of every family on a GPU; without one, the bank model's\n"
                     "summary. Takes the options of bench (bankfree help bench).\n",
                     0},
    [BF_CMD_HELP] = {"help", "bankfree help [COMMAND]", "The overview, or a command's help.\n", 0},
    [BF_CMD_LIST] = {"list", "bankfree list [FILTER...] [OPTIONS]",
                     "The families and their variants, with the element types each takes (its\n"
                     "API runs it at a size of the test list). A table fits 100 columns, its\n"
                     "summary, types and why-not wrapped; --wide or --format md, csv, json\n"
                     "for each on one line.\n",
                     1},
    [BF_CMD_MODEL] = {"model", "bankfree model [FILTER...] [OPTIONS]",
                      "Shared-memory wavefronts of one launch, from the bank model replaying the\n"
                      "kernels' own index functions (no GPU needed). Without a filter: one row a\n"
                      "variant (load, store and shared-atomic wavefronts / ideal, the worst\n"
                      "site); with a filter or --sites: every access site. A data-dependent\n"
                      "family replays the inputs that test makes from the same --seed.\n",
                      1},
    [BF_CMD_TEST] = {"test", "bankfree test [FILTER...] [OPTIONS]",
                     "Runs each variant on fresh random inputs, output poisoned first, and checks\n"
                     "every element against the CPU reference. A case the GPU has no memory for\n"
                     "is skipped with one line. Exit 0 when every case run passed, 1 when one\n"
                     "failed, 77 when every case was skipped.\n",
                     1},
    [BF_CMD_BENCH] = {"bench", "bankfree bench [FILTER...] [OPTIONS]",
                      "Checks, then times each variant beside the copy ceiling and the vendor\n"
                      "library, in one run.\n",
                      1},
    [BF_CMD_DEVICE] = {"device", "bankfree device [OPTIONS]",
                       "The GPU bankfree would use, and the CUDA versions (exit 77 if none).\n", 0},
    [BF_CMD_COUNTERS] = {"counters", "bankfree counters [OPTIONS]",
                         "Which of ncu's counters sees each of the bank model's ops: the SASS\n"
                         "counter the model is held to (by wavefronts, or TMA by instructions),\n"
                         "and the data pipe's printed beside it. bench --counters and\n"
                         "tests/hw_check.sh read this map (no GPU needed).\n",
                         0},
    [BF_CMD_COMPARE] =
        {"compare", "bankfree compare A.json B.json [OPTIONS]",
         "Two runs of `bankfree bench --format json` (two GPUs, two commits) side\n"
         "by side: per variant and size, B's median time against A's, flagged\n"
         "slower or faster where the change is beyond the larger noise of the two\n"
         "runs and at least 1% (the bench's noise target). Exit 0 when no variant\n"
         "got slower, 1 when one did, 2 when a file cannot be read as a bench run.\n",
         0},
    [BF_CMD_WAYS] =
        {"ways", "bankfree ways EXPR [OPTIONS]",
         "The bank model on your own index expression (no GPU, no family needed):\n"
         "EXPR is the shared-memory byte address a lane touches, a C integer\n"
         "expression on 64-bit signed values in `lane` (0-31) and the names given\n"
         "with --let and --for: + - * / % << >> & | ^ ~ ! ( ), comparisons, && ||\n"
         "and ?:. Each --for value is one warp request (several --for nest, the\n"
         "first outermost); each request is counted by the model that replays the\n"
         "families (bf_site_add), then the total; conflicts = wavefronts - ideal,\n"
         "as ncu's l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_* count them\n"
         "(one 32-way request: 31). With --fix, where a request conflicts: the\n"
         "standard fixes, each rewritten and counted. In a table, a picture of the\n"
         "worst request: banks across, lanes down, in each bank's column the\n"
         "distinct words of a part lettered A, B, C...: k letters = k wavefronts.\n"
         "Quote EXPR for the shell. Bad input (syntax, an unknown name, / or % by\n"
         "0, 64-bit overflow, an address that is negative, past 227 KiB (232448\n"
         "bytes, sm_90's most for a block) or not aligned to its width, more than\n"
         "2^20 requests) gets one line and exit 2; a syntax error, a caret too.\n",
         0,
         "examples (lane = the row a lane reads):\n"
         "  bankfree ways 'lane * 32 * 4'      float t[32][32], a column: 32-way\n"
         "  bankfree ways 'lane * 33 * 4'      float t[32][33], a column: 1 way\n"
         "  bankfree ways --elem 4 'lane * 32 + (c ^ lane)' --for c=0:32\n"
         "      t[32][32] XOR-swizzled (column c of row r at c ^ r): each column 1 way\n"
         "  bankfree ways --elem 2 'lane * 32 + c' --for c=0:32\n"
         "      __half t[32][32], each column: 16-way\n"
         "  bankfree ways --op ldmatrix 'lane % 16 * 128 + lane / 16 * 16'\n"
         "      ldmatrix.x4 of rows of 128 B (lane l gives row l % 16, chunk l / 16):\n"
         "      8-way; chunk (lane / 16 ^ lane % 8), the swizzled tile: 1 way\n"
         "  bankfree ways --op st --elem 4 'lane * 32 + c' --for c=0:32 --fix\n"
         "      float t[32][32] written by column: 992 conflicts (31 a request);\n"
         "      --fix tries 'lane * 33 + c' (128 B of padding) and the XOR\n"
         "      swizzle '(lane * 32 + c) ^ ((lane * 32 + c) >> 5 & 31)' (0 B)\n"
         "  bankfree ways --rules cc1x --elem 4 '16 * lane' --fix\n"
         "      compute 1.x, data[16 * tid]: the fix data[17 * tid]\n"},
};

enum option_id {
    OPT_SIZE,
    OPT_SIZES,
    OPT_TYPE,
    OPT_SITES,
    OPT_LANES,
    OPT_RULES,
    OPT_SMS,
    OPT_GPU,
    OPT_REPS,
    OPT_FLUSH_L2,
    OPT_QUICK,
    OPT_COUNTERS,
    OPT_JSON,
    OPT_SEED,
    OPT_DEVICE,
    OPT_MEM_LIMIT,
    OPT_FORMAT,
    OPT_LET,
    OPT_FOR,
    OPT_ELEM,
    OPT_BYTES,
    OPT_OP,
    OPT_WAYS_LANES,
    OPT_FIX,
    OPT_WIDE,
    OPT_HELP,
    OPTIONS
};

static const struct option_spec {
    const char *name;
    const char *arg; /* NULL: a flag */
    unsigned commands;
    int repeatable;
    const char *help; /* --size's is made from the families */
} options[OPTIONS] = {
    [OPT_SIZE] = {"--size", "S", SIZED, 1, NULL},
    [OPT_SIZES] = {"--sizes", "SET", SIZED, 0,
                   "a size list of each family: test (every edge case; test's\n"
                   "default), quick (a few, for the sanitizers), bench (bench's and\n"
                   "model's default), hw (what ncu profiles: one wave, many waves)\n"
                   "or sweep (bench: launch-bound to far past L2, each family's\n"
                   "telling types, L2 never warm, at most 1 s a row; ~5 min)"},
    [OPT_TYPE] = {"--type", "T", SIZED | C(BF_CMD_LIST), 1,
                  "only type T, e.g. f32 or i32, or the types A-B with A or B equal\n"
                  "to T (u8: u8-uniform, u8-same, ...; same: u8-same, u16-same);\n"
                  "repeat for more (default: every type of each family; bankfree\n"
                  "list shows them)"},
    [OPT_SITES] = {"--sites", NULL, C(BF_CMD_MODEL), 0,
                   "every shared-memory access site, not one row a variant (the\n"
                   "default when a filter is given)"},
    [OPT_LANES] = {"--lanes", NULL, C(BF_CMD_MODEL), 0,
                   "each site's worst request, a row a lane: its address, bank and\n"
                   "the banks it spans (for pictures: tools/plot.py lanes)"},
    [OPT_RULES] = {"--rules", "R", C(BF_CMD_MODEL) | C(BF_CMD_WAYS), 0,
                   "bank rules: sm90 (default, measured on H100), cc1x (16 banks\n"
                   "served per half-warp), kepler8 (the 8-byte banks of 3.x)"},
    [OPT_SMS] = {"--sms", "N", C(BF_CMD_MODEL), 0,
                 "the GPU's SMs, 1 to 1024, for kernels whose grid follows the\n"
                 "GPU (default: the rules' GPU; sm90: 132, an H100 SXM)"},
    [OPT_GPU] = {"--gpu", "G", C(BF_CMD_MODEL), 0,
                 "replay the launches of GPU G: its SMs' limits and code (sm_75\n"
                 "has no cp.async) and, unless --sms, its SM count: t4, a100,\n"
                 "rtx3090, a10, orin, rtx4090, l4, l40, h100 (default), h200,\n"
                 "b200, rtx5090, or sm_NN (75 80 86 87 89 90 100 103 120 121)"},
    [OPT_REPS] = {"--reps", "N", C(BF_CMD_MAIN) | C(BF_CMD_BENCH), 0,
                  "at least N timed repetitions, 1 to 100000 (default 20, then more\n"
                  "until the noise is under 1%, at most 1000 or 2 s)"},
    [OPT_FLUSH_L2] = {"--flush-l2", NULL, C(BF_CMD_MAIN) | C(BF_CMD_BENCH), 0,
                      "flush L2 before every repetition (automatic when the data fits\n"
                      "in 4x L2, but for a family's warm sizes, resident on purpose)"},
    [OPT_QUICK] = {"--quick", NULL, C(BF_CMD_MAIN) | C(BF_CMD_BENCH), 0,
                   "a first look in under a minute: each family's smallest bench\n"
                   "size (its warm, L2-resident one where it has one), at least 5\n"
                   "reps, at most 0.25 s a row, noise under 3%"},
    [OPT_COUNTERS] = {"--counters", NULL, C(BF_CMD_MAIN) | C(BF_CMD_BENCH), 0,
                      "also measure each variant's shared-memory wavefronts with ncu\n"
                      "(Nsight Compute: on PATH, in /usr/local/cuda/bin, or named by\n"
                      "BANKFREE_NCU), on the same launch as timed, same data: SASS and\n"
                      "pipe counters beside the model's (docs/json.md)"},
    [OPT_JSON] = {"--json", "FILE", C(BF_CMD_MAIN) | C(BF_CMD_BENCH), 0,
                  "also write the run as JSON to FILE (what --format json prints)"},
    [OPT_SEED] = {"--seed", "N", ON_GPU | C(BF_CMD_MODEL), 0,
                  "base seed of the random inputs, 0 to 2^64 - 1 (default: from the\n"
                  "clock, test prints it; model's is fixed, so its tables repeat);\n"
                  "model replays the inputs test makes from the same seed and sizes"},
    [OPT_DEVICE] = {"--device", "N", ON_GPU | C(BF_CMD_DEVICE) | C(BF_CMD_LIST), 0,
                    "CUDA device N (default: the current device, so\n"
                    "CUDA_VISIBLE_DEVICES applies)"},
    [OPT_MEM_LIMIT] = {"--mem-limit", "B", ON_GPU | C(BF_CMD_DEVICE), 0,
                       "act as if the GPU had at most B bytes free (suffix K, M, G or T:\n"
                       "powers of 1024); cases needing more are skipped. Default: the\n"
                       "environment variable BANKFREE_MEM_LIMIT, else what is free"},
    [OPT_FORMAT] = {"--format", "F",
                    C(BF_CMD_MAIN) | C(BF_CMD_LIST) | C(BF_CMD_MODEL) | C(BF_CMD_BENCH) |
                        C(BF_CMD_DEVICE) | C(BF_CMD_COUNTERS) | C(BF_CMD_COMPARE) | C(BF_CMD_WAYS),
                    0,
                    "table (default), md, csv (a header row, then rows; the run's\n"
                    "facts go to stderr) or json"},
    [OPT_LET] = {"--let", "NAME=V", C(BF_CMD_WAYS), 1,
                 "a constant the expression may name, a whole number (0x for\n"
                 "hex, - too): --let stride=33; repeat for more"},
    [OPT_FOR] = {"--for", "NAME=A:B[:S]", C(BF_CMD_WAYS), 1,
                 "a request for each NAME from A by S (default 1) short of B,\n"
                 "as Python's range: --for c=0:32; repeat to nest (2^20\n"
                 "requests at most)"},
    [OPT_ELEM] = {"--elem", "B", C(BF_CMD_WAYS), 0,
                  "EXPR is an index of B-byte elements (1, 2, 4, 8, 16): the\n"
                  "address is EXPR * B"},
    [OPT_BYTES] = {"--bytes", "B", C(BF_CMD_WAYS), 0,
                   "bytes a lane accesses: 1, 2, 4, 8 or 16 (default: --elem's,\n"
                   "else 4; ldmatrix: 16, a row)"},
    [OPT_OP] = {"--op", "OP", C(BF_CMD_WAYS), 0,
                "ld (default), st, red (a shared atomic, result unused),\n"
                "ldmatrix (EXPR: the row address each lane gives; .x1, .x2,\n"
                ".x4 by --lanes 8, 16, 32) or ldgsts (cp.async of 4, 8 or 16\n"
                "bytes, served as a store: exact where each 8 lanes copy\n"
                "one aligned global line)"},
    [OPT_WAYS_LANES] = {"--lanes", "N", C(BF_CMD_WAYS), 0,
                        "lanes 0 to N - 1 take part, 1 to 32 (default 32)"},
    [OPT_FIX] = {"--fix", NULL, C(BF_CMD_WAYS), 0,
                 "where a request conflicts, the standard fixes tried on EXPR\n"
                 "and each printed as a rewritten EXPR with its ways, counted\n"
                 "by the same model: a stride (a number or --let multiplied)\n"
                 "padded by 1, 2, 4... of its units, and an XOR swizzle of the\n"
                 "word (or 16-byte chunk) by the row; the cheapest at the ideal\n"
                 "named, with its cost in bytes (padding: rows x pad; swizzle 0)"},
    [OPT_WIDE] = {"--wide", NULL, C(BF_CMD_LIST), 0,
                  "every summary whole (default: the table cut to 100 columns;\n"
                  "--format md, csv or json give everything too)"},
    [OPT_HELP] = {"--help", NULL, ~0u, 1, "this help"},
};

/* Where a command's options are listed: "bankfree help test". The main job
 * takes bench's. */
static const char *help_hint(enum bf_command c)
{
    static char hint[64];
    snprintf(hint, sizeof hint, "bankfree help %s",
             commands[c == BF_CMD_MAIN ? BF_CMD_BENCH : c].name);
    return hint;
}

static void print_option(FILE *f, enum option_id id)
{
    const struct option_spec *s = &options[id];
    char head[32];
    snprintf(head, sizeof head, "%s%s%s", id == OPT_HELP ? "-h, " : "", s->name, s->arg ? " " : "");
    if (s->arg)
        strncat(head, s->arg, sizeof head - strlen(head) - 1);
    if (id != OPT_SIZE) {
        if (strlen(head) > 15) /* too long to share its line: the help under it */
            fprintf(f, "  %s\n%18s", head, "");
        else
            fprintf(f, "  %-16s", head);
        for (const char *line = s->help; *line;) {
            const char *end = strchr(line, '\n');
            int n = end ? (int)(end - line) : (int)strlen(line);
            fprintf(f, "%s%.*s\n", line == s->help ? "" : "                  ", n, line);
            line += n + (end != NULL);
        }
        return;
    }
    /* "problem size: ROWSxCOLS for transpose, N for reduction; repeat for
     * more (...)", wrapped at 80 columns whatever the families. */
    fprintf(f, "  %-16sproblem size:", head);
    int column = 31;
    for (int i = 0; i <= bf_nfamilies; ++i) {
        char item[96];
        if (i < bf_nfamilies)
            snprintf(item, sizeof item, "%s%s for %s%s", i == 0 ? "" : " ",
                     bf_families[i]->size_form, bf_families[i]->name,
                     i + 1 < bf_nfamilies ? "," : ";");
        else
            snprintf(item, sizeof item,
                     " repeat for more (default: the family's list, see --sizes)");
        for (char *word = strtok(item, " "); word != NULL; word = strtok(NULL, " ")) {
            if (column + 1 + (int)strlen(word) > 80) {
                fputs("\n                 ", f);
                column = 17;
            }
            column += fprintf(f, " %s", word);
        }
    }
    fputc('\n', f);
}

void bf_print_help(FILE *f, enum bf_command command)
{
    if (command == BF_CMD_MAIN || command == BF_CMD_HELP) {
        fputs("usage: bankfree [COMMAND] [FILTER...] [OPTIONS]\n"
              "\n"
              "Shared-memory bank conflicts, shown and removed: each family's naive and\n"
              "conflict-free kernels side by side, proved by a bank model, hardware\n"
              "counters and timings.\n"
              "\n"
              "commands:\n"
              "  (none)   bench on a GPU; the bank model's summary without one\n"
              "  list     the families and their variants\n"
              "  model    shared-memory wavefronts from the bank model (no GPU needed)\n"
              "  test     every variant checked against the CPU reference\n"
              "  bench    timings beside the copy ceiling and the vendor library\n"
              "  device   the GPU bankfree sees\n"
              "  counters which of ncu's counters sees each op of the model\n"
              "  compare  two bench runs (JSON) side by side, changes beyond the noise\n"
              "  ways     the bank model on your own index expression: bankfree ways\n"
              "           'lane * 33 * 4' (no GPU needed; bankfree help ways)\n"
              "  help     this, or `bankfree help COMMAND` (or COMMAND --help) for one\n"
              "           command and its options; with no command, bankfree takes\n"
              "           bench's options\n"
              "\n"
              "FILTER: FAMILY or FAMILY/VARIANT, e.g. transpose, transpose/padded (default:\n"
              "every family). Families:",
              f);
        for (int i = 0; i < bf_nfamilies; ++i)
            fprintf(f, " %s", bf_families[i]->name);
        fputs(".\n\nexit codes: 0 ok, 1 a check failed, 2 bad command line, 77 no CUDA GPU\n"
              "(or every case skipped)\n",
              f);
        return;
    }
    const struct command_spec *c = &commands[command];
    fprintf(f, "usage: %s\n\n%s", c->synopsis, c->what);
    if (c->filtered)
        fputs("\nFILTER: FAMILY or FAMILY/VARIANT, e.g. transpose, transpose/padded (default:\n"
              "every family; bankfree list shows them)\n",
              f);
    fputs("\noptions:\n", f);
    for (int id = 0; id < OPTIONS; ++id)
        if (options[id].commands & C(command))
            print_option(f, (enum option_id)id);
    if (c->examples != NULL)
        fprintf(f, "\n%s", c->examples);
}

/* A whole number in [lo, hi], decimal, or hex after 0x (a leading 0 is not
 * octal: --seed 010 is ten). Returns 0, -1 (not one), or -2 (too large). */
static int parse_number(const char *s, unsigned long long lo, unsigned long long hi,
                        unsigned long long *out)
{
    int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    const char *digits = hex ? s + 2 : s;
    if (*digits == '\0' ||
        strspn(digits, hex ? "0123456789abcdefABCDEF" : "0123456789") != strlen(digits))
        return -1;
    errno = 0;
    unsigned long long v = strtoull(digits, NULL, hex ? 16 : 10);
    if (errno == ERANGE || v > hi)
        return -2;
    if (v < lo)
        return -1;
    *out = v;
    return 0;
}

/* A whole number of int64_t: parse_number's, or - and one. */
static int parse_int64(const char *s, int64_t *out)
{
    const int minus = *s == '-';
    unsigned long long v;
    int rc = parse_number(s + minus, 0, minus ? 1ull << 63 : (1ull << 63) - 1, &v);
    if (rc == 0)
        *out = minus ? (int64_t)(0 - v) : (int64_t)v; /* 2^63 wraps to INT64_MIN */
    return rc;
}

/* ways: NAME=REST, a name the expression can use, given once. Returns REST,
 * or NULL with why. */
static const char *new_name(struct bf_options *o, const char *option, const char *v, char *why,
                            size_t len)
{
    const char *eq = strchr(v, '=');
    size_t n = eq ? (size_t)(eq - v) : 0;
    const char *ok = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789";
    if (eq == NULL || n == 0 || n >= sizeof o->names[0].name || strspn(v, ok) < n ||
        (v[0] >= '0' && v[0] <= '9')) {
        bf_fail(why, len, "%s '%s': give NAME=%s, NAME a C name (letters, digits, _)", option, v,
                strcmp(option, "--let") == 0 ? "VALUE" : "FIRST:END[:STEP]");
        return NULL;
    }
    if (n == 4 && strncmp(v, "lane", 4) == 0) {
        bf_fail(why, len, "%s '%s': lane is the lane's number, 0 to 31; name another", option, v);
        return NULL;
    }
    for (int i = 0; i < o->nnames; ++i)
        if (strlen(o->names[i].name) == n && strncmp(o->names[i].name, v, n) == 0) {
            bf_fail(why, len, "%s '%s': %.*s is named twice", option, v, (int)n, v);
            return NULL;
        }
    if (o->nnames == BF_WAYS_MAX_NAMES) {
        bf_fail(why, len, "more than %d names given with --let and --for", BF_WAYS_MAX_NAMES);
        return NULL;
    }
    memcpy(o->names[o->nnames].name, v, n);
    o->names[o->nnames].name[n] = '\0';
    return eq + 1;
}

/* ways: --for's FIRST:END[:STEP], each a whole number, STEP not 0. */
static int parse_range(const char *text, struct bf_ways_name *n, char *why, size_t len)
{
    char buf[100];
    int64_t v[3] = {0, 0, 1};
    int parts = 0, bad = strlen(text) >= sizeof buf;
    snprintf(buf, sizeof buf, "%s", text);
    for (char *at = buf; !bad && at != NULL && parts < 4; ++parts) {
        char *colon = strchr(at, ':');
        if (colon != NULL)
            *colon = '\0';
        bad = parts == 3 || parse_int64(at, &v[parts]) != 0;
        at = colon ? colon + 1 : NULL;
    }
    if (bad || parts < 2 || v[2] == 0)
        return bf_fail(why, len,
                       "--for %s=%s: give FIRST:END or FIRST:END:STEP, whole numbers, STEP not 0",
                       n->name, text);
    const int up = v[2] > 0;
    if (up ? v[1] <= v[0] : v[1] >= v[0])
        return bf_fail(why, len,
                       "--for %s=%s: no values (from %" PRId64 " by %" PRId64
                       " to short of %" PRId64 ")",
                       n->name, text, v[0], v[2], v[1]);
    /* In unsigned 64 bits: END - FIRST may not fit a signed one. */
    const uint64_t span = up ? (uint64_t)v[1] - (uint64_t)v[0] : (uint64_t)v[0] - (uint64_t)v[1];
    const uint64_t step = up ? (uint64_t)v[2] : 0 - (uint64_t)v[2];
    n->first = v[0];
    n->step = v[2];
    n->count = (span - 1) / step + 1;
    return 0;
}

/* ways: --elem's and --bytes' B, a power of two from 1 to 16. */
static int parse_width(const char *option, const char *v, int *out, char *why, size_t len)
{
    unsigned long long n;
    if (parse_number(v, 1, 16, &n) != 0 || (n & (n - 1)) != 0)
        return bf_fail(why, len, "%s '%s': use 1, 2, 4, 8 or 16 (bytes)", option, v);
    *out = (int)n;
    return 0;
}

/* A byte count: a whole number, with an optional K, M, G or T (powers of 1024). */
static int parse_bytes(const char *s, double *out)
{
    char *end;
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    const char *units = "KMGT", *u = *end ? strchr(units, *end) : NULL;
    if (errno == ERANGE || v == 0 || (*end && (u == NULL || end[1] != '\0')))
        return -1;
    *out = (double)v;
    for (const char *k = units; u != NULL && k <= u; ++k)
        *out *= 1024.0;
    return 0;
}

/* A bit for each of n variants or types (n <= 32). */
static unsigned all_of(int n)
{
    return n >= 32 ? ~0u : (1u << n) - 1u;
}

static int select_filter(struct bf_options *o, const char *arg, char *why, size_t len)
{
    const char *slash = strchr(arg, '/');
    size_t flen = slash ? (size_t)(slash - arg) : strlen(arg);
    for (int f = 0; f < bf_nfamilies; ++f) {
        const struct bf_family *fam = bf_families[f];
        if (strlen(fam->name) != flen || strncmp(fam->name, arg, flen) != 0)
            continue;
        if (slash == NULL) {
            o->variants[f] = all_of(fam->nvariants);
            return 0;
        }
        for (int v = 0; v < fam->nvariants; ++v)
            if (strcmp(fam->variants[v].name, slash + 1) == 0) {
                o->variants[f] |= 1u << v;
                return 0;
            }
        return bf_fail(why, len, "unknown variant '%s' (bankfree list shows them)", arg);
    }
    return bf_fail(why, len, "unknown family '%s' (bankfree list shows them)", arg);
}

static int command_of(const char *name)
{
    for (int c = 1; c < BF_COMMANDS; ++c)
        if (strcmp(name, commands[c].name) == 0)
            return c;
    return -1;
}

/* --gpu: GPUs by name (the SMs of that part) or by architecture (sm_89:
 * the SMs of the first part listed with it, else an H100's 132). */
static const struct {
    const char *name;
    int cc, sms;
} gpus[] = {
    {"t4", 75, 40},    {"a100", 80, 108},    {"rtx3090", 86, 82}, {"a10", 86, 72},
    {"orin", 87, 16},  {"rtx4090", 89, 128}, {"l4", 89, 58},      {"l40", 89, 142},
    {"h100", 90, 132}, {"h200", 90, 132},    {"b200", 100, 148},  {"rtx5090", 120, 170},
};

static int gpu_profile(const char *v, int *cc, int *sms)
{
    int arch = -1;
    if (strncmp(v, "sm_", 3) == 0 && v[3] >= '1' && v[3] <= '9') {
        char *end;
        arch = (int)strtol(v + 3, &end, 10);
        if (*end != '\0')
            return -1;
    }
    for (size_t i = 0; i < sizeof gpus / sizeof *gpus; ++i)
        if (arch == gpus[i].cc || (arch < 0 && strcmp(v, gpus[i].name) == 0)) {
            *cc = gpus[i].cc;
            *sms = gpus[i].sms;
            return 0;
        }
    if (arch < 0 || bf_sm_limits_of(arch).threads == 0)
        return -1;
    *cc = arch;
    *sms = 132;
    return 0;
}

/* Applies one option and its value (NULL for a flag). */
static int apply_option(struct bf_options *o, enum option_id id, const char *v,
                        const char **type_text, int *ntypes, char *why, size_t len)
{
    unsigned long long n;
    int rc;
    switch (id) {
    case OPT_SIZE:
        if (o->nsizes == BF_MAX_SIZES)
            return bf_fail(why, len, "too many sizes (at most %d)", BF_MAX_SIZES);
        o->size_text[o->nsizes++] = v;
        return 0;
    case OPT_SIZES:
        for (int s = 0; s < BF_SIZE_SETS; ++s)
            if (strcmp(v, bf_size_set_names[s]) == 0) {
                o->size_set = s;
                return 0;
            }
        return bf_fail(why, len, "--sizes '%s': use test, quick, bench, hw or sweep", v);
    case OPT_TYPE:
        for (int k = 0; k < *ntypes; ++k)
            if (strcmp(type_text[k], v) == 0)
                return 0; /* named twice: once */
        if (*ntypes == BF_MAX_TYPES)
            return bf_fail(why, len, "too many types (at most %d)", BF_MAX_TYPES);
        type_text[(*ntypes)++] = v;
        return 0;
    case OPT_SITES:
        o->sites = 1;
        return 0;
    case OPT_LANES:
        o->lanes = 1;
        return 0;
    case OPT_RULES:
        if (strcmp(v, "sm90") == 0)
            o->rules = bf_rules_sm90;
        else if (strcmp(v, "cc1x") == 0)
            o->rules = bf_rules_cc1x;
        else if (strcmp(v, "kepler8") == 0)
            o->rules = bf_rules_kepler8;
        else
            return bf_fail(why, len, "--rules '%s': use sm90, cc1x or kepler8", v);
        return 0;
    case OPT_SMS:
        if (parse_number(v, 1, 1024, &n) != 0)
            return bf_fail(why, len, "--sms '%s': give a number of SMs from 1 to 1024", v);
        o->sms = (int)n;
        return 0;
    case OPT_GPU:
        if (gpu_profile(v, &o->gpu_cc, &o->gpu_sms) != 0)
            return bf_fail(why, len,
                           "--gpu '%s': give t4, a100, rtx3090, a10, orin, rtx4090, l4, l40, h100, "
                           "h200, b200, rtx5090 or sm_NN (bankfree help model)",
                           v);
        return 0;
    case OPT_REPS:
        if (parse_number(v, 1, 100000, &n) != 0)
            return bf_fail(why, len, "--reps '%s': give a whole number from 1 to 100000", v);
        o->reps = (int)n;
        return 0;
    case OPT_FLUSH_L2:
        o->flush_l2 = 1;
        return 0;
    case OPT_QUICK:
        o->quick = 1;
        return 0;
    case OPT_COUNTERS:
        o->counters = 1;
        return 0;
    case OPT_JSON:
        if (*v == '\0')
            return bf_fail(why, len, "--json needs a file name");
        o->json_file = v;
        return 0;
    case OPT_SEED:
        rc = parse_number(v, 0, ~0ull, &n);
        if (rc == -2)
            return bf_fail(why, len, "--seed '%s': larger than 2^64 - 1", v);
        if (rc != 0)
            return bf_fail(why, len, "--seed '%s': give a whole number from 0 to 2^64 - 1", v);
        o->seed = n;
        o->has_seed = 1;
        return 0;
    case OPT_DEVICE:
        if (parse_number(v, 0, 1023, &n) != 0)
            return bf_fail(why, len, "--device '%s': give a device number, 0 to 1023", v);
        o->device = (int)n;
        return 0;
    case OPT_MEM_LIMIT:
        if (parse_bytes(v, &o->mem_limit) != 0)
            return bf_fail(why, len, "--mem-limit '%s': give bytes, like 17179869184 or 16G", v);
        return 0;
    case OPT_FORMAT:
        if (bf_format_parse(v, &o->format) != 0)
            return bf_fail(why, len, "--format '%s': use table, md, csv or json", v);
        return 0;
    case OPT_LET: {
        const char *value = new_name(o, "--let", v, why, len);
        if (value == NULL)
            return -1;
        struct bf_ways_name *n = &o->names[o->nnames];
        rc = parse_int64(value, &n->first);
        if (rc != 0)
            return bf_fail(why, len, "--let %s: %s", v,
                           rc == -2 ? "past 64 bits" : "give a whole number (0x for hex)");
        n->count = 0;
        ++o->nnames;
        return 0;
    }
    case OPT_FOR: {
        const char *range = new_name(o, "--for", v, why, len);
        if (range == NULL || parse_range(range, &o->names[o->nnames], why, len) != 0)
            return -1;
        ++o->nnames;
        return 0;
    }
    case OPT_ELEM:
        return parse_width("--elem", v, &o->elem, why, len);
    case OPT_BYTES:
        return parse_width("--bytes", v, &o->access.bytes, why, len);
    case OPT_OP: {
        static const enum bf_op ops[] = {BF_LOAD, BF_STORE, BF_RED, BF_LDMATRIX, BF_CP_ASYNC};
        for (size_t i = 0; i < sizeof ops / sizeof *ops; ++i)
            if (strcmp(v, bf_op_name(ops[i])) == 0) {
                o->access.op = ops[i];
                return 0;
            }
        return bf_fail(why, len, "--op '%s': use ld, st, red, ldmatrix or ldgsts", v);
    }
    case OPT_WAYS_LANES:
        if (parse_number(v, 1, 32, &n) != 0)
            return bf_fail(why, len, "--lanes '%s': give a number of lanes from 1 to 32", v);
        o->active_lanes = (int)n;
        return 0;
    case OPT_FIX:
        o->fix = 1;
        return 0;
    case OPT_WIDE:
        o->wide = 1;
        return 0;
    case OPT_HELP:
    case OPTIONS:
        break;
    }
    return 0;
}

/* ways: the access from --op, --bytes and --elem, the lanes, and the
 * requests the loops make, each checked against the others. */
static int ways_options(struct bf_options *o, char *why, size_t len)
{
    if (o->expr == NULL)
        return bf_fail(why, len,
                       "ways needs an expression, like: bankfree ways 'lane * 33 * 4' "
                       "(bankfree help ways)");
    struct bf_access *a = &o->access;
    const int given = a->bytes;
    if (a->bytes == 0)
        a->bytes = a->op == BF_LDMATRIX ? 16 : o->elem ? o->elem : 4;
    if (o->active_lanes == 0)
        o->active_lanes = BF_WARP;
    if (a->op == BF_LDMATRIX) {
        if (a->bytes != 16)
            return bf_fail(why, len, "--op ldmatrix: each lane gives a 16-byte row, not --bytes %d",
                           given);
        if (o->active_lanes % 8 != 0 || o->active_lanes == 24)
            return bf_fail(why, len, "--op ldmatrix: --lanes 8, 16 or 32 (.x1, .x2, .x4), not %d",
                           o->active_lanes);
        a->matrices = o->active_lanes / 8;
    }
    if (a->op == BF_CP_ASYNC && a->bytes < 4)
        return bf_fail(why, len, "--op ldgsts: cp.async copies 4, 8 or 16 bytes, not %d", a->bytes);
    o->requests = 1;
    for (int i = 0; i < o->nnames; ++i)
        if (o->names[i].count > 0) {
            if (o->names[i].count > BF_WAYS_MAX_REQUESTS ||
                o->requests * o->names[i].count > BF_WAYS_MAX_REQUESTS)
                return bf_fail(why, len, "the --for loops make more than 2^20 (%u) requests",
                               BF_WAYS_MAX_REQUESTS);
            o->requests *= o->names[i].count;
        }
    return 0;
}

int bf_parse_options(int argc, char **argv, struct bf_options *o, char *why, size_t len)
{
    memset(o, 0, sizeof *o);
    o->rules = bf_rules_sm90;
    o->access = bf_ld(0); /* ways: --bytes's width, 0 until given */
    o->size_set = -1;
    o->device = -1;
    int first = 1;
    if (argc > 1 && argv[1][0] != '-') {
        int c = command_of(argv[1]);
        if (c < 0)
            return bf_fail(why, len, "unknown command '%s' (bankfree --help lists them)", argv[1]);
        o->command = (enum bf_command)c;
        first = 2;
    }
    const char *cmd = o->command == BF_CMD_MAIN ? "bankfree" : commands[o->command].name;
    if (o->command == BF_CMD_HELP) {
        if (argc > 3)
            return bf_fail(why, len, "help takes one command at most");
        if (argc == 3) {
            int c = command_of(argv[2]);
            if (c < 0)
                return bf_fail(why, len, "help: unknown command '%s'", argv[2]);
            o->help_for = (enum bf_command)c;
        }
        return 0;
    }

    int filtered = 0, seen[OPTIONS] = {0}, ntypes = 0, nfiles = 0;
    const char *type_text[BF_MAX_TYPES];
    for (int i = first; i < argc; ++i) {
        const char *a = argv[i];
        /* ways: anything but --name or -h is the expression (-lane * 4 too) */
        if (o->command == BF_CMD_WAYS && strncmp(a, "--", 2) != 0 && strcmp(a, "-h") != 0) {
            if (o->expr != NULL)
                return bf_fail(why, len,
                               "ways takes one expression ('%s' is a second; quote "
                               "the expression for the shell)",
                               a);
            o->expr = a;
            continue;
        }
        if (a[0] != '-' && o->command == BF_CMD_COMPARE) {
            if (nfiles == 2)
                return bf_fail(why, len, "compare takes two files ('%s' is a third)", a);
            o->files[nfiles++] = a;
            continue;
        }
        if (a[0] != '-') {
            if (o->command == BF_CMD_MAIN)
                return bf_fail(why, len, "a filter ('%s') needs a command before it", a);
            if (!commands[o->command].filtered)
                return bf_fail(why, len, "'%s' takes no filter ('%s')", cmd, a);
            if (select_filter(o, a, why, len) != 0)
                return -1;
            filtered = 1;
            continue;
        }
        /* --name VALUE or --name=VALUE */
        const char *eq = strchr(a, '=');
        size_t nlen = eq ? (size_t)(eq - a) : strlen(a);
        int id = strcmp(a, "-h") == 0 ? OPT_HELP : -1;
        /* A name two commands give different meanings (--lanes): the command's own. */
        for (int k = 0; k < OPTIONS && (id < 0 || !(options[id].commands & C(o->command))); ++k)
            if (strlen(options[k].name) == nlen && strncmp(a, options[k].name, nlen) == 0 &&
                (id < 0 || (options[k].commands & C(o->command))))
                id = k;
        if (id < 0)
            return bf_fail(why, len, "unknown option '%.*s' (%s lists them)", (int)nlen, a,
                           help_hint(o->command));
        const struct option_spec *s = &options[id];
        if (id == OPT_HELP) {
            o->help_for = o->command;
            o->command = BF_CMD_HELP;
            return 0;
        }
        if (!(s->commands & C(o->command)))
            return bf_fail(why, len, "option %s means nothing to '%s' (%s lists its options)",
                           s->name, cmd, help_hint(o->command));
        if (seen[id]++ && !s->repeatable)
            return bf_fail(why, len, "option %s is given more than once", s->name);
        const char *v = NULL;
        if (s->arg == NULL && eq != NULL)
            return bf_fail(why, len, "option %s takes no value", s->name);
        if (s->arg != NULL) {
            if (eq != NULL)
                v = eq + 1;
            else if (i + 1 < argc)
                v = argv[++i];
            else
                return bf_fail(why, len, "option %s needs a value", s->name);
        }
        if (apply_option(o, (enum option_id)id, v, type_text, &ntypes, why, len) != 0)
            return -1;
    }
    if (o->command == BF_CMD_WAYS)
        return ways_options(o, why, len);
    if (o->command == BF_CMD_COMPARE && nfiles < 2)
        return bf_fail(why, len, "compare takes two files: bankfree compare A.json B.json");
    if (seen[OPT_SIZE] && seen[OPT_SIZES])
        return bf_fail(why, len, "give --size or --sizes, not both");
    const char *limit = getenv("BANKFREE_MEM_LIMIT");
    if (!seen[OPT_MEM_LIMIT] && limit != NULL && *limit &&
        (options[OPT_MEM_LIMIT].commands & C(o->command)) && parse_bytes(limit, &o->mem_limit) != 0)
        return bf_fail(why, len, "BANKFREE_MEM_LIMIT='%s': give bytes, like 17179869184 or 16G",
                       limit);
    o->sites |= filtered;
    if (o->gpu_cc > 0) {
        o->rules.cc = o->gpu_cc;
        o->rules.sms = o->gpu_sms;
    }
    if (o->sms > 0)
        o->rules.sms = o->sms; /* whichever of --rules, --gpu and --sms came first */

    if (!filtered)
        for (int f = 0; f < bf_nfamilies; ++f)
            o->variants[f] = all_of(bf_families[f]->nvariants);

    /* Types: all of each family's, or those named that it has. A name no
     * selected family has is an error; a family with none of them drops out. */
    for (int f = 0; f < bf_nfamilies; ++f) {
        const unsigned sweep = o->size_set == BF_SIZES_SWEEP ? bf_families[f]->sweep_types : 0u;
        o->types[f] = ntypes ? 0u : sweep ? sweep : all_of(bf_families[f]->ntypes);
    }
    for (int k = 0; k < ntypes; ++k) {
        int found = 0;
        for (int f = 0; f < bf_nfamilies; ++f)
            for (int t = 0; t < bf_families[f]->ntypes; ++t)
                if (o->variants[f] && bf_type_matches(bf_families[f]->types[t], type_text[k])) {
                    o->types[f] |= 1u << t;
                    found = 1;
                }
        if (!found)
            return bf_fail(why, len,
                           "--type '%s': no selected family has it (bankfree list shows the types)",
                           type_text[k]);
    }
    for (int f = 0; f < bf_nfamilies; ++f)
        if (o->types[f] == 0)
            o->variants[f] = 0;

    /* Sizes are checked now, before any GPU is sought: each must suit a
     * selected family, and none may need more memory than any GPU has. */
    for (int s = 0; s < o->nsizes; ++s) {
        int selected = 0, matched = 0;
        const struct bf_family *only = NULL;
        for (int f = 0; f < bf_nfamilies; ++f) {
            if (o->variants[f] == 0)
                continue;
            ++selected;
            only = bf_families[f];
            matched |= bf_size_ndims(o->size_text[s]) == only->ndims;
        }
        if (!matched && selected == 1) {
            struct bf_size unused;
            bf_size_parse(o->size_text[s], only, &unused, why, len);
            return -1;
        }
        if (!matched)
            return bf_fail(why, len, "size '%s' fits none of the selected families",
                           o->size_text[s]);
    }
    for (int f = 0; f < bf_nfamilies; ++f) {
        struct bf_size sizes[BF_MAX_SIZES];
        if (o->variants[f] != 0 && bf_family_sizes(o, bf_families[f], sizes, why, len) < 0)
            return -1;
    }
    return 0;
}

/* A name as ctest cases take it: [a-z0-9_]+. */
static int plain_name(const char *s)
{
    return s != NULL && *s && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(s);
}

int bf_check_families(char *why, size_t len)
{
    if (bf_nfamilies > BF_MAX_FAMILIES)
        return bf_fail(why, len, "%d families, more than BF_MAX_FAMILIES", bf_nfamilies);
    for (int i = 0; i < bf_nfamilies; ++i) {
        const struct bf_family *f = bf_families[i];
        if (!plain_name(f->name))
            return bf_fail(why, len, "family '%s': a name must be [a-z0-9_]+", f->name);
        if (f->nvariants < 1 || f->nvariants > 32 || f->ntypes < 1 || f->ntypes > BF_MAX_TYPES ||
            f->ndims < 1 || f->ndims > BF_MAX_DIMS || f->size_form == NULL || f->model == NULL ||
            f->test == NULL || f->bench == NULL || f->test_bytes == NULL || f->bench_bytes == NULL)
            return bf_fail(why, len,
                           "family %s: 1-32 variants, 1-%d types, 1-%d dimensions, a size "
                           "form and every hook, please (common/registry.h)",
                           f->name, BF_MAX_TYPES, BF_MAX_DIMS);
        if (f->sweep_types & ~all_of(f->ntypes))
            return bf_fail(why, len, "family %s: .sweep_types names a type it does not have",
                           f->name);
        for (int s = 0; f->bench_types != NULL && s < f->nsizes[BF_SIZES_BENCH]; ++s)
            if (f->bench_types[s] & ~all_of(f->ntypes))
                return bf_fail(why, len, "family %s: .bench_types names a type it does not have",
                               f->name);
        if (f->conflicting < 0 || f->conflicting >= f->nvariants)
            return bf_fail(why, len, "family %s: .conflicting names no variant", f->name);
        for (int v = 0; v < f->nvariants; ++v)
            if (!plain_name(f->variants[v].name))
                return bf_fail(why, len, "family %s: variant '%s': a name must be [a-z0-9_]+",
                               f->name, f->variants[v].name);
        for (int set = 0; set < BF_SIZE_SETS; ++set)
            if (f->nsizes[set] < 1 || f->nsizes[set] > BF_MAX_SIZES)
                return bf_fail(why, len, "family %s: its %s size list needs 1 to %d sizes", f->name,
                               bf_size_set_names[set], BF_MAX_SIZES);
    }
    return 0;
}

const char *bf_refuses(const struct bf_family *f, int v, int type, const struct bf_size *size)
{
    return f->refuses != NULL ? f->refuses(v, type, size) : NULL;
}

/* Why f's API refuses the size for each of the selected variants and types
 * (the first's words), or NULL where one of them runs it. */
static const char *refused_by_all(const struct bf_options *o, const struct bf_family *f,
                                  const struct bf_size *size)
{
    const char *first = NULL;
    for (int i = 0; i < bf_nfamilies; ++i) {
        if (bf_families[i] != f)
            continue;
        for (int v = 0; v < f->nvariants; ++v)
            for (int t = 0; t < f->ntypes; ++t) {
                if (!(o->variants[i] >> v & 1u) || !(o->types[i] >> t & 1u))
                    continue;
                const char *why = bf_refuses(f, v, t, size);
                if (why == NULL)
                    return NULL;
                first = first ? first : why;
            }
    }
    return first;
}

int bf_family_sizes(const struct bf_options *o, const struct bf_family *f,
                    struct bf_size out[BF_MAX_SIZES], char *why, size_t len)
{
    int n = 0;
    for (int s = 0; s < o->nsizes; ++s) {
        if (bf_size_ndims(o->size_text[s]) != f->ndims)
            continue; /* a size for another family */
        if (bf_size_parse(o->size_text[s], f, &out[n], why, len) != 0)
            return -1;
        const char *refused = refused_by_all(o, f, &out[n]);
        if (refused != NULL)
            return bf_fail(
                why, len,
                "size '%s': %s's API refuses it (%s): no selected variant or type runs it",
                o->size_text[s], f->name, refused);
        int repeat = 0;
        for (int k = 0; k < n; ++k)
            repeat |= memcmp(&out[k], &out[n], sizeof out[n]) == 0;
        n += !repeat; /* a size given twice runs once */
    }
    if (o->nsizes > 0)
        return n;
    int set = o->size_set;
    if (set < 0)
        set = o->command == BF_CMD_TEST ? BF_SIZES_TEST : BF_SIZES_BENCH;
    if (o->quick && o->size_set < 0) { /* --quick: the list's smallest case (by type 0's need) */
        int least = 0;
        for (int s = 1; s < f->nsizes[set]; ++s)
            if (f->bench_bytes(0, &f->sizes[set][s]) < f->bench_bytes(0, &f->sizes[set][least]))
                least = s;
        out[0] = f->sizes[set][least];
        return 1;
    }
    memcpy(out, f->sizes[set], (size_t)f->nsizes[set] * sizeof *out); /* bf_check_families */
    return f->nsizes[set];
}
