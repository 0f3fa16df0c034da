#include "common/bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/counters.h"

const char *const bf_bench_columns[] = {
    "family",   "type",         "size",         "variant",        "role",       "median_ms",
    "min_ms",   "max_ms",       "noise_pct",    "reps",           "throttled",  "sm_mhz",
    "l2",       "data_bytes",   "rate",         "unit",           "of_ceiling", "vs_vendor",
    "vs_naive", "smem_ld_ways", "smem_st_ways", "smem_atom_ways", "ldc_ways",   NULL};

const char *const bf_role_names[BF_ROLES] = {"ceiling", "vendor", "comparator", "variant"};

const char *const bf_bench_counter_columns[] = {
    "ncu_ld", "ncu_st", "ncu_atom", "pipe_ld", "pipe_st", "pipe_atom", "ncu_vs_model_pct", NULL};

/* ncu's wavefronts of a variant beside the model's `w` (--counters): SASS and
 * pipe, loads, stores and atomics (each the sum of its class's ops:
 * bf_op_class, bf_op_counters), and how far SASS is from the model: 100
 * (ncu / model - 1) in the class furthest off (0: equal in every class). */
static void counter_cells(struct bf_table *t, const struct bf_counted *n,
                          const struct bf_launch_ways *w)
{
    if (n == NULL) {
        for (int i = 0; bf_bench_counter_columns[i] != NULL; ++i)
            bf_table_none(t);
        return;
    }
    double sass[3] = {0, 0, 0}, pipe[3] = {0, 0, 0};
    for (int op = 0; op < BF_OPS; ++op) {
        const enum bf_op_class k = bf_op_class((enum bf_op)op);
        if (k <= BF_CLASS_ATOM) {
            sass[k] += n->sass[op];
            pipe[k] += n->pipe[op];
        }
    }
    const double model[3] = {(double)w->ld_wavefronts, (double)w->st_wavefronts,
                             (double)w->atom_wavefronts};
    double worst = 0;
    for (int k = 0; k < 3; ++k) {
        double off = 100.0 * (sass[k] - model[k]) / (model[k] > 0 ? model[k] : 1);
        if (off * off > worst * worst)
            worst = off;
    }
    for (int k = 0; k < 3; ++k)
        bf_table_num(t, "%.0f", sass[k]);
    for (int k = 0; k < 3; ++k)
        bf_table_num(t, "%.0f", pipe[k]);
    bf_table_num(t, "%.2f", worst);
}

/* The model's verdict on one launch of a variant, on the input the bench made
 * from ctx->seed, under the H100's rules with the SMs and limits of the GPU timed:
 * wavefronts per ideal, for loads, stores and shared atomics, and the
 * constant cache's distinct addresses a request (empty when it has none).
 * Returns the launch's ways and wavefronts. */
static struct bf_launch_ways model_cells(struct bf_table *t, const struct bf_family *f, int variant,
                                         int type, const struct bf_size *size,
                                         const struct bf_bench_ctx *ctx)
{
    struct bf_bank_rules rules = bf_rules_sm90;
    if (ctx->dev->sms > 0) { /* the GPU timed: its SMs and its limits */
        rules.sms = ctx->dev->sms;
        rules.cc = ctx->dev->sm.cc;
    }
    struct bf_site sites[BF_MAX_SITES];
    int nsites = variant >= 0 ? f->model(variant, type, size, ctx->seed, &rules, sites) : 0;
    const struct bf_launch_ways w = bf_sites_ways(sites, nsites);
    bf_table_num_if(t, w.ld > 0, "%.2f", w.ld);
    bf_table_num_if(t, w.st > 0, "%.2f", w.st);
    bf_table_num_if(t, w.atom > 0, "%.2f", w.atom);
    bf_table_num_if(t, w.ldc > 0, "%.2f", w.ldc);
    return w;
}

void bf_bench_begin(struct bf_bench *b, const struct bf_family *family, unsigned mask, int type,
                    const struct bf_size *size, const struct bf_bench_ctx *ctx,
                    struct bf_table *table)
{
    memset(b, 0, sizeof *b);
    b->family = family;
    b->mask = mask;
    b->type = type;
    b->size = size;
    b->ctx = ctx;
    b->table = table;
    b->vendor = -1;
}

static struct bf_bench_contender *add(struct bf_bench *b, const char *name, enum bf_role role,
                                      int variant, int path, double bytes)
{
    BF_CHECK_STATUS(b->n < BF_BENCH_MAX, "bf_bench", "more contenders than BF_BENCH_MAX");
    struct bf_bench_contender *c = &b->c[b->n++];
    c->name = name;
    c->role = role;
    c->variant = variant;
    c->path = path;
    c->bytes = bytes;
    return c;
}

void bf_bench_ceiling(struct bf_bench *b, const char *name, int path, double bytes,
                      struct bf_job job)
{
    add(b, name, BF_ROLE_CEILING, -1, path, bytes)->job = job;
}

void bf_bench_vendor(struct bf_bench *b, const char *name, int path, double bytes,
                     struct bf_job job)
{
    BF_CHECK_STATUS(b->vendor < 0, "bf_bench_vendor", "a case has one vendor row");
    b->vendor = b->n;
    add(b, name, BF_ROLE_VENDOR, -1, path, bytes)->job = job;
}

void bf_bench_comparator(struct bf_bench *b, const char *name, int path, double bytes,
                         struct bf_job job)
{
    add(b, name, BF_ROLE_COMPARATOR, -1, path, bytes)->job = job;
}

void bf_bench_variants(struct bf_bench *b, double bytes, struct bf_variant_job job)
{
    for (int v = 0; v < b->family->nvariants; ++v)
        if (b->mask >> v & 1u)
            add(b, b->family->variants[v].name, BF_ROLE_VARIANT, v,
                b->family->paths ? b->family->paths[v] : 0, bytes)
                ->variant_job = job;
}

/* A contender's run (a bf_launch_fn of the contender), poison and check,
 * whichever kind it is. */
static cudaError_t run_contender(void *arg, cudaStream_t stream)
{
    const struct bf_bench_contender *c = arg;
    return c->variant >= 0 ? c->variant_job.run(c->variant_job.arg, c->variant, stream)
                           : c->job.run(c->job.arg, stream);
}

static cudaError_t poison_contender(const struct bf_bench_contender *c)
{
    if (c->variant >= 0)
        return c->variant_job.poison ? c->variant_job.poison(c->variant_job.arg) : cudaSuccess;
    return c->job.poison ? c->job.poison(c->job.arg) : cudaSuccess;
}

/* -1: no check; else 0 right, 1 wrong (with why). */
static int check_contender(const struct bf_bench_contender *c, char *why, size_t len)
{
    if (c->variant >= 0)
        return c->variant_job.check ? c->variant_job.check(c->variant_job.arg, c->variant, why, len)
                                    : -1;
    return c->job.check ? c->job.check(c->job.arg, why, len) : -1;
}

/* The counting pass (ctx->counting): each variant once, as the bench checks
 * it before timing, inside the range ncu profiles after a marker (what ncu
 * sees from one marker to the next is the variant's, whatever its kernels are
 * named), and listed. */
static int count_variants(struct bf_bench *b, const char *size)
{
    char why[256];
    int failed = 0;
    for (int i = 0; i < b->n; ++i) {
        struct bf_bench_contender *c = &b->c[i];
        if (c->variant < 0)
            continue;
        BF_CHECK(poison_contender(c));
        BF_CHECK(cudaDeviceSynchronize());
        bf_profiled_begin();
        BF_CHECK(bf_counters_mark(0));
        BF_CHECK(bf_profiled_end(run_contender(c, 0)));
        BF_CHECK(cudaDeviceSynchronize());
        if (check_contender(c, why, sizeof why) > 0) {
            fprintf(stderr, "bankfree: %s/%s %s wrong at %s: %s\n", b->family->name, c->name,
                    b->family->types[b->type], size, why);
            failed = 1;
        }
        fprintf(b->ctx->counting, "%s\t%s\t%s\t%s\n", b->family->name, b->family->types[b->type],
                size, c->name);
    }
    return failed;
}

int bf_bench_end(struct bf_bench *b, double data_bytes, int warm)
{
    const struct bf_bench_ctx *ctx = b->ctx;
    const struct bf_family *family = b->family;
    char text[64], why[256];
    bf_size_format(b->size, text, sizeof text);
    if (ctx->counting != NULL)
        return count_variants(b, text);

    struct bf_timing_opts opts = ctx->timing;
    opts.sms = ctx->dev->sms;
    opts.max_mhz = ctx->dev->max_sm_clock_mhz;
    void *flush = NULL;
    warm = warm && !ctx->no_warm;
    const char *l2 = warm ? "warm" : "cold";
    if (ctx->flush_l2 || (!warm && data_bytes < 4.0 * (double)ctx->dev->l2_bytes)) {
        l2 = "flushed";
        opts.flush_bytes = 2 * ctx->dev->l2_bytes;
        BF_CHECK(cudaMalloc(&flush, opts.flush_bytes));
        BF_CHECK(cudaMemset(flush, 1, opts.flush_bytes));
        opts.flush = flush;
    }

    int failed = 0;
    for (int i = 0; i < b->n; ++i) {
        struct bf_bench_contender *c = &b->c[i];
        /* Check the output of every contender before any is timed. */
        BF_CHECK(poison_contender(c));
        BF_CHECK(run_contender(c, 0));
        BF_CHECK(cudaDeviceSynchronize());
        c->wrong = check_contender(c, why, sizeof why) > 0;
        if (c->wrong) {
            fprintf(stderr, "bankfree: %s/%s %s wrong at %s: %s\n", family->name, c->name,
                    family->types[b->type], text, why);
            failed = 1;
        }
    }
    /* Then all of them timed side by side (bf_time_together): a batch of
     * reps of each in turn, so that a clock that drifts over the case meets
     * them alike while they run. */
    void *args[BF_BENCH_MAX];
    struct bf_timing times[BF_BENCH_MAX];
    for (int i = 0; i < b->n; ++i)
        args[i] = &b->c[i];
    BF_CHECK(bf_time_together(b->n, run_contender, args, 0, &opts, times));
    if (flush != NULL)
        BF_CHECK(cudaFree(flush));
    bf_bench_rows(b, times, l2, data_bytes);
    return failed;
}

/* x as a cell printed with fmt (one conversion of a double) reads: the
 * number a reader of the table or its JSON has. */
static double as_printed(const char *fmt, double x)
{
    char s[400]; /* %.4f of the largest double: 309 digits and 5 more */
    snprintf(s, sizeof s, fmt, x);
    return strtod(s, NULL);
}

void bf_bench_rows(struct bf_bench *b, const struct bf_timing *times, const char *l2,
                   double data_bytes)
{
    const struct bf_bench_ctx *ctx = b->ctx;
    const struct bf_family *family = b->family;
    struct bf_table *t = b->table;
    const char *unit = family->rate_unit ? family->rate_unit : "GB/s";
    char text[64];
    bf_size_format(b->size, text, sizeof text);
    int naive = -1;
    for (int i = 0; i < b->n; ++i) {
        b->c[i].time = times[i];
        if (b->c[i].variant == 0)
            naive = i;
    }
    for (int i = 0; i < b->n; ++i) {
        const struct bf_bench_contender *c = &b->c[i];
        double ceiling_rate = 0; /* the fastest ceiling's of this path */
        for (int j = 0; j < b->n; ++j)
            if (b->c[j].role == BF_ROLE_CEILING && b->c[j].path == c->path &&
                b->c[j].bytes / b->c[j].time.median_ms > ceiling_rate)
                ceiling_rate = b->c[j].bytes / b->c[j].time.median_ms;
        const struct bf_timing *tm = &c->time;
        const double rate = c->bytes / tm->median_ms;
        const double vs_vendor =
            b->vendor >= 0 ? b->c[b->vendor].time.median_ms / tm->median_ms : 0;
        bf_table_row(t);
        bf_table_text(t, "%s", family->name);
        bf_table_text(t, "%s", family->types[b->type]);
        bf_table_text(t, "%s", text);
        bf_table_text(t, "%s%s", c->name, c->wrong ? " (WRONG)" : "");
        bf_table_text(t, "%s", bf_role_names[c->role]);
        bf_table_num(t, "%.4f", tm->median_ms);
        bf_table_num(t, "%.4f", tm->min_ms);
        bf_table_num(t, "%.4f", tm->max_ms);
        bf_table_num(t, "%.2f", 100.0 * tm->noise);
        bf_table_num(t, "%d", tm->reps);
        bf_table_num(t, "%d", tm->throttled);
        bf_table_num_if(t, tm->mhz > 0, "%.0f", tm->mhz);
        bf_table_text(t, "%s", l2);
        bf_table_num(t, "%.0f", data_bytes);
        bf_table_num(t, "%.1f", rate / 1e6);
        bf_table_text(t, "%s", unit);
        bf_table_num_if(t, ceiling_rate > 0, "%.3f", rate / ceiling_rate);
        bf_table_num_if(t, b->vendor >= 0, "%.3f", vs_vendor);
        bf_table_num_if(t, naive >= 0 && c->variant >= 0, "%.2f",
                        naive >= 0 ? b->c[naive].time.median_ms / tm->median_ms : 0);
        const struct bf_launch_ways w = model_cells(t, family, c->variant, b->type, b->size, ctx);
        if (ctx->counters != NULL)
            counter_cells(t,
                          c->variant < 0 ? NULL
                                         : bf_counters_find(ctx->counters, family->name,
                                                            family->types[b->type], text, c->name),
                          &w);
        /* The row's numbers, as its cells print them, beside it. */
        struct bf_bench_row row = {
            .family = family->name,
            .type = family->types[b->type],
            .role = c->role,
            .conflicting = c->variant == family->conflicting,
            .wrong = c->wrong,
            .median_ms = as_printed("%.4f", tm->median_ms),
            .noise_pct = as_printed("%.2f", 100.0 * tm->noise),
            .rate = as_printed("%.1f", rate / 1e6),
            .unit = unit,
            .of_ceiling = ceiling_rate > 0 ? as_printed("%.3f", rate / ceiling_rate) : NAN,
            .vs_vendor = b->vendor >= 0 ? as_printed("%.3f", vs_vendor) : NAN,
        };
        const double ways =
            w.ld > w.st ? (w.ld > w.atom ? w.ld : w.atom) : (w.st > w.atom ? w.st : w.atom);
        row.ways = ways > 0 ? as_printed("%.2f", ways) : 0;
        snprintf(row.size, sizeof row.size, "%s", text);
        snprintf(row.name, sizeof row.name, "%s", c->name);
        bf_table_keep(t, &row, sizeof row);
    }
}

const char *const bf_summary_columns[] = {"family",      "type",      "size",       "conflicting",
                                          "rate_before", "best",      "rate_after", "unit",
                                          "of_ceiling",  "vs_vendor", "speedup",    "ways_before",
                                          "ways_after",  "behind",    NULL};

static int same_case(const struct bf_bench_row *a, const struct bf_bench_row *b)
{
    return strcmp(a->family, b->family) == 0 && strcmp(a->type, b->type) == 0 &&
           strcmp(a->size, b->size) == 0;
}

/* Whether row `slow` is slower than row `fast` by more than the larger of
 * their noises (median absolute deviation / median): behind, not level. */
static int behind_beyond_noise(const struct bf_bench_row *slow, const struct bf_bench_row *fast)
{
    const double noise =
        (fast->noise_pct > slow->noise_pct ? fast->noise_pct : slow->noise_pct) / 100.0;
    return fast->median_ms > 0 && fast->median_ms / slow->median_ms < 1.0 - noise;
}

void bf_bench_summarize(const struct bf_bench_row *rows, int n, struct bf_table *summary)
{
    for (int first = 0; first < n; ++first) {
        int seen = 0; /* a case is summed up at its first row */
        for (int r = 0; r < first && !seen; ++r)
            seen = same_case(&rows[r], &rows[first]);
        if (seen)
            continue;
        int before = -1, after = -1, vendor = -1;
        for (int r = first; r < n; ++r) {
            const struct bf_bench_row *x = &rows[r];
            if (!same_case(x, &rows[first]))
                continue;
            if (x->role == BF_ROLE_VENDOR && vendor < 0)
                vendor = r;
            if (x->role != BF_ROLE_VARIANT || x->wrong)
                continue;
            if (x->conflicting)
                before = r;
            else if (x->ways > 0 && (after < 0 || x->median_ms < rows[after].median_ms))
                after = r;
        }
        if (before < 0 || after < 0)
            continue;
        const struct bf_bench_row *x = &rows[before], *y = &rows[after];
        bf_table_row(summary);
        bf_table_text(summary, "%s", x->family);
        bf_table_text(summary, "%s", x->type);
        bf_table_text(summary, "%s", x->size);
        bf_table_text(summary, "%s", x->name);
        bf_table_num(summary, "%.1f", x->rate);
        bf_table_text(summary, "%s", y->name);
        bf_table_num(summary, "%.1f", y->rate);
        bf_table_text(summary, "%s", y->unit ? y->unit : "");
        bf_table_num_if(summary, !isnan(y->of_ceiling), "%.3f", y->of_ceiling);
        bf_table_num_if(summary, !isnan(y->vs_vendor), "%.3f", y->vs_vendor);
        bf_table_num(summary, "%.2f", x->median_ms / y->median_ms);
        bf_table_num_if(summary, x->ways > 0, "%.2f", x->ways);
        bf_table_num(summary, "%.2f", y->ways);
        const int behind_vendor = vendor >= 0 && behind_beyond_noise(y, &rows[vendor]),
                  behind_before = behind_beyond_noise(y, x);
        if (behind_vendor || behind_before)
            bf_table_text(summary, "%s%s%s", behind_vendor ? "vendor" : "",
                          behind_vendor && behind_before ? ", " : "",
                          behind_before ? "conflicting" : "");
        else
            bf_table_none(summary);
    }
}

void bf_bench_summary(const struct bf_table *bench, const struct bf_family *const *families,
                      int nfamilies, struct bf_table *summary)
{
    struct bf_bench_row *rows = malloc(((size_t)bench->nrows + 1) * sizeof *rows);
    BF_CHECK_STATUS(rows != NULL, "bf_bench_summary", "out of host memory");
    int n = 0;
    for (int r = 0; r < bench->nrows; ++r) {
        const struct bf_bench_row *row = bf_table_kept(bench, r);
        int listed = 0;
        for (int i = 0; i < nfamilies && row != NULL && !listed; ++i)
            listed = strcmp(families[i]->name, row->family) == 0;
        if (listed)
            rows[n++] = *row;
    }
    bf_bench_summarize(rows, n, summary);
    free(rows);
}
