#include "tests/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char bf_usage[] =
    "usage: bankfree [COMMAND] [FILTER...] [OPTIONS]\n"
    "\n"
    "Shared-memory bank conflicts, shown and removed: each family's naive and\n"
    "conflict-free kernels side by side, proved by a bank model, hardware\n"
    "counters and timings.\n"
    "\n"
    "commands:\n"
    "  (none)   bench on a GPU; the bank-model table without one\n"
    "  list     the families and their variants\n"
    "  model    wavefronts of every shared-memory access site, from the bank\n"
    "           model replaying the kernels' own index functions (no GPU needed)\n"
    "  test     run variants on fresh random inputs, output poisoned first, and\n"
    "           check every element against the CPU reference\n"
    "  bench    time variants beside the copy ceiling and the vendor library\n"
    "  device   the GPU bankfree sees (exit 77 if none)\n"
    "\n"
    "FILTER: FAMILY or FAMILY/VARIANT, e.g. transpose, transpose/padded (default: all)\n"
    "\n"
    "options:\n"
    "  --size S      problem size: ROWSxCOLS for transpose (8192x8192), N for\n"
    "                reduction (0 allowed); repeat for more (default: the\n"
    "                family's own list)\n"
    "  --type T      only element type T, e.g. f32 or i32; repeat for more\n"
    "                (default: every type of each family; bankfree list shows them)\n"
    "  --quick       the family's short size list (for the sanitizers)\n"
    "  --reps N      at least N timed repetitions (default 20, then more until\n"
    "                the noise is under 1%, at most 1000 or 2 s)\n"
    "  --flush-l2    flush L2 before every repetition (automatic when the data\n"
    "                fits in 4x L2)\n"
    "  --seed N      base seed of the random inputs (default: from the clock)\n"
    "  --rules R     model rules: sm90 (default, measured on H100), cc1x (16\n"
    "                banks per half-warp), kepler8 (8-byte banks of 3.x)\n"
    "  --format F    table (default), md, csv or json\n"
    "  -h, --help    this text\n"
    "\n"
    "exit codes: 0 ok, 1 a check failed, 2 bad command line, 77 no CUDA device\n";

static int fail(char *why, size_t len, const char *fmt, const char *arg)
{
    snprintf(why, len, fmt, arg);
    return -1;
}

/* A whole decimal (or 0x hex) number in [lo, hi]. */
static int parse_number(const char *s, unsigned long long lo, unsigned long long hi,
                        unsigned long long *out)
{
    if (s == NULL || *s < '0' || *s > '9')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno == ERANGE || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
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
            o->variants[f] = (1u << fam->nvariants) - 1u;
            return 0;
        }
        for (int v = 0; v < fam->nvariants; ++v)
            if (strcmp(fam->variants[v].name, slash + 1) == 0) {
                o->variants[f] |= 1u << v;
                return 0;
            }
        return fail(why, len, "unknown variant '%s' (bankfree list shows them)", arg);
    }
    return fail(why, len, "unknown family '%s' (bankfree list shows them)", arg);
}

/* Dimensions a size is written with: "8192x8192" has 2. */
static int size_dims(const char *text)
{
    int n = 1;
    for (; *text; ++text)
        n += *text == 'x';
    return n;
}

/* The value of an option that takes one, or NULL (and why) if it is missing. */
static const char *value_of(int argc, char **argv, int *i, char *why, size_t len)
{
    if (*i + 1 >= argc) {
        fail(why, len, "option %s needs a value", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

int bf_parse_options(int argc, char **argv, struct bf_options *o, char *why, size_t len)
{
    static const char *const commands[] = {"", "help", "list", "model", "test", "bench", "device"};
    const int ncommands = sizeof commands / sizeof *commands;
    memset(o, 0, sizeof *o);
    o->rules = &bf_rules_sm90;
    int first = 1;
    if (argc > 1 && argv[1][0] != '-') {
        int c = 1;
        while (c < ncommands && strcmp(argv[1], commands[c]) != 0)
            ++c;
        if (c == ncommands)
            return fail(why, len, "unknown command '%s' (bankfree --help lists them)", argv[1]);
        o->command = (enum bf_command)c;
        first = 2;
    }
    int filtered = 0;
    const char *type_text[BF_MAX_TYPES];
    int ntypes = 0;
    for (int i = first; i < argc; ++i) {
        const char *a = argv[i], *v;
        unsigned long long n;
        if (a[0] != '-') {
            if (o->command == BF_CMD_MAIN)
                return fail(why, len, "a filter ('%s') needs a command before it", a);
            if (select_filter(o, a, why, len) != 0)
                return -1;
            filtered = 1;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            o->command = BF_CMD_HELP;
        } else if (strcmp(a, "--quick") == 0) {
            o->quick = 1;
        } else if (strcmp(a, "--flush-l2") == 0) {
            o->flush_l2 = 1;
        } else if (strcmp(a, "--size") == 0) {
            if ((v = value_of(argc, argv, &i, why, len)) == NULL)
                return -1;
            if (o->nsizes == BF_MAX_SIZES)
                return fail(why, len, "too many sizes (at most %s)", "32");
            o->size_text[o->nsizes++] = v;
        } else if (strcmp(a, "--type") == 0) {
            if ((v = value_of(argc, argv, &i, why, len)) == NULL)
                return -1;
            if (ntypes == BF_MAX_TYPES)
                return fail(why, len, "too many types (at most %s)", "8");
            type_text[ntypes++] = v;
        } else if (strcmp(a, "--reps") == 0) {
            if ((v = value_of(argc, argv, &i, why, len)) == NULL)
                return -1;
            if (parse_number(v, 1, 100000, &n) != 0)
                return fail(why, len, "--reps '%s': give a whole number from 1 to 100000", v);
            o->reps = (int)n;
        } else if (strcmp(a, "--seed") == 0) {
            if ((v = value_of(argc, argv, &i, why, len)) == NULL)
                return -1;
            if (parse_number(v, 0, ~0ull, &n) != 0)
                return fail(why, len, "--seed '%s': give a whole number", v);
            o->seed = n;
            o->has_seed = 1;
        } else if (strcmp(a, "--format") == 0) {
            if ((v = value_of(argc, argv, &i, why, len)) == NULL)
                return -1;
            if (bf_format_parse(v, &o->format) != 0)
                return fail(why, len, "--format '%s': use table, md, csv or json", v);
        } else if (strcmp(a, "--rules") == 0) {
            if ((v = value_of(argc, argv, &i, why, len)) == NULL)
                return -1;
            if (strcmp(v, "sm90") == 0)
                o->rules = &bf_rules_sm90;
            else if (strcmp(v, "cc1x") == 0)
                o->rules = &bf_rules_cc1x;
            else if (strcmp(v, "kepler8") == 0)
                o->rules = &bf_rules_kepler8;
            else
                return fail(why, len, "--rules '%s': use sm90, cc1x or kepler8", v);
        } else {
            return fail(why, len, "unknown option '%s' (bankfree --help lists them)", a);
        }
    }
    if (!filtered)
        for (int f = 0; f < bf_nfamilies; ++f)
            o->variants[f] = (1u << bf_families[f]->nvariants) - 1u;

    /* Types: all of each family's, or those named that it has. A name no
     * selected family has is an error; a family with none of them drops out. */
    for (int f = 0; f < bf_nfamilies; ++f)
        o->types[f] = ntypes ? 0u : (1u << bf_families[f]->ntypes) - 1u;
    for (int k = 0; k < ntypes; ++k) {
        int found = 0;
        for (int f = 0; f < bf_nfamilies; ++f)
            for (int t = 0; t < bf_families[f]->ntypes; ++t)
                if (o->variants[f] && strcmp(bf_families[f]->types[t], type_text[k]) == 0) {
                    o->types[f] |= 1u << t;
                    found = 1;
                }
        if (!found)
            return fail(why, len,
                        "--type '%s': no selected family has it (bankfree list shows "
                        "the types)",
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
            matched |= size_dims(o->size_text[s]) == only->ndims;
        }
        if (!matched && selected == 1) {
            struct bf_size unused;
            bf_size_parse(o->size_text[s], only->ndims, only->min_dim, &unused, why, len);
            return -1;
        }
        if (!matched)
            return fail(why, len, "size '%s' fits none of the selected families", o->size_text[s]);
    }
    for (int f = 0; f < bf_nfamilies; ++f) {
        struct bf_size sizes[BF_MAX_SIZES];
        if (o->variants[f] != 0 && bf_family_sizes(o, bf_families[f], sizes, why, len) < 0)
            return -1;
    }
    return 0;
}

int bf_family_sizes(const struct bf_options *o, const struct bf_family *f,
                    struct bf_size out[BF_MAX_SIZES], char *why, size_t len)
{
    int n = 0;
    for (int s = 0; s < o->nsizes; ++s) {
        if (size_dims(o->size_text[s]) != f->ndims)
            continue; /* a size for another family */
        if (bf_size_parse(o->size_text[s], f->ndims, f->min_dim, &out[n], why, len) != 0)
            return -1;
        double bytes = f->device_bytes(&out[n]);
        if (bytes > BF_MAX_DEVICE_BYTES) {
            snprintf(why, len, "size '%s' needs %.1f TB of GPU memory, more than any GPU has",
                     o->size_text[s], bytes / 1e12);
            return -1;
        }
        ++n;
    }
    if (o->nsizes > 0)
        return n;
    const struct bf_size *list = o->quick ? f->quick_sizes : f->test_sizes;
    int count = o->quick ? f->nquick_sizes : f->ntest_sizes;
    if (o->command == BF_CMD_BENCH || o->command == BF_CMD_MAIN ||
        (o->command == BF_CMD_MODEL && !o->quick)) {
        list = f->bench_sizes;
        count = f->nbench_sizes;
    }
    for (int i = 0; i < count && i < BF_MAX_SIZES; ++i)
        out[i] = list[i];
    return count < BF_MAX_SIZES ? count : BF_MAX_SIZES;
}
