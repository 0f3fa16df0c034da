#include "tests/runner/ways.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "tests/runner/expr.h"

/* Whether the rules are sm_90's (a copy: --sms and --gpu change its GPU,
 * not its banks): the only rules with ldmatrix and wgmma. */
static int sm90_rules(const struct bf_bank_rules *r)
{
    return strcmp(r->name, bf_rules_sm90.name) == 0;
}

void bf_rules_meta(struct bf_table *t, const struct bf_bank_rules *r, int launches)
{
    char parts[256], gpu[128] = "";
    if (r->part_lanes == r->st8_lanes && r->part_lanes == r->ld16_lanes &&
        r->part_lanes == r->st16_lanes)
        snprintf(parts, sizeof parts, "every access served %d lanes at a time%s", r->part_lanes,
                 r->part_lanes == BF_WARP / 2 ? " (a half-warp)" : "");
    else
        snprintf(parts, sizeof parts,
                 "1-8 B accesses and red served %d lanes at a time, 8 B stores %d, 16 B loads "
                 "%d, 16 B stores %d%s",
                 r->part_lanes, r->st8_lanes, r->ld16_lanes, r->st16_lanes,
                 sm90_rules(r) ? ", ldmatrix and wgmma 8" : "");
    if (launches && sm90_rules(r))
        snprintf(gpu, sizeof gpu, "; a GPU of %d SMs, launches as on sm_%d", r->sms, r->cc);
    else if (launches) /* the families' kernels are not that GPU's: their grids as on cc */
        snprintf(gpu, sizeof gpu,
                 "; a GPU of %d SMs (the kernels' launches as on sm_%d: they "
                 "need sm_75 or later)",
                 r->sms, r->cc);
    bf_table_meta(t, "model", "%s rules: %d banks of %d B; %s%s", r->name, r->banks, r->bank_bytes,
                  parts, gpu);
}

/* Bank words a lane of the site's width touches: a 16-byte lane, 4 of 4 bytes. */
static int words_a_lane(const struct bf_site *x, const struct bf_bank_rules *r)
{
    return x->access.bytes > r->bank_bytes ? x->access.bytes / r->bank_bytes : 1;
}

void bf_lane_cells(struct bf_table *t, const struct bf_site *x, const struct bf_bank_rules *r,
                   int lane)
{
    const uint32_t a = x->worst_addr[lane];
    const int on = (int)(x->worst_active >> lane & 1u);
    bf_table_text(t, "%s", x->name);
    bf_table_text(t, "%s", bf_op_name(x->access.op));
    bf_table_num(t, "%d", x->access.bytes);
    bf_table_num(t, "%d", x->worst);
    bf_table_num(t, "%d", lane);
    bf_table_num(t, "%d", lane / bf_part_lanes(r, x->access));
    bf_table_num(t, "%d", on);
    bf_table_num_if(t, on, "%u", a);
    bf_table_num_if(t, on, "%u", a / (uint32_t)r->bank_bytes % (uint32_t)r->banks);
    bf_table_num_if(t, on, "%d", words_a_lane(x, r));
}

void bf_lanes_picture(FILE *f, const struct bf_site *x, const struct bf_bank_rules *r)
{
    static const char letters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    const int banks = r->banks, part = bf_part_lanes(r, x->access), span = words_a_lane(x, r);
    uint32_t seen[64][BF_WARP * 4]; /* per bank, the distinct words of this part so far */
    int nseen[64] = {0};
    fputs("        ", f);
    for (int b = 0; b < banks; ++b)
        fputc('0' + b / 10, f);
    fputs("   bank\n        ", f);
    for (int b = 0; b < banks; ++b)
        fputc('0' + b % 10, f);
    fputs("   lane's address\n", f);
    for (int lane = 0; lane < BF_WARP; ++lane) {
        if (lane > 0 && lane % part == 0) { /* a part of its own: its words lettered anew */
            memset(nseen, 0, sizeof nseen);
            fprintf(f, "        %.*s   lanes %d-%d served on their own\n", banks,
                    "----------------------------------------------------------------", lane,
                    lane + part - 1);
        }
        char row[65];
        memset(row, '.', (size_t)banks);
        row[banks] = '\0';
        const int on = (int)(x->worst_active >> lane & 1u);
        for (int w = 0; on && w < span; ++w) {
            const uint32_t word = x->worst_addr[lane] / (uint32_t)r->bank_bytes + (uint32_t)w;
            const int b = (int)(word % (uint32_t)banks);
            int k = 0;
            while (k < nseen[b] && seen[b][k] != word)
                ++k;
            if (k == nseen[b])
                seen[b][nseen[b]++] = word;
            row[b] = k < (int)sizeof letters - 1 ? letters[k] : '?';
        }
        if (on)
            fprintf(f, "lane %2d %s   %u\n", lane, row, x->worst_addr[lane]);
        else
            fprintf(f, "lane %2d %*s   (inactive)\n", lane, banks, "");
    }
}

/* ---- bankfree ways ---- */

/* What a run knows: the compiled expression, the variables' values. */
struct ways_run {
    const struct bf_options *o;
    int quiet; /* --fix's tries: an error ends the try, unsaid */
    struct bf_expr expr;
    int64_t vars[1 + BF_WAYS_MAX_NAMES]; /* lane, then the names in the order given */
};

/* "c=3, q=0": the loops' values in request k (all of them when lane < 0), or
 * "lane 5, c=3" for an error's place. */
static void where(const struct ways_run *w, int lane, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    if (lane >= 0)
        n += (size_t)snprintf(buf, len, "lane %d", lane);
    for (int i = 0; i < w->o->nnames && n < len; ++i)
        if (w->o->names[i].count > 0)
            n += (size_t)snprintf(buf + n, len - n, "%s%s=%" PRId64, n ? ", " : "",
                                  w->o->names[i].name, w->vars[1 + i]);
}

/* The variables of request k: each --for's value, the last given fastest. */
static void set_request(struct ways_run *w, uint64_t k)
{
    for (int i = w->o->nnames - 1; i >= 0; --i) {
        const struct bf_ways_name *n = &w->o->names[i];
        if (n->count == 0)
            continue;
        const uint64_t at = k % n->count; /* the value's number in its loop */
        k /= n->count;
        /* In unsigned arithmetic: the value lies between FIRST and END, but
         * the steps to it may not fit a signed product. */
        w->vars[1 + i] = (int64_t)((uint64_t)n->first + at * (uint64_t)n->step);
    }
}

static int out_of_memory(const char *why)
{
    fprintf(stderr, "bankfree: ways: %s\n", why);
    return BF_EXIT_FAIL;
}

static int run_error(const struct ways_run *w, int lane, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int run_error(const struct ways_run *w, int lane, const char *fmt, ...)
{
    char place[256], what[256];
    va_list ap;
    if (w->quiet)
        return BF_EXIT_USAGE;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    where(w, lane, place, sizeof place);
    fprintf(stderr, "bankfree: ways: %s: %s\n", place, what);
    return BF_EXIT_USAGE;
}

/* One request's byte addresses, each checked. Returns 0, or the exit code
 * after one line. */
static int addresses(struct ways_run *w, uint32_t addr[BF_WARP])
{
    const struct bf_options *o = w->o;
    const int64_t bytes = o->access.bytes;
    int64_t value[BF_WARP];
    struct bf_expr_error err;
    int failed = o->active_lanes;
    const int rc = bf_expr_run_lanes(&w->expr, w->vars, o->active_lanes, value, &err, &failed);
    for (int lane = 0; lane < failed; ++lane) { /* the lanes before one that failed, in order */
        int64_t v = value[lane];
        if (o->elem && __builtin_mul_overflow(value[lane], (int64_t)o->elem, &v))
            return run_error(w, lane, "element %" PRId64 " of %d bytes: 64-bit overflow",
                             value[lane], o->elem);
        if (v < 0)
            return run_error(w, lane, "address %" PRId64 " is negative", v);
        if (v > BF_WAYS_SMEM_BYTES - bytes)
            return run_error(w, lane,
                             "address %" PRId64 " (%" PRId64 " bytes) is past the 227 KiB (%d "
                             "bytes) of shared memory a block may have on sm_90",
                             v, bytes, BF_WAYS_SMEM_BYTES);
        if (v % bytes != 0)
            return run_error(w, lane,
                             "address %" PRId64 " is not a multiple of %" PRId64
                             ", the access's width (--bytes)",
                             v, bytes);
        addr[lane] = (uint32_t)v;
    }
    if (rc != 0)
        return run_error(w, failed, "%s (column %d)", err.what, err.column);
    return 0;
}

/* The expression echoed for an error at `column`, where the caret line can
 * point into it: control characters as spaces keep its columns, and a long
 * one is cut to a window of WINDOW characters around the column, "..." for
 * what is cut. Returns the caret's offset in what was written. */
#define WINDOW 60
static int echo_window(FILE *f, const char *text, int column)
{
    const int len = (int)strlen(text), at = column - 1; /* at may be len: the end */
    int from = 0, to = len;
    if (len > WINDOW) {
        from = at - WINDOW / 2 < 0 ? 0 : at - WINDOW / 2;
        to = from + WINDOW > len ? len : from + WINDOW;
        from = to - WINDOW < from ? to - WINDOW : from;
    }
    int caret = at - from;
    if (from > 0) {
        fputs("...", f);
        caret += 3;
    }
    for (int i = from; i < to; ++i)
        fputc((unsigned char)text[i] < 0x20 ? ' ' : text[i], f);
    if (to < len)
        fputs("...", f);
    return caret;
}

/* The compiled expression, or the exit code after the error: a line, and for
 * the place in the text a caret under it. */
static int compile(struct ways_run *w)
{
    const char *names[1 + BF_WAYS_MAX_NAMES] = {"lane"};
    uint32_t loops = 0; /* the --for names: changing from request to request */
    /* at most BF_WAYS_MAX_NAMES (cli.c), said again for the compiler's bounds check */
    for (int i = 0; i < w->o->nnames && i < BF_WAYS_MAX_NAMES; ++i) {
        names[1 + i] = w->o->names[i].name;
        loops |= (w->o->names[i].count > 0 ? 1u : 0u) << (1 + i);
    }
    struct bf_expr_error err;
    if (bf_expr_compile(&w->expr, w->o->expr, names, 1 + w->o->nnames, loops, &err) == 0)
        return 0;
    if (w->quiet)
        return BF_EXIT_USAGE;
    if (!err.syntax) { /* a name, a number, a depth: a line */
        fprintf(stderr, "bankfree: ways: %s (column %d)\n", err.what, err.column);
        return BF_EXIT_USAGE;
    }
    const char *lead = "bankfree: ways '";
    fputs(lead, stderr);
    const int caret = echo_window(stderr, w->o->expr, err.column);
    fprintf(stderr, "': %s (column %d)\n%*s^\n", err.what, err.column, (int)strlen(lead) + caret,
            "");
    return BF_EXIT_USAGE;
}

/* ---- the rows, written by hand: 2^20 requests through struct bf_table (a
 * string allocated a cell) take seconds; these are numbers, laid out as
 * common/report.c lays out its tables (numbers right-aligned, "-" for none
 * in a table, empty in CSV, null in JSON). ---- */

#define CELL_CHARS 32

struct row {
    int ncols;
    const char *cell[BF_TABLE_MAX_COLS]; /* "" is an empty cell */
    int text[BF_TABLE_MAX_COLS];         /* text, not a number */
    char buf[BF_TABLE_MAX_COLS][CELL_CHARS];
};

/* What the run found, a request at a time. */
struct ways_result {
    int *count; /* 3 a request: wavefronts, ideal, busiest bank */
    uint64_t worst;
    struct bf_site site;
};

static int put_u64(char *buf, uint64_t v)
{
    char digits[24];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    for (int i = 0; i < n; ++i)
        buf[i] = digits[n - 1 - i];
    buf[n] = '\0';
    return n;
}

static void put_i64(char *buf, int64_t v)
{
    if (v < 0)
        *buf++ = '-';
    put_u64(buf, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
}

/* wavefronts / ideal to two places, as printf's %.2f rounds it (a tie to even:
 * the quotient is exact in a double whenever it is a tie). */
static void put_ways(char *buf, uint64_t wavefronts, uint64_t ideal)
{
    uint64_t hundredths = 100 * wavefronts / ideal, rest = 100 * wavefronts % ideal;
    hundredths += 2 * rest > ideal || (2 * rest == ideal && hundredths % 2 == 1);
    int n = put_u64(buf, hundredths / 100);
    buf[n] = '.';
    buf[n + 1] = (char)('0' + hundredths / 10 % 10);
    buf[n + 2] = (char)('0' + hundredths % 10);
    buf[n + 3] = '\0';
}

/* Row k: request k, or the total (k = the number of requests). */
static void fill_row(struct ways_run *w, const struct ways_result *res, uint64_t k, struct row *r)
{
    const struct bf_options *o = w->o;
    const int total = k == o->requests;
    const int *c = &res->count[3 * (total ? res->worst : k)];
    int n = 0;
    for (int i = 0; i < 6 + o->nnames; ++i) { /* the columns it can have */
        r->cell[i] = r->buf[i];
        r->buf[i][0] = '\0';
        r->text[i] = 0;
    }
    if (total) {
        r->cell[n] = "total";
        r->text[n] = 1;
    } else {
        put_u64(r->buf[n], k);
        set_request(w, k);
    }
    ++n;
    for (int i = 0; i < o->nnames; ++i)
        if (o->names[i].count > 0) {
            if (!total)
                put_i64(r->buf[n], w->vars[1 + i]);
            ++n;
        }
    const uint64_t wavefronts = total ? res->site.wavefronts : (uint64_t)c[0];
    const uint64_t ideal = total ? res->site.ideal : (uint64_t)c[1];
    put_u64(r->buf[n++], wavefronts);
    put_u64(r->buf[n++], ideal);
    put_u64(r->buf[n++], wavefronts - ideal);
    put_ways(r->buf[n++], wavefronts, ideal);
    put_i64(r->buf[n++], c[2]); /* the total's: the worst request's */
    r->ncols = n;
}

/* s padded to width, on the right for a number, as report.c aligns. */
static size_t put_padded(char *at, const char *s, int width, int right, int pad)
{
    const int len = (int)strlen(s), fill = pad && width > len ? width - len : 0;
    if (right)
        memset(at, ' ', (size_t)fill);
    memcpy(at + (right ? fill : 0), s, (size_t)len);
    if (!right)
        memset(at + len, ' ', (size_t)fill);
    return (size_t)(len + fill);
}

static void put_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; ++s) {
        const unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

/* One row in the format, r's cells named by cols (r NULL: the header, cols
 * themselves); widths for table and md. */
static void put_row(FILE *f, enum bf_format format, const char *const *cols, const struct row *r,
                    const int *width, int ncols)
{
    char line[BF_TABLE_MAX_COLS * (CELL_CHARS + 64) + 16];
    size_t n = 0;
    const int md = format == BF_FORMAT_MD;
    if (format == BF_FORMAT_JSON) { /* into the line, but text, escaped as it goes out */
        n += put_padded(line + n, "    {", 0, 0, 0);
        for (int c = 0; c < ncols; ++c) {
            n += put_padded(line + n, c ? ", \"" : "\"", 0, 0, 0);
            n += put_padded(line + n, cols[c], 0, 0, 0);
            n += put_padded(line + n, "\": ", 0, 0, 0);
            if (r->cell[c][0] != '\0' && r->text[c]) {
                fwrite(line, 1, n, f);
                put_json_string(f, r->cell[c]);
                n = 0;
            } else {
                n += put_padded(line + n, r->cell[c][0] ? r->cell[c] : "null", 0, 0, 0);
            }
        }
        line[n++] = '}';
        fwrite(line, 1, n, f);
        return;
    }
    if (md)
        n += put_padded(line + n, "| ", 0, 0, 0);
    for (int c = 0; c < ncols; ++c) {
        const char *s = r == NULL ? cols[c] : r->cell[c];
        const int right = r != NULL && !r->text[c], last = c == ncols - 1;
        if (format == BF_FORMAT_CSV) {
            n += put_padded(line + n, c ? "," : "", 0, 0, 0);
            n += put_padded(line + n, s, 0, 0, 0);
            continue;
        }
        n += put_padded(line + n, s[0] ? s : "-", width[c], right, !last || md || right);
        n += put_padded(line + n, last ? (md ? " |" : "") : md ? " | " : "  ", 0, 0, 0);
    }
    line[n++] = '\n';
    fwrite(line, 1, n, f);
    if (md && r == NULL) { /* under the header: numbers right-aligned */
        fputc('|', f);
        for (int c = 0; c < ncols; ++c) {
            fputc(' ', f);
            for (int k = 0; k < width[c]; ++k)
                fputc(k == width[c] - 1 && c > 0 ? ':' : '-', f);
            fputs(" |", f);
        }
        fputc('\n', f);
    }
}

/* The width of each column in a table: its widest cell. Not a pass of
 * fill_row: the first and last requests (the loops' values run from one to
 * the other), the total, and a row of the largest counts. */
static void widths(struct ways_run *w, const struct ways_result *res, const char *const *cols,
                   int *width)
{
    const uint64_t n = w->o->requests;
    struct ways_result most = *res;
    int largest[3] = {0, 1, 99}; /* wavefronts, ideal, and a bank of two digits */
    for (uint64_t k = 0; k < n; ++k) {
        const int *c = &res->count[3 * k];
        largest[0] = c[0] > largest[0] ? c[0] : largest[0];
        largest[1] = c[1] > largest[1] ? c[1] : largest[1];
    }
    /* the most wavefronts over the least ideal: no request's ways is wider */
    int least_ideal = largest[1];
    for (uint64_t k = 0; k < n; ++k)
        least_ideal = res->count[3 * k + 1] < least_ideal ? res->count[3 * k + 1] : least_ideal;
    const int sample[3] = {largest[0], least_ideal, largest[2]};
    most.count = (int *)sample;
    most.worst = 0;
    const uint64_t rows[] = {0, n - 1, n};
    struct row r;
    for (int i = 0; i < 4; ++i) {
        if (i < 3)
            fill_row(w, res, rows[i], &r);
        else
            fill_row(w, &most, 0, &r); /* request 0's number and loops, the largest counts */
        for (int c = 0; c < r.ncols; ++c) {
            const int len = r.cell[c][0] ? (int)strlen(r.cell[c]) : 1, head = (int)strlen(cols[c]);
            width[c] = len > width[c] ? len : width[c];
            width[c] = head > width[c] ? head : width[c];
        }
        if (i == 3) { /* the ideal's column: its largest, not the least */
            char ideal[CELL_CHARS];
            const int len = put_u64(ideal, (uint64_t)largest[1]), c = r.ncols - 4;
            width[c] = len > width[c] ? len : width[c];
        }
    }
}

/* The table of requests and their total, with the run's facts. */
static void print_requests(struct ways_run *w, const struct ways_result *res,
                           const struct bf_table *meta, const char *const *cols)
{
    const struct bf_options *o = w->o;
    const enum bf_format format = o->format;
    struct row r;
    int width[BF_TABLE_MAX_COLS] = {0};
    widths(w, res, cols, width);
    if (format == BF_FORMAT_JSON) {
        fputs("{\n  \"meta\": {", stdout);
        for (int i = 0; i < meta->nmeta; ++i) {
            printf("%s\"%s\": ", i ? ",\n    " : "\n    ", meta->meta_key[i]);
            put_json_string(stdout, meta->meta_val[i]);
        }
        fputs("\n  },\n  \"rows\": [\n", stdout);
    } else if (format == BF_FORMAT_MD) {
        for (int i = 0; i < meta->nmeta; ++i)
            printf("- %s: %s\n", meta->meta_key[i], meta->meta_val[i]);
        putchar('\n');
    } else {
        bf_table_print_meta(format == BF_FORMAT_CSV ? stderr : stdout, meta);
        if (format == BF_FORMAT_TABLE)
            putchar('\n');
    }
    int ncols = 0;
    while (cols[ncols] != NULL)
        ++ncols;
    if (format != BF_FORMAT_JSON)
        put_row(stdout, format, cols, NULL, width, ncols);
    for (uint64_t k = 0; k <= o->requests; ++k) {
        fill_row(w, res, k, &r);
        if (format == BF_FORMAT_JSON && k > 0)
            fputs(",\n", stdout);
        put_row(stdout, format, cols, &r, width, r.ncols);
    }
    if (format == BF_FORMAT_JSON)
        fputs("\n  ]", stdout);
}

/* The worst request's lanes, as `model --lanes` gives them (JSON's "lanes"). */
static void print_lanes_json(const struct bf_site *site, const struct bf_bank_rules *rules)
{
    static const char *const lane_cols[] = {BF_LANE_COLUMNS, NULL};
    struct bf_table lanes;
    bf_table_init(&lanes, lane_cols);
    fputs(",\n  \"lanes\": [\n", stdout);
    for (int lane = 0; lane < BF_WARP; ++lane) {
        bf_table_row(&lanes);
        bf_lane_cells(&lanes, site, rules, lane);
        struct row r = {.ncols = lanes.ncols};
        for (int c = 0; c < lanes.ncols; ++c) {
            const char *cell = lanes.cell[lane * lanes.ncols + c];
            r.cell[c] = cell ? cell : "";
            r.text[c] = !lanes.numeric[lane * lanes.ncols + c];
        }
        if (lane > 0)
            fputs(",\n", stdout);
        put_row(stdout, BF_FORMAT_JSON, lane_cols, &r, NULL, r.ncols);
    }
    fputs("\n  ]", stdout);
    bf_table_free(&lanes);
}

/* Every request through the model: 0, or the exit code after one line. */
static int count_requests(struct ways_run *w, struct ways_result *res)
{
    const struct bf_options *o = w->o;
    const uint32_t active = o->active_lanes == BF_WARP ? ~0u : (1u << o->active_lanes) - 1u;
    int status = 0;
    res->worst = 0; /* the first request that took the most */
    for (uint64_t k = 0; k < o->requests && status == 0; ++k) {
        uint32_t addr[BF_WARP] = {0};
        struct bf_wavefronts one = {0, 0};
        int *c = &res->count[3 * k];
        set_request(w, k);
        status = addresses(w, addr);
        if (status == 0 && bf_site_add_request(&res->site, &o->rules, addr, active, &one, &c[2]))
            status = run_error(w, -1, "the model takes no such access");
        c[0] = one.wavefronts;
        c[1] = one.ideal;
        if (one.wavefronts > res->count[3 * res->worst])
            res->worst = k;
    }
    return status;
}

/* ---- --fix: the standard fixes, tried on the reader's own EXPR ---- */

/* --fix counts every try in full up to this many requests (see try_fix). */
#define FULL_REQUESTS 4096

struct fix {
    const char *kind; /* "pad" or "swizzle" */
    char *expr;       /* EXPR rewritten (allocated) */
    char let[64];     /* a --let whose value the pad changed: "--let s=33"; or "" */
    uint64_t wavefronts, ideal;
    uint64_t cost; /* bytes more shared memory: padding's rows x pad; a swizzle 0 */
};

/* The requests of `text` (co: the options it runs with, o's but for a
 * --let's value) through the same model as the reader's EXPR; with `pad`,
 * each lane's address against its own in the reader's EXPR, every one
 * moved by 0 or more: the cost is the last row's move and its own pad (the
 * least move but 0: rows x pad). Returns 0, or -1 where the text fails (an
 * address out of bounds or unaligned, arithmetic, a pad moving a lane back
 * or none; past FULL_REQUESTS, a request over its ideal). */
static int try_fix(struct ways_run *orig, const struct bf_options *co, char *text, int pad,
                   struct fix *f)
{
    /* Past FULL_REQUESTS, a try ends at its first request over the ideal:
     * only fixes that reach it are found, in time. */
    const int bail = co->requests > FULL_REQUESTS;
    struct bf_options copy = *co;
    copy.expr = text;
    struct ways_run w = {.o = &copy, .quiet = 1};
    if (compile(&w) != 0)
        return -1;
    for (int i = 0; i < copy.nnames; ++i)
        w.vars[1 + i] = copy.names[i].first;
    const uint32_t active = copy.active_lanes == BF_WARP ? ~0u : (1u << copy.active_lanes) - 1u;
    struct bf_site site = bf_site_new("fix", copy.access);
    uint64_t most = 0, least = UINT64_MAX;
    int status = 0;
    for (uint64_t k = 0; k < copy.requests && status == 0; ++k) {
        uint32_t a[BF_WARP] = {0}, b[BF_WARP] = {0};
        struct bf_wavefronts one;
        int busiest;
        set_request(orig, k);
        set_request(&w, k);
        status = addresses(orig, a) != 0 || addresses(&w, b) != 0 ||
                         bf_site_add_request(&site, &copy.rules, b, active, &one, &busiest) != 0
                     ? -1
                     : 0;
        if (bail && one.wavefronts > one.ideal)
            status = -1;
        for (int l = 0; status == 0 && pad && l < copy.active_lanes; ++l) {
            if (b[l] < a[l]) {
                status = -1;
                break;
            }
            const uint64_t d = b[l] - a[l];
            most = d > most ? d : most;
            least = d > 0 && d < least ? d : least;
        }
    }
    bf_expr_free(&w.expr);
    if (status != 0 || (pad && most == 0))
        return -1;
    f->expr = text;
    f->wavefronts = site.wavefronts;
    f->ideal = site.ideal;
    f->cost = pad ? most + least : 0;
    return 0;
}

/* Whether fix a is better than b: fewer wavefronts over the ideal, then
 * fewer bytes. */
static int better(const struct fix *a, const struct fix *b)
{
    const uint64_t ca = a->wavefronts - a->ideal, cb = b->wavefronts - b->ideal;
    return ca < cb || (ca == cb && a->cost < b->cost);
}

/* Keeps `f` in *best if better (freeing the loser's text). */
static void keep_better(struct fix *best, int *have, struct fix *f)
{
    if (!*have || better(f, best)) {
        if (*have)
            free(best->expr);
        *best = *f;
        *have = 1;
    } else {
        free(f->expr);
    }
}

static char *alloc_text(size_t len)
{
    char *t = malloc(len);
    if (t == NULL) {
        fputs("bankfree: out of host memory\n", stderr);
        exit(BF_EXIT_FAIL);
    }
    return t;
}

static int log2_of(uint64_t v)
{
    int n = 0;
    while (v > 1) {
        v >>= 1;
        ++n;
    }
    return n;
}

#define MAX_FIXES 24

/* Counts one rewrite (`text`, freed if it cannot run) into f and keeps the
 * better of it and *best; 1 when it reaches the ideal (no need to try on). */
static int try_candidate(struct ways_run *orig, const struct bf_options *co, char *text, int pad,
                         struct fix *f, struct fix *best, int *have)
{
    if (try_fix(orig, co, text, pad, f) != 0) {
        free(text);
        return 0;
    }
    keep_better(best, have, f);
    return f->wavefronts == f->ideal;
}

/* The best rewrite of one kind into *out where it beats the expression as
 * given (returns 1), else dropped (0). */
static int keep_if_better(struct fix *best, int have, const struct ways_result *res,
                          struct fix *out)
{
    if (have && best->wavefronts < res->site.wavefronts) {
        *out = *best;
        return 1;
    }
    if (have)
        free(best->expr);
    return 0;
}

/* The fixes of the reader's EXPR, each the best of its kind and place that
 * reaches the ideal or at least removes some conflicts: (a) each stride (a
 * number or a --let multiplied) padded by 1, 2, 4 ... 32 of its units,
 * the least that reaches the ideal; (b) an XOR swizzle (CuTe's
 * Swizzle<B,M,S>) of the word, then the 16-byte chunk, by the row: a row
 * of 2^S units, its unit index XORed with the row's number mod 2^B (B: as
 * many units as the banks span, or the row's), the least row that
 * reaches the ideal. Returns how many, in fixes. */
static int find_fixes(struct ways_run *orig, const struct ways_result *res, struct fix *fixes)
{
    const struct bf_options *o = orig->o;
    struct bf_expr_factor factor[MAX_FIXES];
    const int nfactors = bf_expr_factors(&orig->expr, factor, MAX_FIXES - 2);
    const size_t len = strlen(o->expr);
    int n = 0;
    orig->quiet = 1;
    for (int i = 0; i < nfactors; ++i) {
        const int var = factor[i].var - 1; /* the name's index; -1: a number */
        if (var >= 0 && o->names[var].count > 0)
            continue; /* a --for: a loop's value, not a stride */
        const int64_t value = var < 0 ? factor[i].value : o->names[var].first;
        if (value < 2 || value > INT64_MAX / 2)
            continue;
        struct fix best = {0};
        int have = 0;
        for (int64_t d = 1; d <= 32; d *= 2) {
            struct bf_options co = *o;
            struct fix f = {.kind = "pad"};
            char *text = alloc_text(len + 24);
            if (var < 0) { /* the number rewritten in the text */
                const int at = factor[i].column - 1;
                snprintf(text, len + 24, "%.*s%" PRId64 "%s", at, o->expr, value + d,
                         o->expr + at + factor[i].length);
            } else { /* the text as it was, the --let's value padded */
                memcpy(text, o->expr, len + 1);
                co.names[var].first = value + d;
                snprintf(f.let, sizeof f.let, "--let %s=%" PRId64, o->names[var].name, value + d);
            }
            if (try_candidate(orig, &co, text, 1, &f, &best, &have))
                break;
        }
        n += keep_if_better(&best, have, res, &fixes[n]);
    }
    /* Swizzles, in EXPR's own units: an element index with --elem. */
    const int elem = o->elem ? o->elem : 1, line = o->rules.banks * o->rules.bank_bytes;
    const int units[2] = {o->rules.bank_bytes, 16};
    for (int u = 0; u < 2; ++u) {
        const int unit = units[u];
        if ((u == 1 && unit == units[0]) || unit < o->access.bytes || unit < elem)
            continue;
        struct fix best = {0};
        int have = 0;
        for (int row = 2 * unit; row <= 8192; row *= 2) {
            const int span = row < line ? row / unit : line / unit; /* units XORed: 2^B */
            const int shift_row = log2_of((uint64_t)(row / elem)),
                      shift_unit = log2_of((uint64_t)(unit / elem));
            char *text = alloc_text(2 * len + 64);
            char shifted[16] = "";
            if (shift_unit > 0)
                snprintf(shifted, sizeof shifted, " << %d", shift_unit);
            snprintf(text, 2 * len + 64, "(%s) ^ ((%s) >> %d & %d)%s", o->expr, o->expr, shift_row,
                     span - 1, shifted);
            struct fix f = {.kind = "swizzle"};
            if (try_candidate(orig, o, text, 0, &f, &best, &have))
                break;
        }
        n += keep_if_better(&best, have, res, &fixes[n]);
    }
    orig->quiet = 0;
    /* Where a fix reaches the ideal, those that do not are noise. */
    int ideal = 0, kept = 0;
    for (int i = 0; i < n; ++i)
        ideal |= fixes[i].wavefronts == fixes[i].ideal;
    for (int i = 0; i < n; ++i) {
        if (ideal && fixes[i].wavefronts != fixes[i].ideal)
            free(fixes[i].expr);
        else
            fixes[kept++] = fixes[i];
    }
    return kept;
}

/* The fixes found, in the run's format: a table (md: a markdown table) and
 * the cheapest at the ideal; JSON's "fixes" and "cheapest"; for CSV, lines
 * on stderr (stdout holds the requests' rows alone). */
static void print_fixes(const struct bf_options *o, const struct ways_result *res,
                        struct fix *fixes, int n)
{
    static const char *const cols[] = {"fix",  "wavefronts", "ideal",      "conflicts",
                                       "ways", "cost_bytes", "expression", NULL};
    const int conflicted = res->site.wavefronts > res->site.ideal;
    int cheapest = -1;
    for (int i = 0; i < n; ++i)
        if (fixes[i].wavefronts == fixes[i].ideal &&
            (cheapest < 0 || fixes[i].cost < fixes[cheapest].cost))
            cheapest = i;
    char verdict[256];
    if (!conflicted)
        snprintf(verdict, sizeof verdict, "no request conflicts: nothing to fix");
    else if (cheapest < 0)
        snprintf(verdict, sizeof verdict,
                 "no padding of a stride (a number or --let multiplied) or XOR swizzle tried "
                 "reaches the ideal");
    else
        snprintf(verdict, sizeof verdict, "the cheapest fix at the ideal: %s, %" PRIu64 " bytes",
                 fixes[cheapest].kind, fixes[cheapest].cost);
    if (o->format == BF_FORMAT_JSON) {
        fputs(",\n  \"fixes\": [", stdout);
        for (int i = 0; i < n; ++i) {
            const struct fix *f = &fixes[i];
            char ways[CELL_CHARS];
            put_ways(ways, f->wavefronts, f->ideal);
            printf("%s\n    {\"fix\": \"%s\", \"wavefronts\": %" PRIu64 ", \"ideal\": %" PRIu64
                   ", \"conflicts\": %" PRIu64 ", \"ways\": %s, \"cost_bytes\": %" PRIu64
                   ", \"expression\": ",
                   i ? "," : "", f->kind, f->wavefronts, f->ideal, f->wavefronts - f->ideal, ways,
                   f->cost);
            put_json_string(stdout, f->expr);
            fputs(", \"let\": ", stdout);
            if (f->let[0])
                put_json_string(stdout, f->let);
            else
                fputs("null", stdout);
            fputc('}', stdout);
        }
        fputs(n ? "\n  ],\n  \"cheapest\": " : "],\n  \"cheapest\": ", stdout);
        if (cheapest >= 0)
            printf("%d", cheapest);
        else
            fputs("null", stdout);
        fputs(",\n  \"fix_verdict\": ", stdout);
        put_json_string(stdout, verdict);
        return;
    }
    FILE *f = o->format == BF_FORMAT_CSV ? stderr : stdout;
    if (o->format == BF_FORMAT_CSV) {
        for (int i = 0; i < n; ++i)
            fprintf(f, "# fix: %s, %" PRIu64 " conflicts, %" PRIu64 " bytes: %s%s%s\n",
                    fixes[i].kind, fixes[i].wavefronts - fixes[i].ideal, fixes[i].cost,
                    fixes[i].expr, fixes[i].let[0] ? " " : "", fixes[i].let);
        fprintf(f, "# fix: %s\n", verdict);
        return;
    }
    if (n > 0) {
        struct bf_table t;
        bf_table_init(&t, cols);
        for (int i = 0; i < n; ++i) {
            bf_table_row(&t);
            bf_table_text(&t, "%s", fixes[i].kind);
            bf_table_num(&t, "%" PRIu64, fixes[i].wavefronts);
            bf_table_num(&t, "%" PRIu64, fixes[i].ideal);
            bf_table_num(&t, "%" PRIu64, fixes[i].wavefronts - fixes[i].ideal);
            bf_table_num(&t, "%.2f", (double)fixes[i].wavefronts / (double)fixes[i].ideal);
            bf_table_num(&t, "%" PRIu64, fixes[i].cost);
            bf_table_text(&t, "%s%s%s", fixes[i].expr, fixes[i].let[0] ? " " : "", fixes[i].let);
        }
        fputs("\nfixes, each counted by the same model (give every access to the array the same "
              "layout):\n\n",
              f);
        bf_table_print(f, &t, o->format);
        bf_table_free(&t);
    }
    fprintf(f, "\n%s%s\n", verdict, cheapest >= 0 ? ":" : "");
    if (cheapest >= 0)
        fprintf(f, "  %s%s%s\n", fixes[cheapest].expr, fixes[cheapest].let[0] ? " " : "",
                fixes[cheapest].let);
}

int bf_ways(const struct bf_options *o, const char *cmdline)
{
    struct ways_run w = {.o = o};
    int status = compile(&w);
    if (status != 0)
        return status;
    for (int i = 0; i < o->nnames; ++i)
        w.vars[1 + i] = o->names[i].first;
    char site_name[512];
    snprintf(site_name, sizeof site_name, "%s", o->expr);
    struct ways_result res = {malloc(3 * o->requests * sizeof *res.count), 0,
                              bf_site_new(site_name, o->access)};
    status = res.count == NULL ? out_of_memory("out of host memory") : count_requests(&w, &res);
    struct fix fixes[MAX_FIXES];
    int nfixes = 0;
    if (status == 0 && o->fix && res.site.wavefronts > res.site.ideal)
        nfixes = find_fixes(&w, &res, fixes);
    bf_expr_free(&w.expr);
    if (status != 0) {
        free(res.count);
        return status;
    }

    /* The worst request names itself by its loops' values: the site of its picture. */
    char place[256];
    set_request(&w, res.worst);
    where(&w, -1, place, sizeof place);
    if (place[0])
        snprintf(site_name, sizeof site_name, "%s (%s)", o->expr, place);

    const char *cols[BF_TABLE_MAX_COLS + 1];
    int ncols = 0;
    cols[ncols++] = "request";
    for (int i = 0; i < o->nnames; ++i)
        if (o->names[i].count > 0)
            cols[ncols++] = o->names[i].name;
    static const char *const counts[] = {"wavefronts", "ideal",      "conflicts",
                                         "ways",       "worst_bank", NULL};
    for (int i = 0; counts[i] != NULL; ++i)
        cols[ncols++] = counts[i];
    cols[ncols] = NULL;
    struct bf_table meta; /* the facts alone: the rows are written by hand */
    bf_table_init(&meta, cols);
    bf_rules_meta(&meta, &o->rules, 0);
    bf_table_meta(&meta, "access", "%s, %d B a lane, lanes 0-%d; EXPR is %s",
                  bf_op_name(o->access.op), o->access.bytes, o->active_lanes - 1,
                  o->elem ? "an element index (the address: EXPR * --elem)" : "a byte address");
    bf_table_meta(&meta, "ways",
                  "wavefronts / ideal a request, then in all; conflicts: wavefronts - ideal (as "
                  "ncu's l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_* count them); "
                  "worst_bank: the bank holding the most distinct words of one part (total: the "
                  "worst request's)");
    bf_table_meta(&meta, "revision", "%s", bf_revision);
    bf_table_meta(&meta, "command", "%s", cmdline);
    print_requests(&w, &res, &meta, cols);
    bf_table_free(&meta);
    if (o->format == BF_FORMAT_JSON) {
        print_lanes_json(&res.site, &o->rules);
        if (o->fix)
            print_fixes(o, &res, fixes, nfixes);
        fputs("\n}\n", stdout);
    }
    if (o->format == BF_FORMAT_TABLE || o->format == BF_FORMAT_MD) {
        const int *c = &res.count[3 * res.worst];
        printf("%s\nthe worst request%s%s%s: %d wavefront%s, ideal %d, bank %d the busiest; in "
               "each\nbank's column the distinct words of a part are A, B, C...: k letters, k "
               "wavefronts\n\n",
               o->format == BF_FORMAT_MD ? "\n```" : "", place[0] ? " (" : "", place,
               place[0] ? ")" : "", c[0], c[0] == 1 ? "" : "s", c[1], c[2]);
        bf_lanes_picture(stdout, &res.site, &o->rules);
        if (o->format == BF_FORMAT_MD)
            puts("```");
    }
    if (o->fix && o->format != BF_FORMAT_JSON)
        print_fixes(o, &res, fixes, nfixes);
    for (int i = 0; i < nfixes; ++i)
        free(fixes[i].expr);
    free(res.count);
    return 0;
}
