/* The bench's summary from the numbers and roles the bench records, without a
 * GPU: the rules (best, speedup, ways, behind), contenders registered in any
 * order (a comparator before the vendor), the role column through JSON, and
 * the committed runs' summaries (docs/results/: its runs in JSON) made again byte for
 * byte from their rows.
 * usage: test_summary [RUN.json...] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bench.h"
#include "common/json.h"
#include "tests/unit.h"

/* ---- the summary's rules, on rows made by hand ---- */

static struct bf_bench_row row_of(const char *family, const char *size, const char *name,
                                  enum bf_role role, int conflicting, double ms, double noise_pct,
                                  double ways)
{
    struct bf_bench_row r = {.family = family,
                             .type = "f32",
                             .role = role,
                             .conflicting = conflicting,
                             .median_ms = ms,
                             .noise_pct = noise_pct,
                             .rate = 1000.0 / ms,
                             .unit = "GB/s",
                             .of_ceiling = 0.5 / ms,
                             .vs_vendor = 0.25 / ms,
                             .ways = ways};
    snprintf(r.size, sizeof r.size, "%s", size);
    snprintf(r.name, sizeof r.name, "%s", name);
    return r;
}

/* Per family, type and size, the conflicting variant beside the fastest
 * other variant with shared-memory sites, and whether it is behind the
 * vendor or the conflicting variant beyond the noise. */
static void test_rules(void)
{
    const enum bf_role C = BF_ROLE_CEILING, V = BF_ROLE_VENDOR, X = BF_ROLE_VARIANT;
    struct bf_bench_row rows[] = {
        row_of("transpose", "64x64", "copy (ceiling)", C, 0, 0.1, 0.5, 0),
        row_of("transpose", "64x64", "naive", X, 0, 0.2, 0.5, 0), /* fastest, no smem */
        row_of("transpose", "64x64", "conflicting", X, 1, 0.8, 0.5, 32),
        row_of("transpose", "64x64", "padded", X, 0, 0.5, 0.5, 1),
        row_of("transpose", "64x64", "swizzled", X, 0, 0.4, 0.5, 1),
        row_of("reduction", "1024", "tuned", X, 0, 0.3, 0.5, 1), /* no conflicting row */
        row_of("transpose", "8x8", "conflicting", X, 1, 0.9, 0.5, 32),
        row_of("transpose", "8x8", "padded", X, 0, 0.3, 0.5, 2),
        row_of("transpose", "64x64", "cublasSgeam", V, 0, 0.25, 0.5, 0), /* the vendor */
        row_of("transpose", "16x16", "cublasSgeam", V, 0, 0.25, 0.5, 0),
        row_of("transpose", "16x16", "conflicting", X, 1, 0.4, 0.5, 32),
        row_of("transpose", "16x16", "padded", X, 0, 0.5, 0.5, 1),
        row_of("transpose", "32x32", "conflicting", X, 1, 0.5, 0.5, 32),
        row_of("transpose", "32x32", "padded", X, 0, 0.505, 2.0, 1),
        /* A wrong variant is no one's best, however fast. */
        row_of("transpose", "4x4", "conflicting", X, 1, 0.5, 0.5, 32),
        row_of("transpose", "4x4", "swizzled", X, 0, 0.1, 0.5, 1),
        row_of("transpose", "4x4", "padded", X, 0, 0.4, 0.5, 1),
    };
    const int n = (int)(sizeof rows / sizeof *rows);
    rows[n - 2].wrong = 1;
    rows[13].of_ceiling = NAN; /* 32x32: no ceiling */
    struct bf_table sum;
    bf_table_init(&sum, bf_summary_columns);
    bf_bench_summarize(rows, n, &sum);
    EXPECT_EQ(sum.nrows, 5, "summary rows (the reduction group has no conflicting row)");
    static const char *const behind[] = {"vendor", NULL, "vendor, conflicting", NULL, NULL};
    for (int r = 0; r < 5; ++r) {
        const char *got = bf_table_cell(&sum, r, "behind");
        EXPECT(behind[r] ? got && strcmp(got, behind[r]) == 0 : got == NULL,
               "row %d behind: %s, not %s (32x32: 1%% slower within 2%% noise is level)", r,
               got ? got : "(none)", behind[r] ? behind[r] : "(none)");
    }
    static const char *const want[][3] = {
        {"best", "0", "swizzled"},      {"speedup", "0", "2.00"},
        {"ways_before", "0", "32.00"},  {"ways_after", "1", "2.00"},
        {"rate_before", "0", "1250.0"}, {"rate_after", "0", "2500.0"},
        {"of_ceiling", "0", "1.250"},   {"vs_vendor", "0", "0.625"},
        {"unit", "0", "GB/s"},          {"conflicting", "0", "conflicting"},
        {"size", "3", "32x32"},         {"best", "4", "padded"},
        {"vs_vendor", "1", "0.833"},    {"speedup", "1", "3.00"},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; ++i) {
        const char *got = bf_table_cell(&sum, atoi(want[i][1]), want[i][0]);
        EXPECT(got && strcmp(got, want[i][2]) == 0, "row %s %s: %s, want %s", want[i][1],
               want[i][0], got ? got : "(none)", want[i][2]);
    }
    EXPECT(bf_table_cell(&sum, 3, "of_ceiling") == NULL, "32x32: no of_ceiling, an empty cell");
    bf_table_free(&sum);
}

/* ---- the bench's rows, registered in any order ---- */

static const struct bf_variant fake_variants[] = {
    {"naive", ""}, {"conflicting", ""}, {"padded", ""}};
static const char *const fake_types[] = {"f32"};

/* naive: no shared memory; conflicting: 32 ways on loads; padded: 1. */
static int fake_model(int variant, int type, const struct bf_size *size, uint64_t seed,
                      const struct bf_bank_rules *rules, struct bf_site sites[BF_MAX_SITES])
{
    (void)type, (void)size, (void)seed, (void)rules;
    if (variant == 0)
        return 0;
    sites[0] = bf_site_new("tile", (struct bf_access){BF_LOAD, 4, 0});
    sites[0].requests = 8;
    sites[0].ideal = 8;
    sites[0].wavefronts = variant == 1 ? 256 : 8;
    return 1;
}

static const struct bf_family fake = {.name = "fake",
                                      .variants = fake_variants,
                                      .nvariants = 3,
                                      .types = fake_types,
                                      .ntypes = 1,
                                      .conflicting = 1,
                                      .model = fake_model};

/* Each contender's time, by name: the comparator level with the vendor
 * (vs_vendor 1.000) but noisy; padded 1% behind the vendor, within the
 * comparator's noise. */
static struct bf_timing time_of(const char *name)
{
    static const struct {
        const char *name;
        double ms, noise;
    } t[] = {{"copy (ceiling)", 0.1, 0.0}, {"vendorLib", 0.25, 0.001},  {"otherLib", 0.2501, 0.10},
             {"naive", 0.3, 0.001},        {"conflicting", 0.8, 0.001}, {"padded", 0.2525, 0.001}};
    for (size_t i = 0; i < sizeof t / sizeof *t; ++i)
        if (strcmp(t[i].name, name) == 0)
            return (struct bf_timing){t[i].ms, t[i].ms, t[i].ms, t[i].noise, 20, 0, 1980};
    return (struct bf_timing){1, 1, 1, 0, 20, 0, 0};
}

static const struct bf_job no_job;
static const struct bf_variant_job no_variant_job;

/* One case of the fake family, its contenders registered in `order` (c:
 * ceiling, v: vendor, o: the other library, a comparator, x: the variants),
 * added to `table`. */
static void bench_in_order(const char *order, struct bf_table *table)
{
    static const struct bf_size size = {2, {64, 64}};
    static struct bf_device dev = {.sms = 132};
    struct bf_bench_ctx ctx = {.dev = &dev};
    struct bf_bench b;
    bf_bench_begin(&b, &fake, 7u, 0, &size, &ctx, table);
    for (const char *o = order; *o; ++o)
        switch (*o) {
        case 'c':
            bf_bench_ceiling(&b, "copy (ceiling)", 0, 2e6, no_job);
            break;
        case 'v':
            bf_bench_vendor(&b, "vendorLib", 0, 2e6, no_job);
            break;
        case 'o':
            bf_bench_comparator(&b, "otherLib", 0, 2e6, no_job);
            break;
        case 'x':
            bf_bench_variants(&b, 2e6, no_variant_job);
            break;
        }
    struct bf_timing times[BF_BENCH_MAX];
    for (int i = 0; i < b.n; ++i)
        times[i] = time_of(b.c[i].name);
    bf_bench_rows(&b, times, "flushed", 1e6);
}

/* A table's rows as CSV text (the caller frees it). */
static char *csv_of(const struct bf_table *t)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL)
        return NULL;
    bf_table_print(f, t, BF_FORMAT_CSV);
    fclose(f);
    return text;
}

/* The row of `variant` in the bench table, or -1. */
static int row_named(const struct bf_table *t, const char *variant)
{
    for (int r = 0; r < t->nrows; ++r) {
        const char *v = bf_table_cell(t, r, "variant");
        if (v && strcmp(v, variant) == 0)
            return r;
    }
    return -1;
}

static void test_orders(void)
{
    static const char *const orders[] = {"cvox", "xovc", "ocxv", "vxoc"};
    static const char *const names[] = {"copy (ceiling)", "vendorLib",   "otherLib",
                                        "naive",          "conflicting", "padded"};
    static const char *const roles[] = {"ceiling", "vendor",  "comparator",
                                        "variant", "variant", "variant"};
    static const char *const columns[] = {"median_ms", "rate",         "of_ceiling", "vs_vendor",
                                          "vs_naive",  "smem_ld_ways", "role",       "noise_pct"};
    const struct bf_family *const families[] = {&fake};
    struct bf_table first;
    bf_table_init(&first, bf_bench_columns);
    bench_in_order(orders[0], &first);
    char *want = NULL;
    for (size_t k = 0; k < sizeof orders / sizeof *orders; ++k) {
        struct bf_table t, sum;
        bf_table_init(&t, bf_bench_columns);
        bf_table_init(&sum, bf_summary_columns);
        bench_in_order(orders[k], &t);
        bf_bench_summary(&t, families, 1, &sum);
        EXPECT_EQ(sum.nrows, 1, "one summary row");
        const char *behind = bf_table_cell(&sum, 0, "behind"),
                   *vs = bf_table_cell(&sum, 0, "vs_vendor");
        EXPECT(behind && strcmp(behind, "vendor") == 0,
               "%s: padded is 1%% behind the vendor (not level with the noisy comparator): %s",
               orders[k], behind ? behind : "(none)");
        EXPECT(vs && strcmp(vs, "0.990") == 0, "%s: vs_vendor %s", orders[k], vs ? vs : "(none)");
        /* Each contender's row the same, in whatever order it came. */
        for (size_t i = 0; i < sizeof names / sizeof *names; ++i) {
            const int r = row_named(&t, names[i]), r0 = row_named(&first, names[i]);
            EXPECT(r >= 0, "%s: a row for %s", orders[k], names[i]);
            const char *role = bf_table_cell(&t, r, "role");
            EXPECT(role && strcmp(role, roles[i]) == 0, "%s: %s's role %s, want %s", orders[k],
                   names[i], role ? role : "(none)", roles[i]);
            for (size_t c = 0; c < sizeof columns / sizeof *columns; ++c) {
                const char *x = bf_table_cell(&t, r, columns[c]),
                           *y = bf_table_cell(&first, r0, columns[c]);
                EXPECT(x == y || (x && y && strcmp(x, y) == 0), "%s: %s's %s %s, in cvox %s",
                       orders[k], names[i], columns[c], x ? x : "-", y ? y : "-");
            }
        }
        const char *otherlib = bf_table_cell(&t, row_named(&t, "otherLib"), "vs_vendor");
        EXPECT(otherlib && strcmp(otherlib, "1.000") == 0, "%s: the comparator's vs_vendor %s",
               orders[k], otherlib ? otherlib : "(none)");
        char *got = csv_of(&sum);
        if (want == NULL)
            want = got;
        else {
            EXPECT(got && want && strcmp(got, want) == 0, "%s: summary\n%s\nnot as cvox's\n%s",
                   orders[k], got ? got : "", want);
            free(got);
        }
        bf_table_free(&t);
        bf_table_free(&sum);
    }
    free(want);
    bf_table_free(&first);
}

/* ---- a run's JSON, read back ---- */

/* The rows of a `bench --format json` run as the bench recorded them: each
 * row's numbers and its `role`; a run written before `role` (the committed
 * ones) has its role guessed as the summary used to guess it: "ceiling)" in
 * the name, a variant where vs_naive is given, the vendor the first other
 * row whose vs_vendor is 1. Which variant conflicts is read from the run's
 * summary. Returns the number of rows (strings point into root), -1 if not
 * a run. */
static int rows_from_json(const struct bf_json *root, struct bf_bench_row **out)
{
    const struct bf_json *rows = bf_json_get(root, "rows"), *sum = bf_json_get(root, "summary");
    if (rows == NULL || rows->type != BF_JSON_ARRAY || sum == NULL || sum->type != BF_JSON_ARRAY)
        return -1;
    int n = 0;
    for (const struct bf_json *r = rows->child; r; r = r->next)
        ++n;
    struct bf_bench_row *x = calloc((size_t)n + 1, sizeof *x);
    if (x == NULL)
        return -1;
    int i = 0;
    for (const struct bf_json *r = rows->child; r; r = r->next, ++i) {
        struct bf_bench_row *w = &x[i];
        const char *name = bf_json_get_string(r, "variant"), *size = bf_json_get_string(r, "size"),
                   *role = bf_json_get_string(r, "role");
        w->family = bf_json_get_string(r, "family");
        w->type = bf_json_get_string(r, "type");
        w->unit = bf_json_get_string(r, "unit");
        if (!name || !size || !w->family || !w->type) {
            free(x);
            return -1;
        }
        snprintf(w->size, sizeof w->size, "%s", size);
        snprintf(w->name, sizeof w->name, "%s", name);
        const size_t len = strlen(w->name), tail = strlen(" (WRONG)");
        if (len > tail && strcmp(w->name + len - tail, " (WRONG)") == 0) {
            w->wrong = 1;
            w->name[len - tail] = '\0';
        }
        int ok;
        w->median_ms = bf_json_get_number(r, "median_ms", &ok);
        w->noise_pct = bf_json_get_number(r, "noise_pct", &ok);
        w->rate = bf_json_get_number(r, "rate", &ok);
        w->of_ceiling = bf_json_get_number(r, "of_ceiling", &ok);
        w->of_ceiling = ok ? w->of_ceiling : NAN;
        w->vs_vendor = bf_json_get_number(r, "vs_vendor", &ok);
        w->vs_vendor = ok ? w->vs_vendor : NAN;
        static const char *const ways[] = {"smem_ld_ways", "smem_st_ways", "smem_atom_ways"};
        for (int k = 0; k < 3; ++k) {
            const double v = bf_json_get_number(r, ways[k], &ok);
            w->ways = ok && v > w->ways ? v : w->ways;
        }
        if (role != NULL) {
            w->role = BF_ROLES;
            for (int k = 0; k < BF_ROLES; ++k)
                if (strcmp(role, bf_role_names[k]) == 0)
                    w->role = (enum bf_role)k;
            EXPECT(w->role != BF_ROLES, "row %d: role %s", i + 1, role);
        } else if (strstr(name, "ceiling)") != NULL) {
            w->role = BF_ROLE_CEILING;
        } else if (bf_json_get_number(r, "vs_naive", &ok), ok) {
            w->role = BF_ROLE_VARIANT;
        } else {
            int vendor = w->vs_vendor == 1.0;
            for (int j = 0; j < i && vendor; ++j)
                vendor = !(x[j].role == BF_ROLE_VENDOR && strcmp(x[j].family, w->family) == 0 &&
                           strcmp(x[j].type, w->type) == 0 && strcmp(x[j].size, w->size) == 0);
            w->role = vendor ? BF_ROLE_VENDOR : BF_ROLE_COMPARATOR;
        }
        for (const struct bf_json *s = sum->child; s && w->role == BF_ROLE_VARIANT; s = s->next) {
            const char *f = bf_json_get_string(s, "family"),
                       *c = bf_json_get_string(s, "conflicting");
            w->conflicting |= f && c && strcmp(f, w->family) == 0 && strcmp(c, w->name) == 0;
        }
    }
    *out = x;
    return n;
}

/* The summary as the bench writes it in its JSON: the text from "summary"
 * on (the caller frees it). */
static char *summary_json(const struct bf_table *sum)
{
    static const char *const none[] = {NULL};
    struct bf_table empty;
    bf_table_init(&empty, none);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL)
        return NULL;
    bf_table_print_json(f, &empty, "summary", sum);
    fclose(f);
    bf_table_free(&empty);
    char *from = text ? strstr(text, "\"summary\":") : NULL;
    if (from == NULL) {
        free(text);
        return NULL;
    }
    memmove(text, from, strlen(from) + 1);
    return text;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *text = NULL;
    size_t cap = 0;
    *len = 0;
    for (;;) {
        if (*len + 65536 + 1 > cap) {
            cap = 2 * cap + 65536 + 1;
            char *more = realloc(text, cap);
            if (more == NULL)
                break;
            text = more;
        }
        const size_t got = fread(text + *len, 1, cap - *len - 1, f);
        *len += got;
        if (got == 0)
            break;
    }
    fclose(f);
    if (text)
        text[*len] = '\0';
    return text;
}

/* The summary made again from a run's rows, as bf_bench_summarize makes it
 * from the recorded ones: `text` (a whole run) from "summary" on, byte for
 * byte. */
static void expect_summary_again(const char *what, const char *text, size_t len)
{
    char why[256];
    struct bf_json *root = bf_json_parse(text, len, why, sizeof why);
    EXPECT(root != NULL, "%s: %s", what, why);
    if (root == NULL)
        return;
    struct bf_bench_row *rows = NULL;
    const int n = rows_from_json(root, &rows);
    EXPECT(n > 0, "%s: rows and a summary", what);
    struct bf_table sum;
    bf_table_init(&sum, bf_summary_columns);
    bf_bench_summarize(rows, n > 0 ? n : 0, &sum);
    char *got = summary_json(&sum);
    const char *want = strstr(text, "\"summary\":");
    EXPECT(got && want && strcmp(got, want) == 0, "%s: the summary made again differs:\n%s", what,
           got ? got : "(none)");
    if (got && want && strcmp(got, want) != 0) /* the first line that differs */
        for (const char *a = got, *b = want; *a && *b;) {
            const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
            const size_t la = ea ? (size_t)(ea - a) : strlen(a),
                         lb = eb ? (size_t)(eb - b) : strlen(b);
            if (la != lb || strncmp(a, b, la) != 0) {
                fprintf(stderr, "  made:      %.*s\n  committed: %.*s\n", (int)la, a, (int)lb, b);
                break;
            }
            a += la + (ea != NULL);
            b += lb + (eb != NULL);
        }
    printf("%s: %d rows, %d summary rows made again\n", what, n, sum.nrows);
    free(got);
    free(rows);
    bf_table_free(&sum);
    bf_json_free(root);
}

/* A bench table with its role column through JSON and back: the summary
 * from the JSON's rows, by their `role`, is the summary from the recorded
 * rows. */
static void test_json_round_trip(void)
{
    const struct bf_family *const families[] = {&fake};
    struct bf_table t, sum;
    bf_table_init(&t, bf_bench_columns);
    bf_table_init(&sum, bf_summary_columns);
    bench_in_order("ocxv", &t);
    bf_bench_summary(&t, families, 1, &sum);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f != NULL) {
        bf_table_print_json(f, &t, "summary", &sum);
        fclose(f);
    }
    EXPECT(text && strstr(text, "\"variant\": \"otherLib\", \"role\": \"comparator\""),
           "a row's role after its variant:\n%s", text ? text : "");
    if (text)
        expect_summary_again("the fake run, by role", text, len);
    free(text);
    bf_table_free(&t);
    bf_table_free(&sum);
}

int main(int argc, char **argv)
{
    test_rules();
    test_orders();
    test_json_round_trip();
    for (int i = 1; i < argc; ++i) {
        size_t len = 0;
        char *text = read_all(argv[i], &len);
        EXPECT(text != NULL, "%s cannot be read", argv[i]);
        if (text)
            expect_summary_again(argv[i], text, len);
        free(text);
    }
    return unit_finish("summary");
}
