/* The common layer's host side: inputs, validation, timing statistics, sizes
 * and reports. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bench.h"
#include "common/counters.h"
#include "common/data.h"
#include "common/registry.h"
#include "common/report.h"
#include "common/sm_clock.h"
#include "common/timing.h"
#include "common/validate.h"
#include "tests/unit.h"

static void test_random_inputs(void)
{
    int zeros = 0, outside = 0, same = 0;
    double sum = 0;
    const int n = 1 << 22;
    for (int i = 0; i < n; ++i) {
        float v = bf_random_f32(42, (uint64_t)i);
        zeros += v == 0.0f;
        outside += !(v > -1.0f && v < 1.0f);
        same += v == bf_random_f32(43, (uint64_t)i);
        sum += v;
    }
    EXPECT_EQ(zeros, 0, "zeros among 4M random floats");
    EXPECT_EQ(outside, 0, "values outside (-1, 1)");
    EXPECT(same < 16, "seeds 42 and 43 agree on %d of 4M elements", same);
    EXPECT(fabs(sum / n) < 0.01, "mean %g is not near 0", sum / n);
    EXPECT(bf_random_f32(7, 123) == bf_random_f32(7, 123), "same seed, same value");
    EXPECT(bf_case_seed(1, 0) != bf_case_seed(1, 1), "cases get fresh seeds");
}

static void test_validation(void)
{
    float want[5] = {1, 2, 3, 4, 5}, got[5] = {1, 2, 9, 4, 7};
    size_t first;
    EXPECT_EQ(bf_compare_exact(got, want, 5, sizeof(float), &first), 2, "mismatches");
    EXPECT_EQ(first, 2, "first mismatch");
    EXPECT_EQ(bf_compare_exact(want, want, 5, sizeof(float), &first), 0, "self");
    EXPECT_EQ(first, 5, "no mismatch: first == n");

    /* Poison (every byte 0xff) is a NaN: no float result is ever equal to it. */
    float poison;
    memset(&poison, 0xff, sizeof poison);
    EXPECT(isnan(poison), "poison is NaN");
    float out[3] = {1.0f, poison, 3.0f}, ref[3] = {1.0f, 2.0f, 3.0f};
    EXPECT_EQ(bf_compare_exact(out, ref, 3, sizeof(float), &first), 1, "poison left in place");
    EXPECT_EQ(first, 1, "and found where it is");
}

static void test_timing_stats(void)
{
    double ms[7] = {5, 1, 4, 2, 3, 100, 3};
    struct bf_timing t;
    bf_timing_stats(ms, 7, &t);
    EXPECT(t.median_ms == 3 && t.min_ms == 1 && t.max_ms == 100 && t.reps == 7,
           "median/min/max: %g %g %g", t.median_ms, t.min_ms, t.max_ms);
    /* |x - 3| = 0 0 1 1 2 2 97: MAD 1, noise 1/3, unmoved by the outlier */
    EXPECT(fabs(t.noise - 1.0 / 3.0) < 1e-12, "noise %g", t.noise);
    double even[4] = {4, 1, 3, 2};
    bf_timing_stats(even, 4, &t);
    EXPECT(t.median_ms == 2.5, "median of an even count: %g", t.median_ms);
}

/* Two families' sizes: ROWSxCOLS from 1, and N from 0 (empty input is valid). */
static const struct bf_size matrix_example[] = {{2, {8192, 8192}}};
static const struct bf_size length_example[] = {{1, {1000000}}};
static const struct bf_family matrix = {.name = "matrix",
                                        .ndims = 2,
                                        .min_dim = 1,
                                        .size_form = "ROWSxCOLS",
                                        BF_SIZES(BF_SIZES_BENCH, matrix_example)};
static const struct bf_family length = {.name = "length",
                                        .ndims = 1,
                                        .min_dim = 0,
                                        .size_form = "N",
                                        BF_SIZES(BF_SIZES_BENCH, length_example)};

/* Parses text as a size of f; returns the error, or "" if it parsed. */
static const char *size_error(const struct bf_family *f, const char *text, struct bf_size *s)
{
    static char why[256];
    why[0] = '\0';
    if (bf_size_parse(text, f, s, why, sizeof why) != 0 && why[0] == '\0')
        snprintf(why, sizeof why, "(refused with no reason)");
    return why;
}

static void test_sizes(void)
{
    struct bf_size s;
    char text[64];
    EXPECT(*size_error(&matrix, "8192x4096", &s) == '\0', "8192x4096 refused");
    EXPECT(s.ndims == 2 && s.dim[0] == 8192 && s.dim[1] == 4096, "dims");
    bf_size_format(&s, text, sizeof text);
    EXPECT(strcmp(text, "8192x4096") == 0, "format: %s", text);
    EXPECT(*size_error(&length, "100", &s) == '\0' && s.dim[0] == 100, "1-D");

    /* Each refusal says what is wrong, in words. */
    const struct {
        const struct bf_family *f;
        const char *text, *says;
    } bad[] = {
        {&matrix, "", "takes 2 dimensions"},
        {&matrix, "x", "a dimension is missing"},
        {&matrix, "4x", "a dimension is missing"},
        {&matrix, "0x1", "at least 1"},
        {&matrix, "1x0", "at least 1"},
        {&matrix, "-1x2", "'-1' is not a whole number"},
        {&matrix, "1x-2", "'-2' is not a whole number"},
        {&matrix, "1x2 ", "'2 ' is not a whole number"},
        {&matrix, "+1x2", "'+1' is not a whole number"},
        {&matrix, "1e3x2", "'1e3' is not a whole number"},
        {&matrix, "1x2x", "takes 2 dimensions, ROWSxCOLS (like 8192x8192)"},
        {&matrix, "1x2x3", "takes 2 dimensions"},
        {&matrix, "12", "takes 2 dimensions"},
        {&matrix, "1099511627777x1", "larger than 2^40"},
        {&matrix, "99999999999999999999x1", "larger than 2^40"},
        {&length, "1.5", "'1.5' is not a whole number"},
        {&length, "1e6", "'1e6' is not a whole number"},
        {&length, "256M", "'256M' is not a whole number"},
        {&length, "-1", "'-1' is not a whole number"},
        {&length, "3x3", "length takes 1 dimension, N (like 1000000)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        const char *why = size_error(bad[i].f, bad[i].text, &s);
        EXPECT(strstr(why, bad[i].says) != NULL, "'%s': '%s' does not say '%s'", bad[i].text, why,
               bad[i].says);
    }
    /* Where empty input is valid (min_dim 0), 0 parses. */
    EXPECT(*size_error(&length, "0", &s) == '\0' && s.dim[0] == 0, "0 with min 0");
}

/* Prints a table to a string. */
static char *printed(const struct bf_table *t, enum bf_format f)
{
    static char buf[8192];
    FILE *tmp = tmpfile();
    bf_table_print(tmp, t, f);
    rewind(tmp);
    size_t n = fread(buf, 1, sizeof buf - 1, tmp);
    buf[n] = '\0';
    fclose(tmp);
    return buf;
}

static void test_report(void)
{
    static const char *const cols[] = {"name", "value", NULL};
    struct bf_table t;
    bf_table_init(&t, cols);
    bf_table_meta(&t, "device", "GPU \"one\"");
    bf_table_row(&t);
    bf_table_text(&t, "a,b");
    bf_table_num(&t, "%.2f", 1.5);
    bf_table_row(&t);
    bf_table_text(&t, "say \"hi\"");
    bf_table_num(&t, "nan");
    bf_table_row(&t);
    bf_table_text(&t, "empty");
    bf_table_none(&t);
    enum bf_format f;
    EXPECT(bf_format_parse("json", &f) == 0 && f == BF_FORMAT_JSON, "format names");
    EXPECT(bf_format_parse("xml", &f) != 0, "unknown format refused");

    /* CSV: the header row first, no metadata, an empty cell empty. */
    const char *csv = printed(&t, BF_FORMAT_CSV);
    EXPECT(strcmp(csv, "name,value\n\"a,b\",1.50\n\"say \"\"hi\"\"\",nan\nempty,\n") == 0,
           "csv:\n%s", csv);
    const char *json = printed(&t, BF_FORMAT_JSON);
    EXPECT(strstr(json, "\"device\": \"GPU \\\"one\\\"\"") != NULL, "json meta:\n%s", json);
    EXPECT(strstr(json, "{\"name\": \"a,b\", \"value\": 1.50}") != NULL, "json row:\n%s", json);
    EXPECT(strstr(json, "{\"name\": \"say \\\"hi\\\"\", \"value\": null}") != NULL,
           "json: a non-number becomes null:\n%s", json);
    EXPECT(strstr(json, "{\"name\": \"empty\", \"value\": null}") != NULL,
           "json: an empty cell is null:\n%s", json);
    const char *md = printed(&t, BF_FORMAT_MD);
    EXPECT(strstr(md, "| name     | value |") != NULL && strstr(md, "| -------- | ----: |"),
           "markdown:\n%s", md);
    const char *table = printed(&t, BF_FORMAT_TABLE);
    EXPECT(strstr(table, "a,b        1.50") != NULL, "aligned, numbers right:\n%s", table);
    EXPECT(strstr(table, "empty         -") != NULL, "an empty cell reads -:\n%s", table);
    bf_table_free(&t);
}

#define SASS_LD "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
#define SASS_ST "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
#define PIPE_LD "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"

/* The clock read around a rep, and which reps count as throttled. */
static void test_clock(void)
{
    struct bf_clock_stamp a = {1000000, 5000000}, b = {1020000, 5000000 + 39600};
    EXPECT(fabs(bf_clock_mhz(&a, &b, 10000) - 1980) < 1e-9, "39600 cycles in 20 us: 1980 MHz");
    EXPECT(bf_clock_mhz(&a, &b, 30000) == 0, "a stretch under min_ns is not judged");
    struct bf_clock_stamp unwritten = {0, 0};
    EXPECT(bf_clock_mhz(&unwritten, &b, 0) == 0, "a stamp never written: not judged");
    EXPECT(bf_clock_mhz(&b, &a, 0) == 0, "stamps out of order: not judged");
    struct bf_timing_opts o = bf_timing_defaults();
    EXPECT(!bf_timing_throttled(&o, 1000), "no maximum given: no check");
    o.max_mhz = 1980;
    EXPECT(bf_timing_throttled(&o, 1187) && !bf_timing_throttled(&o, 1188) &&
               !bf_timing_throttled(&o, 1446) && !bf_timing_throttled(&o, 0),
           "under 60%% of 1980 MHz (1188) is throttled, a power cap's 1446 is not; 0 (not read) "
           "is not");
}

/* ncu's CSV and the counting pass's list, made up: rows after each marker go
 * to the next listed variant, by op (bf_op_counters); a kernel before the
 * first marker to none. */
static void test_counters(void)
{
    static const char log_text[] =
        "==PROF== Connected to process 1 (bankfree)\n"
        "\"ID\",\"Process ID\",\"Kernel Name\",\"Section Name\",\"Metric Name\","
        "\"Metric Unit\",\"Metric Value\"\n"
        "\"0\",\"1\",\"transpose_fill(float *, int)\",\"\",\"" SASS_LD "\",\"\",\"7\"\n"
        "\"1\",\"1\",\"bankfree_counters_mark()\",\"\",\"" SASS_LD "\",\"\",\"0\"\n"
        "\"2\",\"1\",\"transpose_conflicting(const float *, float *)\",\"\",\"" SASS_LD
        "\",\"\",\"1,048,576\"\n"
        "\"2\",\"1\",\"transpose_conflicting(const float *, float *)\",\"\",\"" SASS_ST
        "\",\"\",\"32,768\"\n"
        "\"3\",\"1\",\"bankfree_counters_mark()\",\"\",\"" SASS_LD "\",\"\",\"0\"\n"
        "\"4\",\"1\",\"reduction_pass1\",\"\",\"" SASS_LD "\",\"\",\"100\"\n"
        "\"5\",\"1\",\"any_name\",\"\",\"" SASS_LD "\",\"\",\"20\"\n"
        "\"5\",\"1\",\"any_name\",\"\",\"" PIPE_LD "\",\"\",\"21\"\n";
    static const char list_text[] = "transpose\tf32\t64x64\tconflicting\n"
                                    "reduction\ti32\t1024\ttree\n";
    FILE *log = tmpfile(), *list = tmpfile();
    EXPECT(log != NULL && list != NULL, "temporary files");
    if (log == NULL || list == NULL)
        return;
    fputs(log_text, log);
    fputs(list_text, list);
    rewind(log);
    rewind(list);
    struct bf_counters c;
    char why[256] = "";
    EXPECT(bf_counters_parse(log, list, &c, why, sizeof why) == 0, "parse: %s", why);
    const struct bf_counted *t = bf_counters_find(&c, "transpose", "f32", "64x64", "conflicting");
    const struct bf_counted *r = bf_counters_find(&c, "reduction", "i32", "1024", "tree");
    EXPECT(t != NULL && t->sass[BF_LOAD] == 1048576 && t->sass[BF_STORE] == 32768,
           "transpose: 1048576 loads, 32768 stores; the fill before the marker is no one's");
    EXPECT(r != NULL && r->sass[BF_LOAD] == 120 && r->pipe[BF_LOAD] == 21,
           "reduction: two kernels of any name summed, 120 (pipe 21)");
    EXPECT(bf_counters_find(&c, "reduction", "i32", "1024", "tuned") == NULL, "not listed: NULL");
    /* The map: a counter for every op but the constant cache's. */
    for (int op = 0; op < BF_OPS; ++op)
        EXPECT((bf_op_counters[op].sass != NULL) == (bf_op_class((enum bf_op)op) != BF_CLASS_LDC),
               "%s: a SASS counter unless it is ldc", bf_op_name((enum bf_op)op));
    bf_counters_free(&c);
    /* A marker more than the list names: refused. */
    rewind(log);
    FILE *short_list = tmpfile();
    if (short_list == NULL)
        return;
    fputs("transpose\tf32\t64x64\tconflicting\n", short_list);
    rewind(short_list);
    EXPECT(bf_counters_parse(log, short_list, &c, why, sizeof why) != 0 &&
               strstr(why, "markers") != NULL,
           "two markers, one variant listed: %s", why);
    bf_counters_free(&c);
    fclose(short_list);
    fclose(log);
    fclose(list);
}

int main(void)
{
    test_random_inputs();
    test_validation();
    test_timing_stats();
    test_sizes();
    test_report();
    test_clock();
    test_counters();
    return unit_finish("common");
}
