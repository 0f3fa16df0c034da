/* bankfree: the one runner. list, model, test and bench over every family
 * registered in families.c; see bf_usage (cli.c) for the command line. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "common/bench.h"
#include "common/check.h"
#include "common/data.h"
#include "common/device.h"
#include "common/registry.h"
#include "common/report.h"
#include "tests/cli.h"
#include "tests/families.h"

static void usage_error(const char *why)
{
    fprintf(stderr, "bankfree: %s\n", why);
    exit(BF_EXIT_USAGE);
}

/* The command line as typed, for the report. */
static void command_line(int argc, char **argv, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < argc && n + 1 < len; ++i)
        n += (size_t)snprintf(buf + n, len - n, i ? " %s" : "%s", argv[i]);
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
    bf_table_meta(t, "cuda", "runtime %d.%d, driver %d.%d, CMAKE_CUDA_ARCHITECTURES=%s",
                  d->runtime_version / 1000, d->runtime_version % 1000 / 10,
                  d->driver_version / 1000, d->driver_version % 1000 / 10, bf_built_archs());
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

static int cmd_list(const struct bf_options *o)
{
    static const char *const cols[] = {"family", "variant", "summary", "types", NULL};
    struct bf_table t;
    bf_table_init(&t, cols);
    for (int f = 0; f < bf_nfamilies; ++f) {
        const struct bf_family *fam = bf_families[f];
        char types[128];
        selected_types(o, f, " ", types, sizeof types);
        for (int v = 0; v < fam->nvariants; ++v) {
            if (!(o->variants[f] >> v & 1u))
                continue;
            bf_table_row(&t);
            bf_table_text(&t, "%s", fam->name);
            bf_table_text(&t, "%s", fam->variants[v].name);
            bf_table_text(&t, "%s", fam->variants[v].summary);
            bf_table_text(&t, "%s", types);
        }
    }
    bf_table_print(stdout, &t, o->format);
    bf_table_free(&t);
    return 0;
}

/* ---- model ---- */

/* The model's count for one site: the cells after family, type, size, variant. */
static void model_cells(struct bf_table *t, const struct bf_site *x)
{
    bf_table_text(t, "%s", x->name);
    bf_table_text(t, "%s", bf_op_name(x->access.op));
    bf_table_num(t, "%d", x->access.bytes);
    bf_table_num(t, "%" PRIu64, x->requests);
    bf_table_num(t, "%" PRIu64, x->wavefronts);
    bf_table_num(t, "%" PRIu64, x->ideal);
    bf_table_num(t, "%.2f", x->ideal ? (double)x->wavefronts / (double)x->ideal : 0);
    bf_table_num(t, "%d", x->worst);
}

static int cmd_model(const struct bf_options *o, const char *cmdline)
{
    static const char *const cols[] = {"family", "type",  "size",     "variant",    "site",
                                       "op",     "bytes", "requests", "wavefronts", "ideal",
                                       "ways",   "worst", NULL};
    struct bf_table t;
    char why[256], size[64];
    bf_table_init(&t, cols);
    bf_table_meta(&t, "model",
                  "%s rules: %d banks of %d B; 1-8 B accesses served %d lanes at a "
                  "time, 16 B loads %d, 16 B stores %d, ldmatrix 8",
                  o->rules->name, o->rules->banks, o->rules->bank_bytes, o->rules->part_lanes,
                  o->rules->ld16_lanes, o->rules->st16_lanes);
    bf_table_meta(&t, "ways", "wavefronts / ideal; worst: most wavefronts one request took");
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
                    int n = fam->model(v, type, &sizes[s], o->rules, sites);
                    for (int i = 0; i < (n ? n : 1); ++i) {
                        bf_table_row(&t);
                        bf_table_text(&t, "%s", fam->name);
                        bf_table_text(&t, "%s", types);
                        bf_table_text(&t, "%s", size);
                        bf_table_text(&t, "%s", fam->variants[v].name);
                        if (n == 0) {
                            bf_table_text(&t, "(no shared memory)");
                            break;
                        }
                        model_cells(&t, &sites[i]);
                    }
                    if (fam->model_types_alike)
                        break; /* one row serves every selected type */
                }
            }
        }
    }
    bf_table_print(stdout, &t, o->format);
    bf_table_free(&t);
    return 0;
}

/* ---- test and bench: need a GPU ---- */

/* Refuses (exit 2) a size the GPU cannot hold, now that we know the GPU. */
static void check_memory(const struct bf_family *f, const struct bf_size *s)
{
    size_t free_bytes, total;
    BF_CHECK(cudaMemGetInfo(&free_bytes, &total));
    double need = f->device_bytes(s);
    if (need > 0.95 * (double)free_bytes) {
        char size[64];
        bf_size_format(s, size, sizeof size);
        fprintf(stderr,
                "bankfree: size '%s' needs %.1f GB of GPU memory; the GPU has %.1f GB free\n", size,
                need / 1e9, (double)free_bytes / 1e9);
        exit(BF_EXIT_USAGE);
    }
}

static int cmd_test(const struct bf_options *o)
{
    int passed = 0, failed = 0;
    char why[512], size[64];
    for (int f = 0; f < bf_nfamilies; ++f) {
        struct bf_size sizes[BF_MAX_SIZES];
        int nsizes =
            o->variants[f] ? bf_family_sizes(o, bf_families[f], sizes, why, sizeof why) : 0;
        for (int s = 0; s < nsizes; ++s)
            check_memory(bf_families[f], &sizes[s]);
    }
    printf("# bankfree test: seed %#" PRIx64 " (rerun with --seed to repeat)\n", o->seed);
    for (int f = 0; f < bf_nfamilies; ++f) {
        const struct bf_family *fam = bf_families[f];
        struct bf_size sizes[BF_MAX_SIZES];
        int nsizes = o->variants[f] ? bf_family_sizes(o, fam, sizes, why, sizeof why) : 0;
        for (int v = 0; v < fam->nvariants; ++v) {
            for (int type = 0; type < fam->ntypes; ++type) {
                if (!(o->variants[f] >> v & 1u) || !(o->types[f] >> type & 1u))
                    continue;
                for (int s = 0; s < nsizes; ++s) {
                    /* Every case its own fresh inputs. */
                    uint64_t seed =
                        bf_case_seed(o->seed, (uint64_t)(((f * 32 + v) * 8 + type) * 64 + s));
                    bf_size_format(&sizes[s], size, sizeof size);
                    why[0] = '\0';
                    int bad = fam->test(v, type, &sizes[s], seed, why, sizeof why);
                    printf("%s  %s/%s  %s  %s", bad ? "FAIL" : "PASS", fam->name,
                           fam->variants[v].name, fam->types[type], size);
                    if (bad)
                        printf("  (case seed %#" PRIx64 "): %s", seed, why);
                    putchar('\n');
                    fflush(stdout);
                    bad ? ++failed : ++passed;
                }
            }
        }
    }
    printf("# %d passed, %d failed\n", passed, failed);
    return failed ? BF_EXIT_FAIL : 0;
}

static int cmd_bench(const struct bf_options *o, const struct bf_device *dev, const char *cmdline)
{
    struct bf_table t;
    char why[256], when[64];
    bf_table_init(&t, bf_bench_columns);
    struct bf_bench_ctx ctx = {dev, bf_timing_defaults(), o->flush_l2, o->seed};
    if (o->reps > 0) {
        ctx.timing.min_reps = o->reps;
        if (ctx.timing.max_reps < o->reps)
            ctx.timing.max_reps = o->reps;
    }
    int failed = 0;
    for (int f = 0; f < bf_nfamilies; ++f) {
        const struct bf_family *fam = bf_families[f];
        struct bf_size sizes[BF_MAX_SIZES];
        int nsizes = o->variants[f] ? bf_family_sizes(o, fam, sizes, why, sizeof why) : 0;
        for (int type = 0; type < fam->ntypes; ++type) {
            if (!(o->types[f] >> type & 1u))
                continue;
            for (int s = 0; s < nsizes; ++s) {
                check_memory(fam, &sizes[s]);
                failed |= fam->bench(o->variants[f], type, &sizes[s], &ctx, &t);
            }
        }
    }
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
                  "%.0f%% or %d reps or %.0f s); L2 flushed %s",
                  ctx.timing.warmup, ctx.timing.min_reps, 100 * ctx.timing.noise_target,
                  ctx.timing.max_reps, ctx.timing.max_seconds,
                  o->flush_l2 ? "before every rep" : "when the data fits in 4x L2");
    bf_table_meta(&t, "columns",
                  "rate counts bytes read + written; of_ceiling = rate / copy "
                  "rate; vs_* = their time / this time; smem_*_ways = model wavefronts / ideal");
    bf_table_meta(&t, "date", "%s", when);
    bf_table_meta(&t, "seed", "%#" PRIx64, o->seed);
    bf_table_meta(&t, "command", "%s", cmdline);
    bf_table_print(stdout, &t, o->format);
    bf_table_free(&t);
    return failed ? BF_EXIT_FAIL : 0;
}

int main(int argc, char **argv)
{
    struct bf_options o;
    char why[512], cmdline[1024];
    if (bf_parse_options(argc, argv, &o, why, sizeof why) != 0)
        usage_error(why);
    command_line(argc, argv, cmdline, sizeof cmdline);
    if (!o.has_seed)
        o.seed = bf_mix64((uint64_t)time(NULL) ^ ((uint64_t)clock() << 32));

    switch (o.command) {
    case BF_CMD_HELP:
        fputs(bf_usage, stdout);
        return 0;
    case BF_CMD_LIST:
        return cmd_list(&o);
    case BF_CMD_MODEL:
        return cmd_model(&o, cmdline);
    default:
        break;
    }

    struct bf_device dev;
    int status = bf_device_open(&dev);
    if (status == BF_EXIT_NO_DEVICE && o.command == BF_CMD_MAIN) {
        fputs("bankfree: showing the bank model instead (bankfree --help for more)\n", stderr);
        return cmd_model(&o, cmdline);
    }
    if (status != 0)
        return status;
    if (o.command == BF_CMD_DEVICE) {
        struct bf_table t;
        static const char *const none[] = {NULL};
        bf_table_init(&t, none);
        device_meta(&t, &dev);
        bf_table_meta(&t, "sm_clock", "max %d MHz", dev.max_sm_clock_mhz);
        bf_table_print(stdout, &t, o.format);
        bf_table_free(&t);
        return 0;
    }
    return o.command == BF_CMD_TEST ? cmd_test(&o) : cmd_bench(&o, &dev, cmdline);
}
