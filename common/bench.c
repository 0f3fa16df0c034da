#include "common/bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/counters.h"

const char *const bf_bench_columns[] = {
    "family",       "type",         "size",           "variant",    "median_ms", "min_ms",
    "max_ms",       "noise_pct",    "reps",           "throttled",  "sm_mhz",    "l2",
    "data_bytes",   "rate",         "unit",           "of_ceiling", "vs_vendor", "vs_naive",
    "smem_ld_ways", "smem_st_ways", "smem_atom_ways", "ldc_ways",   NULL};

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

static struct bf_bench_contender *add(struct bf_bench *b, const char *name, int variant,
                                      int ceiling, int path, double bytes)
{
    BF_CHECK_STATUS(b->n < BF_BENCH_MAX, "bf_bench", "more contenders than BF_BENCH_MAX");
    struct bf_bench_contender *c = &b->c[b->n++];
    c->name = name;
    c->variant = variant;
    c->ceiling = ceiling;
    c->path = path;
    c->bytes = bytes;
    return c;
}

void bf_bench_ceiling(struct bf_bench *b, const char *name, int path, double bytes,
                      struct bf_job job)
{
    add(b, name, -1, 1, path, bytes)->job = job;
}

void bf_bench_vendor(struct bf_bench *b, const char *name, int path, double bytes,
                     struct bf_job job)
{
    BF_CHECK_STATUS(b->vendor < 0, "bf_bench_vendor", "a case has one vendor row");
    b->vendor = b->n;
    add(b, name, -1, 0, path, bytes)->job = job;
}

void bf_bench_comparator(struct bf_bench *b, const char *name, int path, double bytes,
                         struct bf_job job)
{
    BF_CHECK_STATUS(b->vendor >= 0, "bf_bench_comparator", "a comparator comes after the vendor");
    add(b, name, -1, 0, path, bytes)->job = job;
}

void bf_bench_variants(struct bf_bench *b, double bytes, struct bf_variant_job job)
{
    for (int v = 0; v < b->family->nvariants; ++v)
        if (b->mask >> v & 1u)
            add(b, b->family->variants[v].name, v, 0, b->family->paths ? b->family->paths[v] : 0,
                bytes)
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
    struct bf_table *t = b->table;
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
        opts.flush = flush;
    }

    int failed = 0, naive = -1;
    for (int i = 0; i < b->n; ++i) {
        struct bf_bench_contender *c = &b->c[i];
        if (c->variant == 0)
            naive = i;
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
    {
        void *args[BF_BENCH_MAX];
        struct bf_timing times[BF_BENCH_MAX];
        for (int i = 0; i < b->n; ++i)
            args[i] = &b->c[i];
        BF_CHECK(bf_time_together(b->n, run_contender, args, 0, &opts, times));
        for (int i = 0; i < b->n; ++i)
            b->c[i].time = times[i];
    }
    if (flush != NULL)
        BF_CHECK(cudaFree(flush));

    for (int i = 0; i < b->n; ++i) {
        const struct bf_bench_contender *c = &b->c[i];
        double ceiling_rate = 0; /* the fastest ceiling's of this path */
        for (int j = 0; j < b->n; ++j)
            if (b->c[j].ceiling && b->c[j].path == c->path &&
                b->c[j].bytes / b->c[j].time.median_ms > ceiling_rate)
                ceiling_rate = b->c[j].bytes / b->c[j].time.median_ms;
        const struct bf_timing *tm = &c->time;
        double rate = c->bytes / tm->median_ms;
        bf_table_row(t);
        bf_table_text(t, "%s", family->name);
        bf_table_text(t, "%s", family->types[b->type]);
        bf_table_text(t, "%s", text);
        bf_table_text(t, "%s%s", c->name, c->wrong ? " (WRONG)" : "");
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
        bf_table_text(t, "%s", family->rate_unit ? family->rate_unit : "GB/s");
        bf_table_num_if(t, ceiling_rate > 0, "%.3f", rate / ceiling_rate);
        bf_table_num_if(t, b->vendor >= 0, "%.3f",
                        b->vendor >= 0 ? b->c[b->vendor].time.median_ms / tm->median_ms : 0);
        bf_table_num_if(t, naive >= 0 && c->variant >= 0, "%.2f",
                        naive >= 0 ? b->c[naive].time.median_ms / tm->median_ms : 0);
        const struct bf_launch_ways w = model_cells(t, family, c->variant, b->type, b->size, ctx);
        if (ctx->counters != NULL)
            counter_cells(t,
                          c->variant < 0 ? NULL
                                         : bf_counters_find(ctx->counters, family->name,
                                                            family->types[b->type], text, c->name),
                          &w);
    }
    return failed;
}

const char *const bf_summary_columns[] = {"family",      "type",      "size",       "conflicting",
                                          "rate_before", "best",      "rate_after", "unit",
                                          "of_ceiling",  "vs_vendor", "speedup",    "ways_before",
                                          "ways_after",  "behind",    NULL};

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

/* The vendor's row of the group starting at `first`: the one that is no
 * variant of f and no ceiling, its vs_vendor 1; -1 if none. */
static int vendor_row(const struct bf_table *t, int first, const struct bf_family *f)
{
    for (int r = first; r < t->nrows; ++r) {
        const char *v = bf_table_cell(t, r, "variant"), *vs = bf_table_cell(t, r, "vs_vendor");
        if (!same_text(t, r, first, "family") || !same_text(t, r, first, "type") ||
            !same_text(t, r, first, "size") || v == NULL || vs == NULL || strtod(vs, NULL) != 1.0 ||
            strstr(v, "(ceiling)") != NULL)
            continue;
        int is_variant = 0;
        for (int k = 0; k < f->nvariants; ++k)
            is_variant |= strcmp(v, f->variants[k].name) == 0;
        if (!is_variant)
            return r;
    }
    return -1;
}

/* Whether row `slow` is slower than row `fast` by more than the larger of
 * their noises (median absolute deviation / median): behind, not level. */
static int behind_beyond_noise(const struct bf_table *t, int slow, int fast)
{
    int have_slow, have_fast, have;
    const double slow_ms = number_in(t, slow, "median_ms", &have_slow),
                 fast_ms = number_in(t, fast, "median_ms", &have_fast);
    double noise = number_in(t, slow, "noise_pct", &have);
    const double other = number_in(t, fast, "noise_pct", &have);
    noise = (other > noise ? other : noise) / 100.0;
    return have_slow && have_fast && fast_ms > 0 && fast_ms / slow_ms < 1.0 - noise;
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
        const int vendor = vendor_row(bench, first, f);
        const int behind_vendor = vendor >= 0 && behind_beyond_noise(bench, after, vendor),
                  behind_before = behind_beyond_noise(bench, after, before);
        if (behind_vendor || behind_before)
            bf_table_text(summary, "%s%s%s", behind_vendor ? "vendor" : "",
                          behind_vendor && behind_before ? ", " : "",
                          behind_before ? "conflicting" : "");
        else
            bf_table_none(summary);
    }
}
