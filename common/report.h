/* Result tables, printed as an aligned table, markdown, CSV or JSON, with the
 * facts a figure needs to mean something (device, CUDA version, SM clock,
 * date, command) carried along as metadata. A cell is text, a number (right-
 * aligned, unquoted in JSON) or empty. */
#ifndef BANKFREE_REPORT_H
#define BANKFREE_REPORT_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum bf_format { BF_FORMAT_TABLE, BF_FORMAT_MD, BF_FORMAT_CSV, BF_FORMAT_JSON };

#define BF_TABLE_MAX_COLS 32
#define BF_TABLE_MAX_META 16

struct bf_table {
    int ncols;
    const char *col[BF_TABLE_MAX_COLS];
    int nrows, cap;
    char **cell;   /* nrows * ncols strings */
    char *numeric; /* per cell: printed unquoted in JSON, right-aligned in tables */
    int filled;    /* cells of the last row given so far */
    int nmeta;
    char *meta_key[BF_TABLE_MAX_META], *meta_val[BF_TABLE_MAX_META];
    void **kept; /* per row: what bf_table_keep copied beside it, or NULL */
};

/* Column names end with NULL. */
void bf_table_init(struct bf_table *t, const char *const *cols);
void bf_table_free(struct bf_table *t);

void bf_table_row(struct bf_table *t); /* starts a row */
void bf_table_text(struct bf_table *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3))); /* next cell, text */
void bf_table_num(struct bf_table *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3))); /* next cell, a number */
void bf_table_none(struct bf_table *t);    /* next cell, empty: "-", blank in CSV, null in JSON */
void bf_table_num_if(struct bf_table *t, int have, const char *fmt, ...)
    __attribute__((format(printf, 3, 4))); /* next cell, a number if `have`, else empty */
void bf_table_meta(struct bf_table *t, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Keeps a copy of `size` bytes beside the last row (replacing what was kept
 * there): the numbers its cells were printed from, for a reader in the same
 * process (the bench's summary: struct bf_bench_row). Never printed. */
void bf_table_keep(struct bf_table *t, const void *data, size_t size);

/* What bf_table_keep kept beside row `row`; NULL when nothing was, or there
 * is no such row. */
const void *bf_table_kept(const struct bf_table *t, int row);

/* The rows, and the metadata with them, but for CSV: a header row and the rows
 * alone (print the metadata elsewhere with bf_table_print_meta). */
void bf_table_print(FILE *f, const struct bf_table *t, enum bf_format format);

/* As JSON, {"meta": {...}, "rows": [...]}, and with `more` (not NULL) its
 * rows under the member `more_name` after them. */
void bf_table_print_json(FILE *f, const struct bf_table *t, const char *more_name,
                         const struct bf_table *more);

/* The metadata as "# key: value" lines. */
void bf_table_print_meta(FILE *f, const struct bf_table *t);

/* The cell of row `row` under column `column`, as text; NULL when the cell is
 * empty, the row or the column does not exist. */
const char *bf_table_cell(const struct bf_table *t, int row, const char *column);

/* "table", "md", "csv", "json": returns 0, or -1 if the name is none of those. */
int bf_format_parse(const char *name, enum bf_format *out);

#ifdef __cplusplus
}
#endif

#endif
