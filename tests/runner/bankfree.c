/* bankfree: the one runner. list, model, test and bench over every family
 * registered in families.c; bf_print_help (cli.c) describes the command line. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "common/bench.h"
#include "common/check.h"
#include "common/counters.h"
#include "common/data.h"
#include "common/device.h"
#include "common/registry.h"
#include "common/report.h"
#include "tests/runner/compare.h"
#include "tests/runner/cli.h"
#include "tests/runner/families.h"
#include "tests/runner/ways.h"

static void usage_error(const char *why)
{
    fprintf(stderr, "bankfree: %s\n", why);
    exit(BF_EXIT_USAGE);
}

/* Appends c to buf (len bytes) at *n, keeping it terminated; past the end
 * the line is cut. */
static void put_char(char *buf, size_t len, size_t *n, char c)
{
    if (*n + 1 < len) {
        buf[(*n)++] = c;
        buf[*n] = '\0';
    }
}

/* argv as a shell takes it back: an argument with anything but letters,
 * digits and _-./=:,+%@ goes in single quotes (a ' as '\''), so that the
 * "command" line reruns as printed: bankfree ways 'lane * 32 * 4'. */
static void command_line(int argc, char **argv, char *buf, size_t len)
{
    static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                "0123456789_-./=:,+%@";
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < argc; ++i) {
        const char *a = argv[i];
        const int quote = a[0] == '\0' || a[strspn(a, plain)] != '\0';
        if (i > 0)
            put_char(buf, len, &n, ' ');
        if (quote)
            put_char(buf, len, &n, '\'');
        for (const char *c = a; *c != '\0'; ++c) {
            if (*c == '\'') {
                for (const char *q = "'\\''"; *q != '\0'; ++q)
                    put_char(buf, len, &n, *q);
            } else {
                put_char(buf, len, &n, *c);
            }
        }
        if (quote)
            put_char(buf, len, &n, '\'');
    }
}

static void utc_now(char *buf, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, len, "%Y-%m-%d %H:%M UTC", &tm);
}

static void device_meta(struct bf_table *t, const struct bf_device *d)
{
    bf_table_meta(t, "device", "%s (sm_%d%d, %d SMs, %.0f MB L2, %.1f GB)", d->name, d->cc_major,
                  d->cc_minor, d->sms, (double)d->l2_bytes / 1e6, (double)d->global_bytes / 1e9);
    char driver[96];
    const char *version = bf_driver_version(d, driver, sizeof driver);
    bf_table_meta(t, "cuda",
                  "runtime %d.%d, driver %s%s(CUDA %d.%d), built for CUDA architectures %s",
                  d->runtime_version / 1000, d->runtime_version % 1000 / 10, version ? version : "",
                  version ? " " : "", d->driver_version / 1000, d->driver_version % 1000 / 10,
                  bf_built_archs());
}

/* Prints a table and frees it. CSV is plain: a header row and the rows; the
 * run's facts go to stderr. */
static void print_table(struct bf_table *t, enum bf_format format)
{
    bf_table_print(stdout, t, format);
    if (format == BF_FORMAT_CSV)
        bf_table_print_meta(stderr, t);
    bf_table_free(t);
}

/* ---- list ---- */

/* The family's selected types, joined by sep: "f32 i32". */
static void selected_types(const struct bf_options *o, int f, const char *sep, char *buf,
                           size_t len)
{
    buf[0] = '\0';
    for (int k = 0; k < bf_families[f]->ntypes; ++k)
        if (o->types[f] >> k & 1u)
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? sep : "",
                     bf_families[f]->types[k]);
}

/* Why fam's variant v cannot run here; NULL if it can. */
static const char *unavailable(const struct bf_family *fam, int v, const struct bf_device *dev)
{
    return fam->unavailable != NULL ? fam->unavailable(v, dev) : NULL;
}

/* Whether variant v of fam takes type k: its API runs it at one size of
 * the family's test list at least (the refuses hook; none: every type). */
static int takes_type(const struct bf_family *fam, int v, int k)
{
    for (int s = 0; s < fam->nsizes[BF_SIZES_TEST]; ++s)
        if (bf_refuses(fam, v, k, &fam->sizes[BF_SIZES_TEST][s]) == NULL)
            return 1;
    return 0;
}

/* list's table fits this many columns unless --wide. */
#define LIST_COLUMNS 100

/* The next line of text wrapped at `width` columns (at a space where it can,
 * else cut): its length, and *text moved past it and the spaces after. */
static int wrap_line(const char **text, int width)
{
    const char *s = *text;
    int n = (int)strlen(s);
    if (n > width) {
        n = width;
        while (n > 0 && s[n] != ' ')
            --n;
        if (n == 0)
            n = width;
    }
    const char *next = s + n;
    while (*next == ' ')
        ++next;
    *text = next;
    return n;
}

/* The widest line of text wrapped at `width`. */
static int wrapped_width(const char *text, int width)
{
    int most = 0;
    while (*text) {
        const int n = wrap_line(&text, width);
        most = n > most ? n : most;
    }
    return most;
}

static int cmd_list(const struct bf_options *o)
{
    enum { FAMILY, VARIANT, SUMMARY, TYPES, AVAILABLE, NCOLS };
    static const char *const cols[] = {"family", "variant", "summary", "types", "available", NULL};
    /* The GPU, if there is one, says what runs on it; without one, the build. */
    struct bf_device dev;
    const struct bf_device *here = bf_device_peek(&dev, o->device) == 0 ? &dev : NULL;
    struct bf_table t;
    bf_table_init(&t, cols);
    /* Each row's cells, and the columns' widths as a table would print them. */
    struct bf_table cells;
    bf_table_init(&cells, cols);
    int width[NCOLS];
    for (int c = 0; c < NCOLS; ++c)
        width[c] = (int)strlen(cols[c]);
    for (int f = 0; f < bf_nfamilies; ++f) {
        const struct bf_family *fam = bf_families[f];
        for (int v = 0; v < fam->nvariants; ++v) {
            if (!(o->variants[f] >> v & 1u))
                continue;
            char types[256] = "";
            for (int k = 0; k < fam->ntypes; ++k)
                if (o->types[f] >> k & 1u && takes_type(fam, v, k))
                    snprintf(types + strlen(types), sizeof types - strlen(types), "%s%s",
                             types[0] ? " " : "", fam->types[k]);
            const char *why = unavailable(fam, v, here);
            bf_table_row(&cells);
            bf_table_text(&cells, "%s", fam->name);
            bf_table_text(&cells, "%s", fam->variants[v].name);
            bf_table_text(&cells, "%s", fam->variants[v].summary);
            bf_table_text(&cells, "%s", types);
            bf_table_text(&cells, "%s%s", why ? "no: " : "yes", why ? why : "");
        }
    }
    if (o->format != BF_FORMAT_TABLE || o->wide) {
        bf_table_free(&t);
        print_table(&cells, o->format);
        return 0;
    }
    /* A table of at most LIST_COLUMNS: types and available wrapped at 24
     * columns, the summary at what is left (at least 24), each row's lines
     * on rows of their own. */
    int wrap[NCOLS] = {0, 0, 0, 24, 24};
    for (int r = 0; r < cells.nrows; ++r)
        for (int c = 0; c < NCOLS; ++c) {
            const char *text = cells.cell[r * NCOLS + c];
            const int w = c == SUMMARY ? 0
                          : wrap[c]    ? wrapped_width(text, wrap[c])
                                       : (int)strlen(text);
            width[c] = w > width[c] ? w : width[c];
        }
    wrap[SUMMARY] = LIST_COLUMNS - 2 * (NCOLS - 1) - width[FAMILY] - width[VARIANT] - width[TYPES] -
                    width[AVAILABLE];
    wrap[SUMMARY] = wrap[SUMMARY] < 24 ? 24 : wrap[SUMMARY];
    for (int r = 0; r < cells.nrows; ++r) {
        const char *text[NCOLS];
        for (int c = 0; c < NCOLS; ++c)
            text[c] = cells.cell[r * NCOLS + c];
        for (int line = 0; line == 0 || *text[SUMMARY] || *text[TYPES] || *text[AVAILABLE];
             ++line) {
            bf_table_row(&t);
            for (int c = 0; c < NCOLS; ++c) {
                const char *at = text[c];
                const int n = wrap[c] ? wrap_line(&text[c], wrap[c]) : (int)strlen(at);
                if (!wrap[c])
                    text[c] += n;
                bf_table_text(&t, "%.*s", n, at);
            }
        }
    }
    bf_table_free(&cells);
    print_table(&t, o->format);
    return 0;
}

/* The seed of one case, family f, variant v, type `type`, the s-th of its
 * sizes, from the base seed: test makes the case's inputs from it and model
 * replays those same inputs. */
static uint64_t case_seed(uint64_t base, int f, int v, int type, int s)
{
    return bf_case_seed(base, (uint64_t)(((f * 32 + v) * 8 + type) * 64 + s));
}

/* ---- model ---- */

/* model's base seed when none is given: fixed, so its tables repeat. */
#define MODEL_SEED 1u

/* A site's wavefronts over its ideal; 0 when it made no request. */
static double site_ways(const struct bf_site *x)
{
    return x->ideal ? (double)x->wavefronts / (double)x->ideal : 0;
}

/* The cells after family, type, size, variant: one site, or one launch. */
static void site_cells(struct bf_table *t, const struct bf_site *x)
{
    bf_table_text(t, "%s", x->name);
    bf_table_text(t, "%s", bf_op_name(x->access.op));
    bf_table_num(t, "%d", x->access.bytes);
    bf_table_num(t, "%" PRIu64, x->requests);
    bf_table_num(t, "%" PRIu64, x->wavefronts);
    bf_table_num(t, "%" PRIu64, x->ideal);
    bf_table_num_if(t, x->ideal > 0, "%.2f", site_ways(x));
    bf_table_num(t, "%d", x->worst);
}

static void launch_cells(struct bf_table *t, const struct bf_site *sites, int n)
{
    const struct bf_launch_ways w = bf_sites_ways(sites, n);
    int worst = -1; /* stays -1 only when no site made a request */
    double worst_ways = 0;
    for (int i = 0; i < n; ++i)
        if (site_ways(&sites[i]) > worst_ways)
            worst = i, worst_ways = site_ways(&sites[i]);
    bf_table_num_if(t, w.ld > 0, "%.2f", w.ld);
    bf_table_num_if(t, w.st > 0, "%.2f", w.st);
    bf_table_num_if(t, w.atom > 0, "%.2f", w.atom);
    bf_table_num_if(t, w.ldc > 0, "%.2f", w.ldc);
    if (worst < 0) {
        bf_table_none(t);
        bf_table_text(t, n == 0 ? "(no shared memory)" : "(no launch)");
        return;
    }
    bf_table_num(t, "%.2f", worst_ways);
    if (worst_ways > 1.0)
        bf_table_text(t, "%s", sites[worst].name);
    else
        bf_table_text(t, "(conflict-free)");
}

/* A site's worst request, a row a lane (bf_lane_cells), after the launch's
 * family, types, size and variant. */
static void lane_rows(struct bf_table *t, const char *family, const char *types, const char *size,
                      const char *variant, const struct bf_site *x,
                      const struct bf_bank_rules *rules)
{
    if (x->worst_active == 0)
        return;
    for (int lane = 0; lane < BF_WARP; ++lane) {
        bf_table_row(t);
        bf_table_text(t, "%s", family);
        bf_table_text(t, "%s", types);
        bf_table_text(t, "%s", size);
        bf_table_text(t, "%s", variant);
        bf_lane_cells(t, x, rules, lane);
    }
}

static int cmd_model(const struct bf_options *o, const char *cmdline)
{
    static const char *const site_cols[] = {"family", "type",  "size",     "variant",    "site",
                                            "op",     "bytes", "requests", "wavefronts", "ideal",
                                            "ways",   "worst", NULL};
    static const char *const launch_cols[] = {"family",     "type",       "size",      "variant",
                                              "ld_ways",    "st_ways",    "atom_ways", "ldc_ways",
                                              "worst_ways", "worst_site", NULL};
    static const char *const lane_cols[] = {"family",  "type",          "size",
                                            "variant", BF_LANE_COLUMNS, NULL};
    const struct bf_bank_rules *rules = &o->rules;
    const uint64_t base = o->has_seed ? o->seed : MODEL_SEED;
    struct bf_table t;
    char why[256], size[64];
    bf_table_init(&t, o->lanes ? lane_cols : o->sites ? site_cols : launch_cols);
    bf_rules_meta(&t, rules, 1);
    /* ldmatrix, wgmma and cp.async: sm_90's ops, named only under its rules */
    const int sm90 = strcmp(rules->name, bf_rules_sm90.name) == 0;
    bf_table_meta(&t, "ways",
                  o->sites ? "wavefronts / ideal (ldc, a constant-cache load: distinct "
                             "addresses / requests); worst: most wavefronts one request took"
                           : "wavefronts / ideal over a launch's loads (%s), its "
                             "stores (%s), its shared atomics (red), its constant-cache "
                             "loads (ldc: distinct addresses / requests, not shared memory), "
                             "and its worst site (bankfree model FAMILY, or --sites, for every "
                             "site)",
                  sm90 ? "ld, ldmatrix, gmma" : "ld", sm90 ? "st, ldgsts" : "st");
    bf_table_meta(&t, "seed",
                  "%#" PRIx64 "%s; each case replays the input `bankfree test --seed %#" PRIx64
                  "` makes with the same sizes",
                  base, o->has_seed ? "" : " (fixed: no --seed given)", base);
    bf_table_meta(&t, "revision", "%s", bf_revision);
    bf_table_meta(&t, "command", "%s", cmdline);
    for (int f = 0; f < bf_nfamilies; ++f) {
        const struct bf_family *fam = bf_families[f];
        struct bf_size sizes[BF_MAX_SIZES];
        int nsizes = o->variants[f] ? bf_family_sizes(o, fam, sizes, why, sizeof why) : 0;
        for (int s = 0; s < nsizes; ++s) {
            bf_size_format(&sizes[s], size, sizeof size);
            for (int v = 0; v < fam->nvariants; ++v) {
                for (int type = 0; type < fam->ntypes; ++type) {
                    if (!(o->variants[f] >> v & 1u) || !(o->types[f] >> type & 1u))
                        continue;
                    char types[128];
                    if (fam->model_types_alike)
                        selected_types(o, f, "/", types, sizeof types);
                    else
                        snprintf(types, sizeof types, "%s", fam->types[type]);
                    struct bf_site sites[BF_MAX_SITES];
                    const char *refused = bf_refuses(fam, v, type, &sizes[s]);
                    int n = refused ? 0
                                    : fam->model(v, type, &sizes[s], case_seed(base, f, v, type, s),
                                                 rules, sites);
                    if (o->lanes) {
                        for (int i = 0; i < n; ++i)
                            lane_rows(&t, fam->name, types, size, fam->variants[v].name, &sites[i],
                                      rules);
                        if (fam->model_types_alike)
                            break;
                        continue;
                    }
                    for (int i = 0; i < (o->sites && n ? n : 1); ++i) {
                        bf_table_row(&t);
                        bf_table_text(&t, "%s", fam->name);
                        bf_table_text(&t, "%s", types);
                        bf_table_text(&t, "%s", size);
                        bf_table_text(&t, "%s", fam->variants[v].name);
                        if (refused != NULL) { /* the site column says why; no numbers */
                            for (int c = 4; c < t.ncols - 1 && !o->sites; ++c)
                                bf_table_none(&t);
                            bf_table_text(&t, "(refused: %s)", refused);
                        } else if (!o->sites) {
                            launch_cells(&t, sites, n);
                        } else if (n == 0) {
                            bf_table_text(&t, "(no shared memory)");
                        } else {
                            site_cells(&t, &sites[i]);
                        }
                    }
                    if (fam->model_types_alike)
                        break; /* one row serves every selected type */
                }
            }
        }
    }
    print_table(&t, o->format);
    return 0;
}

/* ---- no command, no GPU: the model's verdict, a row a variant ---- */

/* "32-way conflict", "2.6-way conflict", "conflict-free". */
static void verdict(double ways, char *buf, size_t len)
{
    if (ways <= 1.0)
        snprintf(buf, len, "conflict-free");
    else if (ways - (double)(int)(ways + 0.5) < 0.05 && (double)(int)(ways + 0.5) - ways < 0.05)
        snprintf(buf, len, "%d-way conflict", (int)(ways + 0.5));
    else
        snprintf(buf, len, "%.1f-way conflict", ways);
}

/* The worst of each variant over the sizes and types the options select
 * (bench's list, every type): its worst shared-memory site's ways, a verdict
 * and the site; then one line of what to try next. A table fits 100
 * columns: the sites' names cut to fit (md, csv and json: whole). */
static int cmd_summary(const struct bf_options *o)
{
    static const char *const cols[] = {"family",  "variant",    "worst_ways",
                                       "verdict", "worst_site", NULL};
    const uint64_t base = o->has_seed ? o->seed : MODEL_SEED;
    struct bf_table t;
    char why[256];
    bf_table_init(&t, cols);
    bf_table_meta(&t, "model", "%s rules, %d banks of %d B (bankfree model: every launch)",
                  o->rules.name, o->rules.banks, o->rules.bank_bytes);
    bf_table_meta(&t, "ways",
                  "a site's wavefronts / ideal, the worst over bench's sizes and types");
    for (int f = 0; f < bf_nfamilies; ++f) {
        const struct bf_family *fam = bf_families[f];
        struct bf_size sizes[BF_MAX_SIZES];
        const int nsizes = o->variants[f] ? bf_family_sizes(o, fam, sizes, why, sizeof why) : 0;
        for (int v = 0; v < fam->nvariants && nsizes > 0; ++v) { /* none: --size is another's */
            if (!(o->variants[f] >> v & 1u))
                continue;
            double worst = 0, ldc = 0;
            char site[64] = "";
            int modelled = 0, shared = 0;
            for (int s = 0; s < nsizes; ++s)
                for (int type = 0; type < fam->ntypes; ++type) {
                    if (!(o->types[f] >> type & 1u) || bf_refuses(fam, v, type, &sizes[s]))
                        continue;
                    struct bf_site sites[BF_MAX_SITES];
                    const int n = fam->model(v, type, &sizes[s], case_seed(base, f, v, type, s),
                                             &o->rules, sites);
                    modelled = 1;
                    for (int i = 0; i < n; ++i) {
                        const enum bf_op_class c = bf_op_class(sites[i].access.op);
                        if (c == BF_CLASS_LDC)
                            ldc = site_ways(&sites[i]) > ldc ? site_ways(&sites[i]) : ldc;
                        if (c == BF_CLASS_LDC || c == BF_CLASS_NONE)
                            continue; /* not a bank's: the constant cache, the copy engine */
                        shared = 1;
                        if (site_ways(&sites[i]) > worst) {
                            worst = site_ways(&sites[i]);
                            snprintf(site, sizeof site, "%s", sites[i].name);
                        }
                    }
                    if (fam->model_types_alike)
                        break; /* one type serves all */
                }
            char what[96];
            verdict(worst, what, sizeof what);
            bf_table_row(&t);
            bf_table_text(&t, "%s", fam->name);
            bf_table_text(&t, "%s", fam->variants[v].name);
            if (!modelled || !shared) {
                bf_table_none(&t);
                bf_table_text(&t, "%s", !modelled ? "refused at these sizes" : "no shared memory");
                if (ldc > 1.0)
                    bf_table_text(&t, "constant cache: %.1f addresses/request", ldc);
                else
                    bf_table_none(&t);
                continue;
            }
            bf_table_num(&t, "%.2f", worst);
            bf_table_text(&t, "%s", what);
            if (worst > 1.0)
                bf_table_text(&t, "%s", site);
            else
                bf_table_none(&t);
        }
    }
    /* Cut each site's name to what 100 columns leave it. */
    int width = o->format == BF_FORMAT_TABLE ? 0 : -1000;
    for (int c = 0; c < t.ncols - 1; ++c) {
        int w = (int)strlen(t.col[c]);
        for (int r = 0; r < t.nrows; ++r) {
            const char *cell = t.cell[r * t.ncols + c];
            const int n = cell ? (int)strlen(cell) : 1;
            w = n > w ? n : w;
        }
        width += w + 2;
    }
    const int room = 100 - width < 12 ? 12 : 100 - width;
    for (int r = 0; r < t.nrows; ++r) {
        char *cell = t.cell[r * t.ncols + t.ncols - 1];
        if (cell != NULL && (int)strlen(cell) > room)
            strcpy(cell + room - 3, "...");
    }
    print_table(&t, o->format);
    if (o->format == BF_FORMAT_TABLE || o->format == BF_FORMAT_MD)
        puts("\nnext: bankfree ways 'lane * 32 * 4' --fix, bankfree model FAMILY (every site), "
             "bankfree help");
    return 0;
}

/* ---- test and bench: need a GPU ---- */

/* Whether a case needing `need` bytes fits the GPU (95% of what is free,
 * leaving room for the libraries' own allocations); if not, writes why. */
static int fits(double need, const struct bf_options *o, char *why, size_t len)
{
    double avail = bf_device_free_bytes(o->mem_limit);
    if (need <= 0.95 * avail)
        return 1;
    snprintf(why, len, "needs %.2f GB of GPU memory; 95%% of the %.2f GB free%s is %.2f GB",
             need / 1e9, avail / 1e9, o->mem_limit > 0 ? " under --mem-limit" : "",
             0.95 * avail / 1e9);
    return 0;
}

static int cmd_test(const struct bf_options *o, const struct bf_device *dev)
{
    enum { PASS, FAIL, SKIP };
    static const char *const word[] = {"PASS", "FAIL", "SKIP"};
    int count[3] = {0, 0, 0};
    char why[512], size[64];
    printf("# bankfree test: seed %#" PRIx64 " (rerun with --seed to repeat)\n", o->seed);
    for (int f = 0; f < bf_nfamilies; ++f) {
        const struct bf_family *fam = bf_families[f];
        struct bf_size sizes[BF_MAX_SIZES];
        int nsizes = o->variants[f] ? bf_family_sizes(o, fam, sizes, why, sizeof why) : 0;
        for (int v = 0; v < fam->nvariants; ++v) {
            const char *cannot = o->variants[f] >> v & 1u ? unavailable(fam, v, dev) : NULL;
            if (cannot != NULL) { /* one line for all its cases */
                int cases = 0;
                for (int type = 0; type < fam->ntypes; ++type)
                    cases += (o->types[f] >> type & 1u) ? nsizes : 0;
                printf("SKIP  %s/%s  (%d cases: %s)\n", fam->name, fam->variants[v].name, cases,
                       cannot);
                count[SKIP] += cases;
                continue;
            }
            for (int type = 0; type < fam->ntypes; ++type) {
                if (!(o->variants[f] >> v & 1u) || !(o->types[f] >> type & 1u))
                    continue;
                for (int s = 0; s < nsizes; ++s) {
                    /* Every case its own fresh inputs. */
                    uint64_t seed = case_seed(o->seed, f, v, type, s);
                    why[0] = '\0';
                    int outcome = !fits(fam->test_bytes(type, &sizes[s]), o, why, sizeof why) ? SKIP
                                  : fam->test(v, type, &sizes[s], seed, why, sizeof why)      ? FAIL
                                                                                         : PASS;
                    bf_size_format(&sizes[s], size, sizeof size);
                    printf("%s  %s/%s  %s  %s", word[outcome], fam->name, fam->variants[v].name,
                           fam->types[type], size);
                    const char *refused = bf_refuses(fam, v, type, &sizes[s]);
                    if (outcome == FAIL)
                        printf("  (case seed %#" PRIx64 "): %s", seed, why);
                    else if (outcome == SKIP)
                        printf("  (%s)", why);
                    else if (refused != NULL)
                        printf("  (refused, as the API must: %s)", refused);
                    putchar('\n');
                    fflush(stdout);
                    count[outcome]++;
                }
            }
        }
    }
    printf("# %d passed, %d failed, %d skipped\n", count[PASS], count[FAIL], count[SKIP]);
    return count[FAIL] ? BF_EXIT_FAIL : count[PASS] == 0 && count[SKIP] ? BF_EXIT_NO_DEVICE : 0;
}

/* main's arguments, for the counting pass (--counters runs them again). */
static int main_argc;
static char **main_argv;

/* The bench table's columns, and ncu's after them with --counters. */
static void bench_columns(int counters, const char *cols[BF_TABLE_MAX_COLS + 1])
{
    int n = 0;
    for (int i = 0; bf_bench_columns[i] != NULL; ++i)
        cols[n++] = bf_bench_columns[i];
    for (int i = 0; counters && bf_bench_counter_columns[i] != NULL; ++i)
        cols[n++] = bf_bench_counter_columns[i];
    cols[n] = NULL;
}

/* --counters: the counting pass under ncu, before the timing, of the
 * counters this GPU has. Returns 0 with *counted set: 1, or 0 after one line
 * where ncu cannot profile here (the bench then runs without the counters);
 * or an exit code after one line. */
static int measure_counters(const struct bf_options *o, const struct bf_device *dev,
                            struct bf_counters *counts, int *counted)
{
    char ncu[4096], why[1024];
    *counted = 0;
    if (bf_ncu_path(ncu, sizeof ncu) == NULL) {
        fputs("bankfree: --counters needs Nsight Compute's ncu: none on PATH or in "
              "/usr/local/cuda/bin (or BANKFREE_NCU names one that is not executable)\n",
              stderr);
        return BF_EXIT_USAGE;
    }
    fprintf(stderr, "bankfree: counting shared-memory wavefronts under %s first\n", ncu);
    const int cc = 10 * dev->cc_major + dev->cc_minor;
    switch (bf_counters_measure(ncu, main_argc, main_argv, o->seed, cc, counts, why, sizeof why)) {
    case 0:
        *counted = 1;
        return 0;
    case 1:
        fprintf(stderr, "bankfree: no counters, the bench alone: %s\n", why);
        return 0;
    default:
        fprintf(stderr, "bankfree: %s\n", why);
        return BF_EXIT_FAIL;
    }
}

/* Whether the bench runs the s-th size of its list on `type`: every size
 * given by --size, and of the family's bench list those its bench_types
 * give the type (--quick runs the list's smallest on every type). */
static int bench_list_runs(const struct bf_options *o, const struct bf_family *fam, int s, int type)
{
    const int list =
        o->nsizes == 0 && !o->quick && (o->size_set < 0 || o->size_set == BF_SIZES_BENCH);
    return !list || fam->bench_types == NULL || (fam->bench_types[s] >> type & 1u);
}

static int cmd_bench(const struct bf_options *o, const struct bf_device *dev, const char *cmdline)
{
    struct bf_table t;
    char why[256], when[64], size[64];
    struct bf_counters counts = {0, NULL};
    struct bf_bench_ctx ctx = {
        .dev = dev, .timing = bf_timing_defaults(), .flush_l2 = o->flush_l2, .seed = o->seed};
    /* Run under ncu by --counters: each variant once, listed; no table. */
    const char *counting = getenv(BF_COUNTERS_ENV);
    if (counting != NULL && *counting) {
        ctx.counting = fopen(counting, "w");
        if (ctx.counting == NULL) {
            fprintf(stderr, "bankfree: counting pass: cannot write %s\n", counting);
            return BF_EXIT_FAIL;
        }
        const char *seed = getenv(BF_COUNTERS_SEED_ENV);
        if (seed != NULL)
            ctx.seed = strtoull(seed, NULL, 10);
    } else if (o->counters) {
        int counted, status = measure_counters(o, dev, &counts, &counted);
        if (status != 0)
            return status;
        if (counted)
            ctx.counters = &counts;
    }
    if (o->quick) {
        ctx.timing.min_reps = 5;
        ctx.timing.max_seconds = 0.25;
        ctx.timing.noise_target = 0.03;
    }
    const int sweep = o->size_set == BF_SIZES_SWEEP;
    if (sweep) { /* ~110 cases in a few minutes; each as a kernel meets new data */
        ctx.no_warm = 1;
        ctx.timing.max_reps = 4000; /* microsecond rows: a median of many */
        ctx.timing.max_seconds = 1.0;
    }
    if (o->reps > 0) {
        ctx.timing.min_reps = o->reps;
        if (ctx.timing.max_reps < o->reps)
            ctx.timing.max_reps = o->reps;
    }
    const char *cols[BF_TABLE_MAX_COLS + 1];
    bench_columns(ctx.counters != NULL, cols);
    bf_table_init(&t, cols);
    /* The selected variants that can run here; one line for each that cannot. */
    unsigned runnable[BF_MAX_FAMILIES];
    for (int f = 0; f < bf_nfamilies; ++f) {
        runnable[f] = o->variants[f];
        for (int v = 0; v < bf_families[f]->nvariants; ++v) {
            const char *cannot = runnable[f] >> v & 1u ? unavailable(bf_families[f], v, dev) : NULL;
            if (cannot != NULL && ctx.counting == NULL) {
                fprintf(stderr, "bankfree: skipped %s/%s: %s\n", bf_families[f]->name,
                        bf_families[f]->variants[v].name, cannot);
            }
            if (cannot != NULL)
                runnable[f] &= ~(1u << v);
        }
    }
    struct timespec start;
    timespec_get(&start, TIME_UTC);
    int failed = 0, ran = 0, skipped = 0, cases = 0;
    for (int pass = 0; pass < 2; ++pass) /* count the cases, then run them */
        for (int f = 0; f < bf_nfamilies; ++f) {
            const struct bf_family *fam = bf_families[f];
            struct bf_size sizes[BF_MAX_SIZES];
            int nsizes = o->variants[f] ? bf_family_sizes(o, fam, sizes, why, sizeof why) : 0;
            for (int type = 0; type < fam->ntypes; ++type) {
                if (!(o->types[f] >> type & 1u))
                    continue;
                for (int s = 0; s < nsizes; ++s) {
                    if (!bench_list_runs(o, fam, s, type))
                        continue;
                    if (pass == 0) {
                        ++cases;
                        continue;
                    }
                    /* The comparators' buffers, and L2's flush buffer. */
                    double need = fam->bench_bytes(type, &sizes[s]) + 2.0 * (double)dev->l2_bytes;
                    bf_size_format(&sizes[s], size, sizeof size);
                    fprintf(stderr, "bankfree: [%d/%d] %5.1f s  %s %s %s\n", ran + skipped + 1,
                            cases, bf_seconds_since(&start), fam->name, fam->types[type], size);
                    if (!fits(need, o, why, sizeof why)) {
                        fprintf(stderr, "bankfree: skipped %s %s %s: %s\n", fam->name,
                                fam->types[type], size, why);
                        ++skipped;
                        continue;
                    }
                    /* The variants the API runs at this size; none: a line, no case. */
                    unsigned mask = runnable[f];
                    const char *refused = NULL;
                    for (int v = 0; v < fam->nvariants; ++v)
                        if (mask >> v & 1u && bf_refuses(fam, v, type, &sizes[s]) != NULL) {
                            refused = bf_refuses(fam, v, type, &sizes[s]);
                            mask &= ~(1u << v);
                        }
                    if (mask == 0 && refused != NULL) {
                        if (ctx.counting == NULL)
                            fprintf(stderr, "bankfree: skipped %s %s %s: the API refuses it (%s)\n",
                                    fam->name, fam->types[type], size, refused);
                        continue;
                    }
                    failed |= fam->bench(mask, type, &sizes[s], &ctx, &t);
                    ++ran;
                }
            }
        }
    if (ctx.counting != NULL) {
        int bad = fclose(ctx.counting) != 0;
        bf_table_free(&t);
        return failed || bad ? BF_EXIT_FAIL : 0;
    }
    fprintf(stderr, "bankfree: %d cases in %.1f s\n", ran, bf_seconds_since(&start));
    utc_now(when, sizeof when);
    device_meta(&t, dev);
    int mhz = bf_sm_clock_now_mhz(dev);
    if (mhz > 0)
        bf_table_meta(&t, "sm_clock", "%d MHz just after the runs (max %d MHz)", mhz,
                      dev->max_sm_clock_mhz);
    else
        bf_table_meta(&t, "sm_clock", "max %d MHz (NVML not available for the clock now)",
                      dev->max_sm_clock_mhz);
    bf_table_meta(&t, "timing",
                  "CUDA events, %d warm-ups, median of >= %d reps (until noise < "
                  "%.0f%% or %d reps or %.2g s), a case's contenders timed in turns, up to 10 "
                  "reps at a time; L2 flushed %s; a rep whose SM clock was under "
                  "%.0f%% of max is discarded and retaken after %.0f ms (column throttled)",
                  ctx.timing.warmup, ctx.timing.min_reps, 100 * ctx.timing.noise_target,
                  ctx.timing.max_reps, ctx.timing.max_seconds,
                  o->flush_l2 ? "before every rep"
                  : sweep     ? "when the data fits in 4x L2 (column l2)"
                              : "when the data fits in 4x L2, but for a family's warm sizes, "
                                "resident in L2 on purpose (column l2)",
                  100 * ctx.timing.throttle_fraction, 1e3 * ctx.timing.recovery_s);
    bf_table_meta(&t, "columns",
                  "rate counts bytes read + written; of_ceiling = rate / the fastest "
                  "ceiling's rate (of its path, where variants have ceilings of their own); "
                  "vs_* = their time / this time; sm_mhz = median SM clock "
                  "over the kept reps; l2: flushed before "
                  "every rep, cold (data >= 4x L2, not flushed) or warm (resident on purpose); "
                  "data_bytes = what one run reads and writes; "
                  "smem_*_ways = model wavefronts / ideal (ld, st, atom: shared atomics); "
                  "ldc_ways = constant-cache distinct addresses / requests%s",
                  ctx.counters
                      ? "; ncu_* and pipe_* = ncu's SASS and data-pipe shared "
                        "wavefronts of one run (ld with ldmatrix and wgmma, st with cp.async); "
                        "ncu_vs_model_pct = 100 (SASS / model - 1), the class "
                        "furthest off"
                      : "");
    bf_table_meta(&t, "date", "%s", when);
    bf_table_meta(&t, "seed", "%#" PRIx64, o->seed);
    bf_table_meta(&t, "revision", "%s", bf_revision);
    bf_table_meta(&t, "command", "%s", cmdline);
    /* The summary, after the table, where a person reads it. */
    struct bf_table summary;
    bf_table_init(&summary, bf_summary_columns);
    bf_bench_summary(&t, bf_families, bf_nfamilies, &summary);
    if (o->json_file != NULL) {
        FILE *json = fopen(o->json_file, "w");
        if (json != NULL)
            bf_table_print_json(json, &t, "summary", &summary);
        if (json == NULL || fclose(json) != 0) {
            fprintf(stderr, "bankfree: --json %s: cannot write it: %s\n", o->json_file,
                    strerror(errno));
            failed = 1;
        }
    }
    if (o->format == BF_FORMAT_JSON) {
        bf_table_print_json(stdout, &t, "summary", &summary);
        bf_table_free(&t);
    } else {
        print_table(&t, o->format);
    }
    if (summary.nrows > 0 && (o->format == BF_FORMAT_TABLE || o->format == BF_FORMAT_MD)) {
        fputs(o->format == BF_FORMAT_MD ? "\n### Summary\n\n" : "\nsummary:\n", stdout);
        bf_table_print(stdout, &summary, o->format);
    }
    bf_table_free(&summary);
    bf_counters_free(&counts);
    return failed ? BF_EXIT_FAIL : ran == 0 && skipped ? BF_EXIT_NO_DEVICE : 0;
}

/* The facts of the device, a row each. */
static int cmd_device(const struct bf_options *o, const struct bf_device *dev)
{
    static const char *const none[] = {NULL}, *const cols[] = {"fact", "value", NULL};
    struct bf_table facts, t;
    bf_table_init(&facts, none);
    device_meta(&facts, dev);
    bf_table_meta(&facts, "sms", "%d", dev->sms);
    bf_table_meta(&facts, "sm_clock", "max %d MHz", dev->max_sm_clock_mhz);
    bf_table_meta(&facts, "memory", "%.2f GB free for a run%s",
                  bf_device_free_bytes(o->mem_limit) / 1e9,
                  o->mem_limit > 0 ? " under --mem-limit" : "");
    bf_table_init(&t, cols);
    for (int i = 0; i < facts.nmeta; ++i) {
        bf_table_row(&t);
        bf_table_text(&t, "%s", facts.meta_key[i]);
        bf_table_text(&t, "%s", facts.meta_val[i]);
    }
    bf_table_free(&facts);
    print_table(&t, o->format);
    return 0;
}

/* The model's ops and ncu's counters for each (common/counters.h), a row an
 * op, with the compute capabilities that have them (to_cc "-": and every
 * newer one). */
static int cmd_counters(const struct bf_options *o)
{
    static const char *const cols[] = {"op",      "ncu_op",  "sass_metric", "pipe_metric",
                                       "held_by", "from_cc", "to_cc",       NULL};
    struct bf_table t;
    bf_table_init(&t, cols);
    for (int op = 0; op < BF_OPS; ++op) {
        const struct bf_op_counter *m = &bf_op_counters[op];
        bf_table_row(&t);
        bf_table_text(&t, "%s", bf_op_name((enum bf_op)op));
        bf_table_text(&t, "%s", m->ncu_op ? m->ncu_op : "-");
        bf_table_text(&t, "%s", m->sass ? m->sass : "-");
        bf_table_text(&t, "%s", m->pipe ? m->pipe : "-");
        bf_table_text(&t, "%s", !m->sass ? "-" : m->by_requests ? "requests" : "wavefronts");
        if (m->sass)
            bf_table_text(&t, "%d.%d", m->min_cc / 10, m->min_cc % 10);
        else
            bf_table_text(&t, "%s", "-");
        if (m->sass && m->max_cc > 0)
            bf_table_text(&t, "%d.%d", m->max_cc / 10, m->max_cc % 10);
        else
            bf_table_text(&t, "%s", "-");
    }
    print_table(&t, o->format);
    return 0;
}

/* The main job: whether there is no GPU to bench (no driver, or none it
 * finds), said in one line; a driver too old for this build's runtime is
 * bf_device_open's to say. */
static int no_gpu_here(void)
{
    int count = 0, driver = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    cudaDriverGetVersion(&driver);
    cudaGetLastError(); /* leave no error behind */
    if ((err == cudaSuccess && count > 0) || (err == cudaErrorInsufficientDriver && driver > 0))
        return 0;
    fprintf(stderr,
            "bankfree: no CUDA GPU (%s): the bank model's verdict instead (list, model, "
            "ways need none)\n",
            driver == 0 ? "no driver" : "the driver finds none");
    return 1;
}

static int run(const struct bf_options *o, const char *cmdline)
{
    switch (o->command) {
    case BF_CMD_HELP:
        bf_print_help(stdout, o->help_for);
        return 0;
    case BF_CMD_LIST:
        return cmd_list(o);
    case BF_CMD_MODEL:
        return cmd_model(o, cmdline);
    case BF_CMD_COUNTERS:
        return cmd_counters(o);
    case BF_CMD_COMPARE:
        return bf_compare(o->files[0], o->files[1], o->format, cmdline);
    case BF_CMD_WAYS:
        return bf_ways(o, cmdline);
    default:
        break;
    }
    struct bf_device dev;
    if (o->command == BF_CMD_MAIN && no_gpu_here())
        return cmd_summary(o);
    int status = bf_device_open(&dev, o->device);
    if (status != 0)
        return status;
    switch (o->command) {
    case BF_CMD_DEVICE:
        return cmd_device(o, &dev);
    case BF_CMD_TEST:
        return cmd_test(o, &dev);
    default:
        return cmd_bench(o, &dev, cmdline);
    }
}

int main(int argc, char **argv)
{
    struct bf_options o;
    char why[512], cmdline[1024];
    if (bf_check_families(why, sizeof why) != 0) {
        fprintf(stderr, "bankfree: %s\n", why);
        return BF_EXIT_FAIL;
    }
    if (bf_parse_options(argc, argv, &o, why, sizeof why) != 0)
        usage_error(why);
    command_line(argc, argv, cmdline, sizeof cmdline);
    main_argc = argc;
    main_argv = argv;
    if (!o.has_seed)
        o.seed = bf_mix64((uint64_t)time(NULL) ^ ((uint64_t)clock() << 32));
    int status = run(&o, cmdline);
    /* Output that did not reach its file is a failure, not a result. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "bankfree: writing the output failed: %s\n", strerror(errno));
        return BF_EXIT_FAIL;
    }
    return status;
}
