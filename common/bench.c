#include "common/bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/counters.h"

const char *const bf_bench_columns[] = {
    "family",       "type",           "size",       "variant",   "median_ms", "min_ms",
    "max_ms",       "noise_pct",      "reps",       "throttled", "sm_mhz",    "l2",
    "rate",         "unit",           "of_ceiling", "vs_vendor", "vs_naive",  "smem_ld_ways",
    "smem_st_ways", "smem_atom_ways", "ldc_ways",   NULL};

const char *const bf_bench_counter_columns[] = {
    "ncu_ld", "ncu_st", "ncu_atom", "pipe_ld", "pipe_st", "pipe_atom", "ncu_vs_model_pct", NULL};

/* ncu's wavefronts of a variant beside the model's `w` (--counters): SASS and
 * pipe, loads, stores and atomics, and how far SASS is from the model: 100
 * (ncu / model - 1) in the class furthest off (0: equal in every class). */
static void counter_cells(struct bf_table *t, const struct bf_counted *n,
                          const struct bf_launch_ways *w)
{
    if (n == NULL) {
        for (int i = 0; bf_bench_counter_columns[i] != NULL; ++i)
            bf_table_none(t);
        return;
    }
    const double *v = n->value;
    const double sass[3] = {v[BF_SASS_LD] + v[BF_SASS_LDSM] + v[BF_SASS_GMMA],
                            v[BF_SASS_ST] + v[BF_SASS_LDGSTS], v[BF_SASS_ATOM]};
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
    bf_table_num(t, "%.0f", v[BF_PIPE_LD] + v[BF_PIPE_GMMA]);
    bf_table_num(t, "%.0f", v[BF_PIPE_ST]);
    bf_table_num(t, "%.0f", v[BF_PIPE_ATOM]);
    bf_table_num(t, "%.2f", worst);
}

/* The model's verdict on one launch of a variant, on the input the bench made
 * from ctx->seed, under the H100's rules with the SMs of the GPU timed:
 * wavefronts per ideal, for loads, stores and shared atomics, and the
 * constant cache's distinct addresses a request (empty when it has none).
 * Returns the launch's ways and wavefronts. */
static struct bf_launch_ways model_cells(struct bf_table *t, const struct bf_family *f, int variant,
                                         int type, const struct bf_size *size,
                                         const struct bf_bench_ctx *ctx)
{
    struct bf_bank_rules rules = bf_rules_sm90;
    if (ctx->dev->sms > 0)
        rules.sms = ctx->dev->sms;
    struct bf_site sites[BF_MAX_SITES];
    int nsites = variant >= 0 ? f->model(variant, type, size, ctx->seed, &rules, sites) : 0;
    const struct bf_launch_ways w = bf_sites_ways(sites, nsites);
    bf_table_num_if(t, w.ld > 0, "%.2f", w.ld);
    bf_table_num_if(t, w.st > 0, "%.2f", w.st);
    bf_table_num_if(t, w.atom > 0, "%.2f", w.atom);
    bf_table_num_if(t, w.ldc > 0, "%.2f", w.ldc);
    return w;
}

/* The counting pass (ctx->counting): each variant once, as bf_bench_run
 * checks it before timing, after a marker for ncu, and listed; a last marker
 * closes the case. */
static int count_variants(struct bf_contender *c, int n, const struct bf_family *family, int type,
                          const char *size, const struct bf_bench_ctx *ctx)
{
    char why[256];
    int failed = 0;
    for (int i = 0; i < n; ++i) {
        if (!c[i].on || c[i].variant < 0)
            continue;
        if (c[i].poison != NULL)
            BF_CHECK(c[i].poison(c[i].arg));
        BF_CHECK(cudaDeviceSynchronize());
        BF_CHECK(bf_counters_mark(0));
        BF_CHECK(c[i].run(c[i].arg, 0));
        BF_CHECK(cudaDeviceSynchronize());
        if (c[i].check != NULL && c[i].check(c[i].arg, why, sizeof why) != 0) {
            fprintf(stderr, "bankfree: %s/%s %s wrong at %s: %s\n", family->name, c[i].name,
                    family->types[type], size, why);
            failed = 1;
        }
        fprintf(ctx->counting, "%s\t%s\t%s\t%s\n", family->name, family->types[type], size,
                c[i].name);
    }
    /* A closing marker: the next case's set-up kernels are no variant's. */
    BF_CHECK(bf_counters_mark(0));
    BF_CHECK(cudaDeviceSynchronize());
    fputs(BF_COUNTERS_NONE "\n", ctx->counting);
    return failed;
}

int bf_bench_run(struct bf_contender *c, int n, int vendor, const struct bf_family *family,
                 int type, const struct bf_size *size, double data_bytes, int warm,
                 const struct bf_bench_ctx *ctx, struct bf_table *t)
{
    char text[64], why[256];
    bf_size_format(size, text, sizeof text);
    if (ctx->counting != NULL)
        return count_variants(c, n, family, type, text, ctx);

    struct bf_timing_opts opts = ctx->timing;
    opts.sms = ctx->dev->sms;
    opts.max_mhz = ctx->dev->max_sm_clock_mhz;
    void *flush = NULL;
    const char *l2 = warm ? "warm" : "cold";
    if (ctx->flush_l2 || (!warm && data_bytes < 4.0 * (double)ctx->dev->l2_bytes)) {
        l2 = "flushed";
        opts.flush_bytes = 2 * ctx->dev->l2_bytes;
        BF_CHECK(cudaMalloc(&flush, opts.flush_bytes));
        opts.flush = flush;
    }

    int failed = 0, naive = -1;
    for (int i = 0; i < n; ++i) {
        if (!c[i].on)
            continue;
        if (c[i].variant == 0)
            naive = i;
        /* Check the output of every contender before timing it. */
        if (c[i].poison != NULL)
            BF_CHECK(c[i].poison(c[i].arg));
        BF_CHECK(c[i].run(c[i].arg, 0));
        BF_CHECK(cudaDeviceSynchronize());
        c[i].wrong = c[i].check != NULL && c[i].check(c[i].arg, why, sizeof why) != 0;
        if (c[i].wrong) {
            fprintf(stderr, "bankfree: %s/%s %s wrong at %s: %s\n", family->name, c[i].name,
                    family->types[type], text, why);
            failed = 1;
        }
        BF_CHECK(bf_time(c[i].run, c[i].arg, 0, &opts, &c[i].time));
    }
    if (flush != NULL)
        BF_CHECK(cudaFree(flush));

    for (int i = 0; i < n; ++i) {
        if (!c[i].on)
            continue;
        double ceiling_rate = 0; /* the fastest candidate's of this path */
        for (int j = 0; j < n; ++j)
            if (c[j].on && c[j].ceiling && c[j].path == c[i].path &&
                c[j].bytes / c[j].time.median_ms > ceiling_rate)
                ceiling_rate = c[j].bytes / c[j].time.median_ms;
        const struct bf_timing *tm = &c[i].time;
        double rate = c[i].bytes / tm->median_ms;
        bf_table_row(t);
        bf_table_text(t, "%s", family->name);
        bf_table_text(t, "%s", family->types[type]);
        bf_table_text(t, "%s", text);
        bf_table_text(t, "%s%s", c[i].name, c[i].wrong ? " (WRONG)" : "");
        bf_table_num(t, "%.4f", tm->median_ms);
        bf_table_num(t, "%.4f", tm->min_ms);
        bf_table_num(t, "%.4f", tm->max_ms);
        bf_table_num(t, "%.2f", 100.0 * tm->noise);
        bf_table_num(t, "%d", tm->reps);
        bf_table_num(t, "%d", tm->throttled);
        bf_table_num_if(t, tm->mhz > 0, "%.0f", tm->mhz);
        bf_table_text(t, "%s", l2);
        bf_table_num(t, "%.1f", rate / 1e6);
        bf_table_text(t, "%s", family->rate_unit ? family->rate_unit : "GB/s");
        bf_table_num_if(t, ceiling_rate > 0, "%.3f", rate / ceiling_rate);
        bf_table_num_if(t, vendor >= 0 && c[vendor].on, "%.3f",
                        vendor >= 0 ? c[vendor].time.median_ms / tm->median_ms : 0);
        bf_table_num_if(t, naive >= 0 && c[i].variant >= 0, "%.2f",
                        naive >= 0 ? c[naive].time.median_ms / tm->median_ms : 0);
        const struct bf_launch_ways w = model_cells(t, family, c[i].variant, type, size, ctx);
        if (ctx->counters != NULL)
            counter_cells(t,
                          c[i].variant < 0 ? NULL
                                           : bf_counters_find(ctx->counters, family->name,
                                                              family->types[type], text, c[i].name),
                          &w);
    }
    return failed;
}

const char *const bf_summary_columns[] = {
    "family", "type",       "size",      "conflicting", "rate_before", "best",       "rate_after",
    "unit",   "of_ceiling", "vs_vendor", "speedup",     "ways_before", "ways_after", NULL};

static double number_in(const struct bf_table *t, int row, const char *column, int *have)
{
    const char *s = bf_table_cell(t, row, column);
    *have = s != NULL;
    return s ? strtod(s, NULL) : 0.0;
}

/* The model's ways of a row: the largest of ld, st and atom; 0 when it has
 * no shared-memory sites (a comparator, or a variant without shared memory). */
static double row_ways(const struct bf_table *t, int row)
{
    static const char *const cols[] = {"smem_ld_ways", "smem_st_ways", "smem_atom_ways"};
    double ways = 0;
    for (int i = 0; i < 3; ++i) {
        int have;
        const double w = number_in(t, row, cols[i], &have);
        ways = have && w > ways ? w : ways;
    }
    return ways;
}

static int same_text(const struct bf_table *t, int a, int b, const char *column)
{
    const char *x = bf_table_cell(t, a, column), *y = bf_table_cell(t, b, column);
    return x && y && strcmp(x, y) == 0;
}

static void num_cell(struct bf_table *s, const struct bf_table *t, int row, const char *column)
{
    const char *v = bf_table_cell(t, row, column);
    if (v)
        bf_table_num(s, "%s", v);
    else
        bf_table_none(s);
}

void bf_bench_summary(const struct bf_table *bench, const struct bf_family *const *families,
                      int nfamilies, struct bf_table *summary)
{
    for (int first = 0; first < bench->nrows; ++first) {
        int seen = 0; /* a group is summed up at its first row */
        for (int r = 0; r < first && !seen; ++r)
            seen = same_text(bench, r, first, "family") && same_text(bench, r, first, "type") &&
                   same_text(bench, r, first, "size");
        const char *name = bf_table_cell(bench, first, "family");
        const struct bf_family *f = NULL;
        for (int i = 0; i < nfamilies && name && !f; ++i)
            f = strcmp(families[i]->name, name) == 0 ? families[i] : NULL;
        if (seen || f == NULL)
            continue;
        int before = -1, after = -1;
        double after_ms = 0;
        for (int r = first; r < bench->nrows; ++r) {
            if (!same_text(bench, r, first, "family") || !same_text(bench, r, first, "type") ||
                !same_text(bench, r, first, "size"))
                continue;
            const char *variant = bf_table_cell(bench, r, "variant");
            int have;
            const double ms = number_in(bench, r, "median_ms", &have);
            if (variant == NULL || !have)
                continue;
            if (strcmp(variant, f->variants[f->conflicting].name) == 0) {
                before = r;
                continue;
            }
            int is_variant = 0;
            for (int v = 0; v < f->nvariants; ++v)
                is_variant |= strcmp(variant, f->variants[v].name) == 0;
            if (is_variant && row_ways(bench, r) > 0 && (after < 0 || ms < after_ms)) {
                after = r;
                after_ms = ms;
            }
        }
        if (before < 0 || after < 0)
            continue;
        int have;
        const double before_ms = number_in(bench, before, "median_ms", &have);
        bf_table_row(summary);
        bf_table_text(summary, "%s", f->name);
        bf_table_text(summary, "%s", bf_table_cell(bench, first, "type"));
        bf_table_text(summary, "%s", bf_table_cell(bench, first, "size"));
        bf_table_text(summary, "%s", f->variants[f->conflicting].name);
        num_cell(summary, bench, before, "rate");
        bf_table_text(summary, "%s", bf_table_cell(bench, after, "variant"));
        num_cell(summary, bench, after, "rate");
        const char *unit = bf_table_cell(bench, after, "unit");
        bf_table_text(summary, "%s", unit ? unit : "");
        num_cell(summary, bench, after, "of_ceiling");
        num_cell(summary, bench, after, "vs_vendor");
        bf_table_num(summary, "%.2f", before_ms / after_ms);
        bf_table_num_if(summary, row_ways(bench, before) > 0, "%.2f", row_ways(bench, before));
        bf_table_num(summary, "%.2f", row_ways(bench, after));
    }
}
