#include "common/report.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static char *vformat(const char *fmt, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    char *s = malloc((size_t)n + 1);
    if (s == NULL) {
        fputs("bankfree: out of host memory\n", stderr);
        exit(1);
    }
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

void bf_table_init(struct bf_table *t, const char *const *cols)
{
    memset(t, 0, sizeof *t);
    while (cols[t->ncols] != NULL && t->ncols < BF_TABLE_MAX_COLS) {
        t->col[t->ncols] = cols[t->ncols];
        t->ncols++;
    }
}

void bf_table_free(struct bf_table *t)
{
    for (int i = 0; i < t->nrows * t->ncols; ++i)
        free(t->cell[i]);
    for (int i = 0; i < t->nmeta; ++i) {
        free(t->meta_key[i]);
        free(t->meta_val[i]);
    }
    for (int r = 0; t->kept != NULL && r < t->nrows; ++r)
        free(t->kept[r]);
    free(t->cell);
    free(t->numeric);
    free(t->kept);
    memset(t, 0, sizeof *t);
}

void bf_table_row(struct bf_table *t)
{
    if (t->nrows == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 16;
        t->cell = realloc(t->cell, (size_t)(t->cap * t->ncols) * sizeof *t->cell);
        t->numeric = realloc(t->numeric, (size_t)(t->cap * t->ncols));
        t->kept = realloc(t->kept, (size_t)t->cap * sizeof *t->kept);
        if (t->cell == NULL || t->numeric == NULL || t->kept == NULL) {
            fputs("bankfree: out of host memory\n", stderr);
            exit(1);
        }
    }
    int base = t->nrows * t->ncols;
    for (int c = 0; c < t->ncols; ++c) {
        t->cell[base + c] = NULL;
        t->numeric[base + c] = 0;
    }
    t->kept[t->nrows] = NULL;
    t->nrows++;
    t->filled = 0;
}

static void add_cell(struct bf_table *t, char *s, int numeric)
{
    if (t->nrows == 0 || t->filled >= t->ncols) {
        free(s);
        return;
    }
    int i = (t->nrows - 1) * t->ncols + t->filled++;
    t->cell[i] = s;
    t->numeric[i] = (char)numeric;
}

void bf_table_text(struct bf_table *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add_cell(t, vformat(fmt, ap), 0);
    va_end(ap);
}

void bf_table_num(struct bf_table *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add_cell(t, vformat(fmt, ap), 1);
    va_end(ap);
}

void bf_table_none(struct bf_table *t)
{
    if (t->nrows > 0 && t->filled < t->ncols)
        t->filled++; /* the cell stays NULL */
}

void bf_table_num_if(struct bf_table *t, int have, const char *fmt, ...)
{
    if (!have) {
        bf_table_none(t);
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    add_cell(t, vformat(fmt, ap), 1);
    va_end(ap);
}

void bf_table_meta(struct bf_table *t, const char *key, const char *fmt, ...)
{
    if (t->nmeta == BF_TABLE_MAX_META)
        return;
    va_list ap;
    va_start(ap, fmt);
    t->meta_val[t->nmeta] = vformat(fmt, ap);
    va_end(ap);
    t->meta_key[t->nmeta] = malloc(strlen(key) + 1);
    if (t->meta_key[t->nmeta] == NULL)
        exit(1);
    strcpy(t->meta_key[t->nmeta], key);
    t->nmeta++;
}

void bf_table_keep(struct bf_table *t, const void *data, size_t size)
{
    if (t->nrows == 0)
        return;
    void *copy = malloc(size ? size : 1);
    if (copy == NULL) {
        fputs("bankfree: out of host memory\n", stderr);
        exit(1);
    }
    memcpy(copy, data, size);
    free(t->kept[t->nrows - 1]);
    t->kept[t->nrows - 1] = copy;
}

const void *bf_table_kept(const struct bf_table *t, int row)
{
    return row >= 0 && row < t->nrows && t->kept != NULL ? t->kept[row] : NULL;
}

/* A cell as text; an empty cell reads `none`. */
static const char *cell(const struct bf_table *t, int r, int c, const char *none)
{
    const char *s = t->cell[r * t->ncols + c];
    return s ? s : none;
}

static void print_aligned(FILE *f, const struct bf_table *t, int markdown)
{
    /* A column with a number in it is right-aligned, its empty cells too. */
    int width[BF_TABLE_MAX_COLS], numbers[BF_TABLE_MAX_COLS];
    for (int c = 0; c < t->ncols; ++c) {
        width[c] = (int)strlen(t->col[c]);
        numbers[c] = 0;
        for (int r = 0; r < t->nrows; ++r) {
            int w = (int)strlen(cell(t, r, c, "-"));
            if (w > width[c])
                width[c] = w;
            numbers[c] |= t->numeric[r * t->ncols + c];
        }
    }
    if (markdown)
        for (int i = 0; i < t->nmeta; ++i)
            fprintf(f, "- %s: %s\n", t->meta_key[i], t->meta_val[i]);
    else
        bf_table_print_meta(f, t);
    if (t->nmeta)
        fputc('\n', f);
    const char *sep = markdown ? " | " : "  ";
    for (int r = -1; r < t->nrows; ++r) {
        fputs(markdown ? "| " : "", f);
        for (int c = 0; c < t->ncols; ++c) {
            const char *s = r < 0 ? t->col[c] : cell(t, r, c, "-");
            int right = r >= 0 && (t->numeric[r * t->ncols + c] ||
                                   (numbers[c] && t->cell[r * t->ncols + c] == NULL));
            int last = c == t->ncols - 1;
            if (right)
                fprintf(f, "%*s", width[c], s);
            else if (last && !markdown)
                fputs(s, f);
            else
                fprintf(f, "%-*s", width[c], s);
            fputs(last ? (markdown ? " |" : "") : sep, f);
        }
        fputc('\n', f);
        if (r < 0 && markdown) {
            fputs("|", f);
            for (int c = 0; c < t->ncols; ++c) {
                fputc(' ', f);
                for (int k = 0; k < width[c]; ++k)
                    fputc(numbers[c] && k == width[c] - 1 ? ':' : '-', f);
                fputs(" |", f);
            }
            fputc('\n', f);
        }
    }
}

static void print_csv_field(FILE *f, const char *s)
{
    if (strpbrk(s, ",\"\n") == NULL) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void print_csv(FILE *f, const struct bf_table *t)
{
    for (int r = -1; r < t->nrows; ++r) {
        for (int c = 0; c < t->ncols; ++c) {
            if (c)
                fputc(',', f);
            print_csv_field(f, r < 0 ? t->col[c] : cell(t, r, c, ""));
        }
        fputc('\n', f);
    }
}

static void print_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; ++s) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch == '\n')
            fputs("\\n", f);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

/* A finite number as JSON writes it (no nan, inf or hex). */
static int is_json_number(const char *s)
{
    char *end;
    if (*s == '\0' || strpbrk(s, "xXnNiI") != NULL)
        return 0;
    double v = strtod(s, &end);
    return *end == '\0' && isfinite(v);
}

/* The rows of t as a JSON array of objects, a member a column. */
static void print_json_rows(FILE *f, const struct bf_table *t)
{
    fputc('[', f);
    for (int r = 0; r < t->nrows; ++r) {
        fputs(r ? ",\n    {" : "\n    {", f);
        for (int c = 0; c < t->ncols; ++c) {
            const char *s = cell(t, r, c, NULL);
            if (c)
                fputs(", ", f);
            print_json_string(f, t->col[c]);
            fputs(": ", f);
            if (s == NULL)
                fputs("null", f);
            else if (t->numeric[r * t->ncols + c])
                fputs(is_json_number(s) ? s : "null", f);
            else
                print_json_string(f, s);
        }
        fputc('}', f);
    }
    fputs(t->nrows ? "\n  ]" : "]", f);
}

void bf_table_print_json(FILE *f, const struct bf_table *t, const char *more_name,
                         const struct bf_table *more)
{
    fputs("{\n  \"meta\": {", f);
    for (int i = 0; i < t->nmeta; ++i) {
        fputs(i ? ",\n    " : "\n    ", f);
        print_json_string(f, t->meta_key[i]);
        fputs(": ", f);
        print_json_string(f, t->meta_val[i]);
    }
    fputs(t->nmeta ? "\n  },\n  \"rows\": " : "},\n  \"rows\": ", f);
    print_json_rows(f, t);
    if (more != NULL) {
        fputs(",\n  ", f);
        print_json_string(f, more_name);
        fputs(": ", f);
        print_json_rows(f, more);
    }
    fputs("\n}\n", f);
}

void bf_table_print_meta(FILE *f, const struct bf_table *t)
{
    for (int i = 0; i < t->nmeta; ++i)
        fprintf(f, "# %s: %s\n", t->meta_key[i], t->meta_val[i]);
}

void bf_table_print(FILE *f, const struct bf_table *t, enum bf_format format)
{
    switch (format) {
    case BF_FORMAT_MD:
        print_aligned(f, t, 1);
        break;
    case BF_FORMAT_CSV:
        print_csv(f, t);
        break;
    case BF_FORMAT_JSON:
        bf_table_print_json(f, t, NULL, NULL);
        break;
    case BF_FORMAT_TABLE:
    default:
        print_aligned(f, t, 0);
        break;
    }
}

const char *bf_table_cell(const struct bf_table *t, int row, const char *column)
{
    if (row < 0 || row >= t->nrows)
        return NULL;
    for (int c = 0; c < t->ncols; ++c)
        if (strcmp(t->col[c], column) == 0)
            return t->cell[row * t->ncols + c];
    return NULL;
}

int bf_format_parse(const char *name, enum bf_format *out)
{
    static const char *const names[] = {"table", "md", "csv", "json"};
    for (int i = 0; i < 4; ++i)
        if (strcmp(name, names[i]) == 0) {
            *out = (enum bf_format)i;
            return 0;
        }
    return -1;
}
