#include "tests/runner/compare.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/device.h"
#include "common/json.h"

#define MAX_FILE_BYTES (64u << 20) /* a bench run is a few hundred KB */
#define MAX_ROWS       4096
#define MIN_NOISE_PCT  1.0 /* the bench's own noise target */

/* One timed row of a run. */
struct timed {
    const char *family, *type, *size, *variant;
    double median_ms, noise_pct;
    int matched;
};

struct run {
    const char *path;
    struct bf_json *root;
    struct timed *rows;
    int nrows;
};

/* One line on stderr: "bankfree: compare: PATH: why". */
static int bad(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "bankfree: compare: %s: ", path);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return BF_EXIT_USAGE;
}

static int read_file(const char *path, char **text, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return bad(path, "%s", strerror(errno));
    char *buf = malloc(MAX_FILE_BYTES + 1);
    size_t n = buf ? fread(buf, 1, MAX_FILE_BYTES + 1, f) : 0;
    const int error = ferror(f);
    fclose(f);
    if (buf == NULL)
        return bad(path, "%s", "out of memory");
    if (error || n > MAX_FILE_BYTES) {
        free(buf);
        return bad(path, "%s", error ? "cannot be read" : "larger than 64 MiB: not a bench run");
    }
    *text = buf;
    *len = n;
    return 0;
}

static int same_key(const struct timed *a, const struct timed *b)
{
    return strcmp(a->family, b->family) == 0 && strcmp(a->type, b->type) == 0 &&
           strcmp(a->size, b->size) == 0 && strcmp(a->variant, b->variant) == 0;
}

/* Reads and checks one run: an object whose "rows" are the bench's, each
 * with its key as strings and a positive median_ms and a noise_pct. */
static int load(struct run *r)
{
    char *text = NULL, why[256], detail[320];
    size_t len = 0;
    int rc = read_file(r->path, &text, &len);
    if (rc != 0)
        return rc;
    r->root = bf_json_parse(text, len, why, sizeof why);
    free(text);
    if (r->root == NULL)
        return bad(r->path, "not JSON: %s", why);
    const struct bf_json *rows = bf_json_get(r->root, "rows");
    if (rows == NULL || rows->type != BF_JSON_ARRAY)
        return bad(r->path, "%s",
                   "no \"rows\" array: not a bench run (bankfree bench --format json)");
    for (const struct bf_json *row = rows->child; row != NULL; row = row->next)
        ++r->nrows;
    if (r->nrows > MAX_ROWS)
        return bad(r->path, "%s", "more than 4096 rows: not a bench run");
    r->rows = calloc((size_t)r->nrows + 1, sizeof *r->rows);
    if (r->rows == NULL)
        return bad(r->path, "%s", "out of memory");
    int i = 0;
    for (const struct bf_json *row = rows->child; row != NULL; row = row->next, ++i) {
        struct timed *t = &r->rows[i];
        int have_median, have_noise;
        t->family = bf_json_get_string(row, "family");
        t->type = bf_json_get_string(row, "type");
        t->size = bf_json_get_string(row, "size");
        t->variant = bf_json_get_string(row, "variant");
        t->median_ms = bf_json_get_number(row, "median_ms", &have_median);
        t->noise_pct = bf_json_get_number(row, "noise_pct", &have_noise);
        snprintf(detail, sizeof detail, "row %d", i + 1);
        if (!t->family || !t->type || !t->size || !t->variant)
            return bad(r->path, "%s lacks family, type, size or variant as text", detail);
        if (!have_median || !(t->median_ms > 0))
            return bad(r->path, "%s has no positive median_ms: not a bench run", detail);
        if (!have_noise || !(t->noise_pct >= 0))
            return bad(r->path, "%s has no noise_pct of 0 or more", detail);
        for (int j = 0; j < i; ++j)
            if (same_key(&r->rows[j], t))
                return bad(r->path, "%s repeats an earlier row's family, type, size and variant",
                           detail);
    }
    return 0;
}

static const char *meta(const struct run *r, const char *key)
{
    const char *s = bf_json_get_string(bf_json_get(r->root, "meta"), key);
    return s ? s : "(not given)";
}

static void add_row(struct bf_table *t, const struct timed *row, const struct timed *a,
                    const struct timed *b, const char *verdict)
{
    bf_table_row(t);
    bf_table_text(t, "%s", row->family);
    bf_table_text(t, "%s", row->type);
    bf_table_text(t, "%s", row->size);
    bf_table_text(t, "%s", row->variant);
    bf_table_num_if(t, a != NULL, "%.4f", a ? a->median_ms : 0);
    bf_table_num_if(t, b != NULL, "%.4f", b ? b->median_ms : 0);
    bf_table_num_if(t, a && b, "%.3f", a && b ? a->median_ms / b->median_ms : 0);
    bf_table_num_if(t, a && b, "%+.2f", a && b ? 100.0 * (b->median_ms / a->median_ms - 1) : 0);
    bf_table_num_if(t, a != NULL, "%.2f", a ? a->noise_pct : 0);
    bf_table_num_if(t, b != NULL, "%.2f", b ? b->noise_pct : 0);
    bf_table_text(t, "%s", verdict);
}

static int compare_runs(struct run *a, struct run *b, enum bf_format format, const char *cmdline)
{
    static const char *const cols[] = {"family",      "type",        "size",      "variant",
                                       "a_median_ms", "b_median_ms", "b_speedup", "change_pct",
                                       "a_noise_pct", "b_noise_pct", "verdict",   NULL};
    struct bf_table t;
    bf_table_init(&t, cols);
    bf_table_meta(&t, "a", "%s: %s, %s, %s", a->path, meta(a, "device"), meta(a, "cuda"),
                  meta(a, "date"));
    bf_table_meta(&t, "b", "%s: %s, %s, %s", b->path, meta(b, "device"), meta(b, "cuda"),
                  meta(b, "date"));
    bf_table_meta(&t, "rule",
                  "slower / faster: B's median time off A's by more than the larger noise of the "
                  "two and at least %.0f%%; b_speedup = A's time / B's",
                  MIN_NOISE_PCT);
    bf_table_meta(&t, "command", "%s", cmdline);
    int slower = 0;
    for (int i = 0; i < b->nrows; ++i) {
        struct timed *y = &b->rows[i], *x = NULL;
        for (int j = 0; j < a->nrows && x == NULL; ++j)
            if (same_key(&a->rows[j], y))
                x = &a->rows[j];
        if (x == NULL) {
            add_row(&t, y, NULL, y, "only in B");
            continue;
        }
        x->matched = 1;
        double bound = x->noise_pct > y->noise_pct ? x->noise_pct : y->noise_pct;
        bound = bound > MIN_NOISE_PCT ? bound : MIN_NOISE_PCT;
        const double change = 100.0 * (y->median_ms / x->median_ms - 1);
        const char *verdict = change > bound ? "slower" : change < -bound ? "faster" : "same";
        slower |= change > bound;
        add_row(&t, y, x, y, verdict);
    }
    for (int j = 0; j < a->nrows; ++j)
        if (!a->rows[j].matched)
            add_row(&t, &a->rows[j], &a->rows[j], NULL, "only in A");
    if (format == BF_FORMAT_CSV)
        bf_table_print_meta(stderr, &t);
    bf_table_print(stdout, &t, format);
    bf_table_free(&t);
    return slower ? BF_EXIT_FAIL : 0;
}

int bf_compare(const char *path_a, const char *path_b, enum bf_format format, const char *cmdline)
{
    struct run a = {path_a, NULL, NULL, 0}, b = {path_b, NULL, NULL, 0};
    int rc = load(&a);
    if (rc == 0)
        rc = load(&b);
    if (rc == 0)
        rc = compare_runs(&a, &b, format, cmdline);
    bf_json_free(a.root);
    bf_json_free(b.root);
    free(a.rows);
    free(b.rows);
    return rc;
}
